"""The graph's write path: texts extracted into their scope graphs.

Each mention resolves to an entity of its scope (by key, then trigram, then embedding, else a
new one), each relation becomes a fact reconciled with the subject's others by the temporal
rules, and each source links the entities it names. One writer at a time: resolution state and
temporal reconciliation must see each other's writes.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.clock import Clock, aware
from kg import temporal
from kg.forget import erase_sources
from kg.merging import EntityMerger, embed_names
from kg.models import (
    NAMED,
    Entity,
    EntityMention,
    EntityType,
    Extraction,
    Mention,
    MergeResult,
    Relation,
    RelationUpdate,
    SourceKind,
    SourceText,
    entity_id,
    relation_id,
)
from kg.ports import Extractor, GraphStore
from kg.resolution import (
    EMBED_MERGE,
    FUZZY_MERGE,
    NameIndex,
    NameIndexes,
    embeddable,
    normalize,
    types_compatible,
)
from vectors.models import ChunkText
from vectors.ports import Embedder

# each Kuzu write call has a fixed cost (statements, a transaction): texts are stored this
# many at a time
_INGEST_GROUP = 512


@dataclass
class _Pending:
    """One text of a write batch: where it came from and what it yielded."""

    scope: str
    at: datetime
    extraction: Extraction
    source_id: str | None = None
    kind: SourceKind = 'chunk'
    chunk: str | None = None
    episode: str | None = None
    entity_ids: list[str] = field(default_factory=list)


class GraphWriter:
    """The single writer of the temporal graph and of each scope's name index."""

    def __init__(
        self,
        store: GraphStore,
        extractor: Extractor,
        embedder: Embedder,
        clock: Clock,
        indexes: NameIndexes,
    ) -> None:
        self._store = store
        self._extractor = extractor
        self._embedder = embedder
        self._clock = clock
        self._indexes = indexes
        self._merger = EntityMerger(store, embedder, clock)
        # one writer: resolution state and temporal reconciliation must see each other's writes
        self._lock = threading.RLock()

    def index_chunks(self, chunks: Sequence[ChunkText]) -> dict[str, list[str]]:
        """Extract entities and relations into each chunk's scope graph; chunk id -> entity ids."""
        # a chunk's text never changes: one the graph already links (a job replayed after a
        # crash, a rebuild started twice) is not read again, so its mentions count once
        out = self._store.source_entities([c.id for c in chunks])
        chunks = [c for c in chunks if c.id not in out]
        if not chunks:
            return out
        group: list[_Pending] = []
        done = 0
        parts = self._extractor.extract_parts(
            [SourceText(text=c.text, at=c.at, speaker=c.speaker) for c in chunks]
        )
        for extractions in parts:
            for chunk, extraction in zip(chunks[done:], extractions, strict=False):
                group.append(
                    _Pending(
                        scope=chunk.scope,
                        at=aware(chunk.at),
                        extraction=extraction,
                        source_id=chunk.id,
                        chunk=chunk.id,
                    )
                )
            done += len(extractions)
            if len(group) >= _INGEST_GROUP or done >= len(chunks):
                self._ingest(group)
                out.update((p.source_id, p.entity_ids) for p in group if p.source_id)
                group = []
        return out

    def ingest_text(
        self,
        scope: str,
        text: str,
        at: datetime,
        speaker: str | None = None,
        source_episode: str | None = None,
    ) -> list[str]:
        """Extract one text (an episode summary) into `scope`; returns the entity ids it named."""
        [extraction] = self._extractor.extract([SourceText(text=text, at=at, speaker=speaker)])
        item = _Pending(
            scope=scope,
            at=aware(at),
            extraction=extraction,
            source_id=source_episode,
            kind='episode',
            episode=source_episode,
        )
        self._ingest([item])
        return item.entity_ids

    def erase_sources(self, ids: Sequence[str], scope: str | None = None) -> tuple[int, int]:
        """`kg.forget.erase_sources` (with `scope`: its whole graph); (facts, entities) erased."""
        with self._lock:
            self._indexes.clear()  # name indexes must not resolve to erased entities
            return erase_sources(self._store, ids, self._clock.now(), scope)

    def merge_duplicates(self, scope: str, entity_ids: Sequence[str]) -> MergeResult:
        """Merge duplicates of the given entities within `scope`; flag ambiguous pairs."""
        with self._lock:
            return self._merger.merge_duplicates(self._indexes.get(scope), entity_ids)

    # ---- internals -------------------------------------------------------------------------

    def _ingest(self, items: list[_Pending]) -> None:
        with self._lock:
            # again under the lock: two runs of one job may have read the graph at once
            linked = self._store.source_entities([i.source_id for i in items if i.source_id])
            for item in items:
                item.entity_ids = linked.get(item.source_id or '', [])
            items = [i for i in items if i.source_id not in linked]
            if not items:
                return
            now = self._clock.now()
            touched: dict[str, Entity] = {}
            fresh: dict[str, Entity] = {}
            names = self._name_vectors(items)
            for item in items:
                index = self._indexes.get(item.scope)
                ids: dict[str, str] = {}
                for mention in item.extraction.entities:
                    vector = names.get(mention.name)
                    entity = self._resolve(index, item.scope, mention, vector, touched, fresh, now)
                    ids[mention.name] = entity.id
                item.entity_ids = list(dict.fromkeys(ids.values()))
                item.extraction = _linked(item.extraction, ids)
            vectors = {i: names[e.name] for i, e in fresh.items() if e.name in names}
            self._store.upsert_entities(list(touched.values()), vectors)
            for entity in touched.values():
                self._indexes.get(entity.scope).put(entity)
            self._write_relations(items, now)
            self._store.add_mentions(
                [
                    Mention(entity_id=e, source_id=i.source_id, scope=i.scope, kind=i.kind, at=i.at)
                    for i in items
                    if i.source_id is not None
                    for e in i.entity_ids
                ]
            )
            self._introductions(items)
            self._indexes.trim()

    def _introductions(self, items: list[_Pending]) -> None:
        # "I'm Maya Patel" said by user maya: the person named is the speaker, so what is said
        # of either name is said of one entity (the speaker's keeps its id, the name an alias)
        for item in items:
            index = self._indexes.get(item.scope)
            for rel in item.extraction.relations:
                if rel.predicate != NAMED:
                    continue
                speaker = index.entities.get(index.live(rel.subject))
                named = index.entities.get(index.live(rel.object))
                if speaker is None or named is None or speaker.id == named.id:
                    continue
                self._merger.merge(index, speaker, named)

    def _name_vectors(self, items: list[_Pending]) -> dict[str, list[float]]:
        """Vectors of the mentioned names that may resolve by embedding: named things no scope
        index knows by key yet (known names need none)."""
        unknown = {
            m.name: None
            for item in items
            for m in item.extraction.entities
            if embeddable(m) and self._indexes.get(item.scope).exact(m.name) is None
        }
        return embed_names(self._embedder, list(unknown))

    def _resolve(
        self,
        index: NameIndex,
        scope: str,
        mention: EntityMention,
        vector: list[float] | None,
        touched: dict[str, Entity],
        fresh: dict[str, Entity],
        now: datetime,
    ) -> Entity:
        ident = _known(index, mention, vector, touched)
        if ident is None:
            key = normalize(mention.name) or mention.name.lower()
            ident = entity_id(scope, key)
            if ident not in touched and ident not in index.entities:
                entity = Entity(
                    id=ident,
                    scope=scope,
                    name=mention.name,
                    canonical_name=key,
                    type=mention.type,
                    created_at=now,
                    updated_at=now,
                )
                fresh[ident] = entity
                touched[ident] = entity
                index.put(entity)  # later mentions in this batch resolve to it
                if vector is not None:
                    index.put_vector(ident, vector)
        entity = touched.get(ident) or index.entities[ident]
        entity = entity.model_copy(deep=True) if ident not in touched else entity
        _absorb(entity, mention, now)
        touched[ident] = entity
        return entity

    def _write_relations(self, items: list[_Pending], now: datetime) -> None:
        candidates = _candidates(items, now)
        if not candidates:
            return
        subjects = sorted({r.subject_id for r in candidates})
        by_subject: dict[str, list[Relation]] = defaultdict(list)
        for rel in self._store.relations_of(subjects):
            by_subject[rel.subject_id].append(rel)
        inserts: list[Relation] = []
        updates: dict[str, RelationUpdate] = {}
        for rel in sorted(candidates, key=temporal.start_of):
            mine = by_subject[rel.subject_id]
            outcome = temporal.reconcile(mine, rel)
            if outcome.updates:
                mine[:] = temporal.apply_updates(mine, outcome.updates)
                updates.update({u.id: u for u in outcome.updates})
            if outcome.insert is not None:
                mine.append(outcome.insert)
                inserts.append(outcome.insert)
        final = {r.id: r for r in inserts}
        for upd in list(updates.values()):
            if upd.id in final:  # closed within this batch: write it closed, no update needed
                rel = final[upd.id]
                final[upd.id] = rel.model_copy(update={'valid_to': upd.valid_to})
                del updates[upd.id]
        self._store.add_relations(list(final.values()))
        self._store.update_relations(list(updates.values()))


