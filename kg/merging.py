"""Entity merging: duplicates found by name, trigram and embedding, folded into one survivor.

A merge keeps the survivor's id, takes the duplicate's names as aliases, moves the duplicate's
live facts and mentions onto the survivor and marks the duplicate `merged_into` it, so name
indexes redirect its id. Callers hold the graph writer's lock: a merge reads and writes one
scope's entities and facts as a unit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from core.clock import Clock
from kg.models import Entity, EntityType, MergeResult, Relation, RelationUpdate, relation_id
from kg.ports import GraphStore
from kg.ranking import survivor
from kg.resolution import (
    EMBED_AMBIGUOUS,
    EMBED_MERGE,
    FUZZY_AMBIGUOUS,
    FUZZY_MERGE,
    NameIndex,
    types_compatible,
)
from vectors.ports import Embedder

log = logging.getLogger(__name__)


def embed_names(embedder: Embedder, names: list[str]) -> dict[str, list[float]]:
    """Each name's vector; none at all when the embedder fails (names still match by key and
    trigram)."""
    if not names:
        return {}
    try:
        vectors = embedder.embed(names)
    except Exception:  # names without vectors still match by key and trigram
        log.exception('embedding entity names failed; continuing without vectors')
        return {}
    return {name: list(v) for name, v in zip(names, vectors, strict=True)}


class EntityMerger:
    """Finds and merges duplicate entities of one scope's name index."""

    def __init__(self, store: GraphStore, embedder: Embedder, clock: Clock) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock

    def merge_duplicates(self, index: NameIndex, entity_ids: Sequence[str]) -> MergeResult:
        """Merge duplicates of the given entities within the index's scope; flag ambiguous
        pairs."""
        result = MergeResult()
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
                self.merge(index, keep, dup)
                result.merged[dup.id] = keep.id
                ident = keep.id
        return result

    def merge(self, index: NameIndex, keep: Entity, dup: Entity) -> None:
        """Fold `dup` into `keep`: names, counts and attributes, then facts and mentions."""
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
        self._move_facts(keep, dup, now)
        self._store.add_mentions(
            [
                m.model_copy(update={'entity_id': keep.id})
                for m in self._store.mentions([dup.id], 100_000)
            ]
        )

    def _move_facts(self, keep: Entity, dup: Entity, now: datetime) -> None:
        """Each live fact of `dup` expired and written again with `keep` in its place (a fact
        of the two with each other is dropped)."""
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
        vector = embed_names(self._embedder, [entity.name]).get(entity.name)
        if vector is not None:
            for other, sim in index.nearest(vector, EMBED_AMBIGUOUS, limit=10):
                if other == entity.id or out.get(other) == 'merge':
                    continue
                known = index.entities[other]
                merge = sim >= EMBED_MERGE and types_compatible(known.type, entity.type)
                out[other] = 'merge' if merge else 'ambiguous'
        return sorted(out.items())
