"""KnowledgeGraphService: extraction into the temporal graph, graph search, the recall channel."""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.clock import Clock, aware
from core.errors import NotFound
from kg import temporal
from kg.forget import erase_sources
from kg.models import (
    NAMED,
    Entity,
    EntityDetail,
    EntityMention,
    EntityOut,
    EntityType,
    Extraction,
    KGSearchRequest,
    KGSearchResponse,
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
from kg.ranking import (
    entity_out,
    fact_out,
    matching_entities,
    survivor,
)
from kg.reads import GraphReads
from kg.resolution import (
    EMBED_AMBIGUOUS,
    EMBED_MERGE,
    FUZZY_AMBIGUOUS,
    FUZZY_MERGE,
    MAX_INDEX_ENTITIES,
    NameIndex,
    NameIndexes,
    embeddable,
    normalize,
    types_compatible,
)
from vectors.models import ChunkText, ScoredPoint, SlotEvidence
from vectors.ports import Embedder

log = logging.getLogger(__name__)

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


class KnowledgeGraphService:
    """The L2 semantic memory: writes resolve entities and apply temporal rules; reads rank."""

    def __init__(
        self,
        store: GraphStore,
        extractor: Extractor,
        embedder: Embedder,
        clock: Clock,
        max_index_entities: int = MAX_INDEX_ENTITIES,
    ) -> None:
        self._store = store
        self._extractor = extractor
        self._embedder = embedder
        self._clock = clock
        self._indexes = NameIndexes(self._load_index, max_index_entities)
        # one writer: resolution state and temporal reconciliation must see each other's writes
        self._write_lock = threading.RLock()
        self._reads = GraphReads(store, self._index, embedder, clock)

    # ---- recall.ports.GraphIndex -----------------------------------------------------------

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
            # each Kuzu write call has a fixed cost (statements, a transaction): store a few
            # parts at a time
            if len(group) >= _INGEST_GROUP or done >= len(chunks):
                self._ingest(group)
                out.update((p.source_id, p.entity_ids) for p in group if p.source_id)
                group = []
        return out

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks that mention entities within `hops` of those named in `query`, best first."""
        return self._reads.related_chunks(query, scopes, hops, limit)

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """`kg.reads.GraphReads.slot_evidence`: what the graph knows of the slot a query asks."""
        return self._reads.slot_evidence(query, scopes, user_id)

    def source_entities(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Ids of the entities each chunk/episode mentions; sources naming none left out."""
        return self._store.source_entities(ids)

    def forget_chunks(self, ids: Sequence[str]) -> int:
        """Forget deleted chunks for good: their MENTIONS, the facts only they said (with the
        sentence they were read from, so no entity history repeats a deleted memory) and the
        entities nothing else names; count the facts erased."""
        return self.erase_sources(ids)[0]

    def erase_sources(self, ids: Sequence[str], scope: str | None = None) -> tuple[int, int]:
        """`kg.forget.erase_sources` (with `scope`: its whole graph); (facts, entities) erased."""
        with self._write_lock:
            self._indexes.clear()  # name indexes must not resolve to erased entities
            return erase_sources(self._store, ids, self._clock.now(), scope)

    # ---- other writes ----------------------------------------------------------------------

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

    def merge_duplicates(self, scope: str, entity_ids: Sequence[str]) -> MergeResult:
        """Merge duplicates of the given entities within `scope`; flag ambiguous pairs."""
        result = MergeResult()
        with self._write_lock:
            index = self._index(scope)
            for ident in entity_ids:
                ident = index.live(ident)
                entity = index.entities.get(ident)
                if entity is None:
                    continue
                for other_id, verdict in self._duplicates_of(index, entity):
                    pair = tuple(sorted((ident, other_id)))
                    if verdict == 'ambiguous':
                        if pair not in result.ambiguous:
                            result.ambiguous.append(pair)  # type: ignore[arg-type]
                        continue
                    other = index.entities.get(other_id)
                    if other is None or ident not in index.entities:
                        continue
                    keep, dup = survivor(index.entities[ident], other)
                    self._merge(index, keep, dup)
                    result.merged[dup.id] = keep.id
                    ident = keep.id
        return result

    # ---- reads -----------------------------------------------------------------------------

    def search(self, req: KGSearchRequest, scopes: list[str]) -> KGSearchResponse:
        """`kg.reads.GraphReads.search`: entities, facts valid at the question's time (its slot's
        first), and the paths that connect them."""
        return self._reads.search(req, scopes)

    def probe(self) -> None:
        """Raise when the graph cannot serve reads (its store's own probe, where it has one:
        an in-memory copy that failed to fill)."""
        check = getattr(self._store, 'probe', None)
        if callable(check):
            check()

    def entity(self, entity_id: str, scopes: Sequence[str]) -> EntityDetail:
        """An entity with its aliases, facts valid now and full fact history; NotFound if unseen."""
        found = self._store.get_entities([entity_id])
        if not found or found[0].scope not in scopes:
            raise NotFound('entity', entity_id)
        entity = found[0]
        index = self._index(entity.scope)
        live_id = index.live(entity.id)
        if live_id != entity.id:
            entity = (self._store.get_entities([live_id]) or [entity])[0]
        rels = self._store.relations_of([entity.id])
        others = {r.subject_id for r in rels} | {r.object_id for r in rels}
        names = {e.id: e.name for e in self._store.get_entities(sorted(others))}
        names[entity.id] = entity.name
        now = self._clock.now()
        history = temporal.history(rels)
        return EntityDetail(
            entity=entity_out(entity, 0.0, False),
            current=[fact_out(r, names, now) for r in history if temporal.valid_at(r, now)],
            history=[fact_out(r, names, now) for r in history],
            merged_from=sorted(k for k, v in index.redirect.items() if v == entity.id),
        )

    def entities(self, scope: str, q: str | None, limit: int) -> tuple[list[EntityOut], int]:
        """Live entities of `scope` whose name or an alias contains `q`, most mentioned first;
        the page and the number that matched."""
        found = matching_entities(self._store.list_entities(scope), q)
        return [entity_out(e, 0.0, False) for e in found[:limit]], len(found)

    # ---- internals: write path -------------------------------------------------------------

    def _index(self, scope: str) -> NameIndex:
        return self._indexes.get(scope)

    def _load_index(self, scope: str) -> NameIndex:
        return NameIndex(self._store.list_entities(scope), self._store.entity_embeddings(scope))

    def _ingest(self, items: list[_Pending]) -> None:
        with self._write_lock:
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
                index = self._index(item.scope)
                ids: dict[str, str] = {}
                for mention in item.extraction.entities:
                    vector = names.get(mention.name)
                    entity = self._resolve(index, item.scope, mention, vector, touched, fresh, now)
                    ids[mention.name] = entity.id
                item.entity_ids = list(dict.fromkeys(ids.values()))
                item.extraction = item.extraction.model_copy(
                    update={
                        'relations': [
                            r.model_copy(
                                update={'subject': ids[r.subject], 'object': ids[r.object]}
                            )
                            for r in item.extraction.relations
                            if r.subject in ids
                            and r.object in ids
                            and ids[r.subject] != ids[r.object]
                        ]
                    }
                )
            vectors = {i: names[e.name] for i, e in fresh.items() if e.name in names}
            self._store.upsert_entities(list(touched.values()), vectors)
            for entity in touched.values():
                self._index(entity.scope).put(entity)
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
            index = self._index(item.scope)
            for rel in item.extraction.relations:
                if rel.predicate != NAMED:
                    continue
                speaker = index.entities.get(index.live(rel.subject))
                named = index.entities.get(index.live(rel.object))
                if speaker is None or named is None or speaker.id == named.id:
                    continue
                self._merge(index, speaker, named)

    def _name_vectors(self, items: list[_Pending]) -> dict[str, list[float]]:
        """Vectors of the mentioned names that may resolve by embedding: named things no scope
        index knows by key yet (known names need none)."""
        unknown = {
            m.name: None
            for item in items
            for m in item.extraction.entities
            if embeddable(m) and self._index(item.scope).exact(m.name) is None
        }
        return self._embed_names(list(unknown))

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
        touched[ident] = entity
        return entity

    def _embed_names(self, names: list[str]) -> dict[str, list[float]]:
        if not names:
            return {}
        try:
            vectors = self._embedder.embed(names)
        except Exception:  # names without vectors still match by key and trigram
            log.exception('embedding entity names failed; continuing without vectors')
            return {}
        return {name: list(v) for name, v in zip(names, vectors, strict=True)}

    def _write_relations(self, items: list[_Pending], now: datetime) -> None:
        candidates: list[Relation] = []
        for item in items:
            for rm in item.extraction.relations:
                if rm.predicate == NAMED:
                    continue  # an identity, not a fact: the entities merge (_introductions)
                start = aware(rm.valid_from) if rm.valid_from else item.at
                candidates.append(
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

    def _duplicates_of(self, index: NameIndex, entity: Entity) -> list[tuple[str, str]]:
        out: dict[str, str] = {}
        names = (entity.name, *entity.aliases)
        for name in names:
            for other, score in index.fuzzy(name, FUZZY_AMBIGUOUS, limit=10):
                if other == entity.id:
                    continue
                known = index.entities[other]
                merge = score >= FUZZY_MERGE and types_compatible(known.type, entity.type)
                if merge or other not in out:
                    out[other] = 'merge' if merge else 'ambiguous'
        vector = self._embed_names([entity.name]).get(entity.name)
        if vector is not None:
            for other, sim in index.nearest(vector, EMBED_AMBIGUOUS, limit=10):
                if other == entity.id or out.get(other) == 'merge':
                    continue
                known = index.entities[other]
                merge = sim >= EMBED_MERGE and types_compatible(known.type, entity.type)
                out[other] = 'merge' if merge else 'ambiguous'
        return sorted(out.items())

    def _merge(self, index: NameIndex, keep: Entity, dup: Entity) -> None:
        now = self._clock.now()
        keep = keep.model_copy(deep=True)
        for name in (dup.name, *dup.aliases):
            if name != keep.name and name not in keep.aliases:
                keep.aliases.append(name)
        keep.mention_count += dup.mention_count
        for key, values in dup.attributes.items():
            keep.attributes[key] = list(dict.fromkeys([*keep.attributes.get(key, []), *values]))
        if keep.type in (EntityType.OTHER, EntityType.CONCEPT):
            keep.type = dup.type
        keep.updated_at = now
        gone = dup.model_copy(update={'merged_into': keep.id, 'updated_at': now})
        self._store.upsert_entities([keep, gone])
        index.put(keep)
        index.put(gone)
        moved: list[Relation] = []
        expired: list[RelationUpdate] = []
        for rel in self._store.relations_of([dup.id]):
            if rel.expired_at is not None:
                continue
            subj = keep.id if rel.subject_id == dup.id else rel.subject_id
            obj = keep.id if rel.object_id == dup.id else rel.object_id
            expired.append(RelationUpdate(id=rel.id, subject_id=rel.subject_id, expired_at=now))
            if subj != obj:
                moved.append(
                    rel.model_copy(
                        update={
                            'id': relation_id(rel.scope, subj, rel.predicate, obj, rel.valid_from),
                            'subject_id': subj,
                            'object_id': obj,
                            'recorded_at': now,
                        }
                    )
                )
        self._store.add_relations(moved)
        self._store.update_relations(expired)
        self._store.add_mentions(
            [
                m.model_copy(update={'entity_id': keep.id})
                for m in self._store.mentions([dup.id], 100_000)
            ]
        )