def _known(
    index: NameIndex,
    mention: EntityMention,
    vector: list[float] | None,
    touched: dict[str, Entity],
) -> str | None:
    """The id of the entity `mention` names already: by key, else by a close trigram match,
    else by a close name embedding, of a compatible type."""
    ident = index.exact(mention.name)
    if ident is None:
        for cand, _ in index.fuzzy(mention.name, FUZZY_MERGE, limit=3):
            known = touched.get(cand) or index.entities.get(cand)
            if known is not None and types_compatible(known.type, mention.type):
                ident = cand
                break
    if ident is None and vector is not None and embeddable(mention):
        # "NYC Marathon" / "New York City Marathon": same thing, no shared trigrams
        for cand, _ in index.nearest(vector, EMBED_MERGE, limit=3):
            known = touched.get(cand) or index.entities.get(cand)
            if known is not None and types_compatible(known.type, mention.type):
                ident = cand
                break
    return ident


def _absorb(entity: Entity, mention: EntityMention, now: datetime) -> None:
    """Count `mention` on `entity`: its name as an alias, its type and attributes."""
    entity.mention_count += 1
    entity.updated_at = now
    if mention.name != entity.name and mention.name not in entity.aliases:
        entity.aliases.append(mention.name)
    if (
        entity.type in (EntityType.OTHER, EntityType.CONCEPT)
        and mention.type not in (EntityType.OTHER, EntityType.CONCEPT)
    ) or mention.certain:
        # a type a stated fact implies (an employer is an org) outweighs a name's guess
        entity.type = mention.type
    for key, values in mention.attributes.items():
        entity.attributes[key] = list(dict.fromkeys([*entity.attributes.get(key, []), *values]))


def _linked(extraction: Extraction, ids: dict[str, str]) -> Extraction:
    """`extraction` with each relation's names replaced by entity ids; relations naming an
    unresolved name, or one entity at both ends, dropped."""
    return extraction.model_copy(
        update={
            'relations': [
                r.model_copy(update={'subject': ids[r.subject], 'object': ids[r.object]})
                for r in extraction.relations
                if r.subject in ids and r.object in ids and ids[r.subject] != ids[r.object]
            ]
        }
    )


def _candidates(items: list[_Pending], now: datetime) -> list[Relation]:
    """The facts the batch states, before reconciliation with the graph's."""
    out: list[Relation] = []
    for item in items:
        for rm in item.extraction.relations:
            if rm.predicate == NAMED:
                continue  # an identity, not a fact: the entities merge (_introductions)
            start = aware(rm.valid_from) if rm.valid_from else item.at
            out.append(
                Relation(
                    id=relation_id(item.scope, rm.subject, rm.predicate, rm.object, start),
                    scope=item.scope,
                    subject_id=rm.subject,
                    predicate=rm.predicate,
                    object_id=rm.object,
                    fact=rm.fact,
                    valid_from=start,
                    recorded_at=now,
                    confidence=rm.confidence,
                    source_chunk=item.chunk,
                    source_episode=item.episode,
                )
            )
    return out
