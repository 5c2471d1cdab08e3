"""A durable GraphStore with its relations and mentions mirrored in memory for reads.

Kuzu looks rows up by primary key only for a single `{id: $x}`; `WHERE a.id IN $ids` scans the
whole table (25 ms at 100k entities, 80 ms for a 2-hop walk from 30 seeds). Graph search and the
recall channel walk from a handful of seeds, so they read a compact copy held here instead.
Writes go to the durable store first and reach the copy only once they succeeded, so the copy
never shows what Kuzu does not hold. One process owns the Kuzu folder, so nothing else writes.

Filling the copy reads every mention (1.4 s at 100k chunks, bench/service_bench.py), so a
service can fill it in the background (`background=True`): it answers its first searches while
the copy fills, and any read or write of the copy waits until it is full.
"""

from __future__ import annotations

import heapq
import logging
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Final, Protocol

from core.errors import StoreUnavailable
from kg.models import (
    Entity,
    Mention,
    MentionRow,
    Relation,
    RelationRow,
    RelationUpdate,
    SourceKind,
    from_micros,
    to_micros,
)
from kg.ports import GraphStore

log = logging.getLogger(__name__)


class DumpableGraphStore(GraphStore, Protocol):
    """A GraphStore that can stream everything it holds (to fill the mirror at open)."""

    def iter_entity_ids(self) -> Iterator[str]:
        """Every entity id."""
        ...

    def iter_relation_rows(self) -> Iterator[RelationRow]:
        """Every relation, closed and retracted ones included."""
        ...

    def iter_mention_rows(self) -> Iterator[MentionRow]:
        """Every MENTIONS link."""
        ...


# One MENTIONS link as the mirror keeps it: (at in microseconds, kind, scope). A plain tuple of
# str and int, not a NamedTuple: the cyclic GC stops tracking exact tuples of atoms (and dicts
# and tuples holding only those) after they survive a collection, never NamedTuples or sets.
# A large mirror holds hundreds of thousands of links, which every full collection would walk
# were they tracked: plain tuples keep the GC pauses of searches short (bench/README.md, GC pauses).
_Seen = tuple[int, SourceKind, str]
_AT: Final = 0
_KIND: Final = 1
_SCOPE: Final = 2


class MirroredGraphStore:
    """GraphStore: `durable` holds the truth; relation and mention reads come from memory."""

    def __init__(self, durable: DumpableGraphStore, *, background: bool = False) -> None:
        """Copy `durable`'s relations and mentions; `background=True` returns at once and
        fills the copy on a thread (reads and writes of the copy wait for it)."""
        self._durable = durable
        self._lock = threading.RLock()
        self._entities: set[str] = set()
        self._rels: dict[str, RelationRow] = {}
        self._adjacent: dict[str, list[str]] = {}  # entity id -> relation ids, both directions
        self._mentions: dict[str, dict[str, _Seen]] = {}  # entity id -> source id -> link
        self._sources: dict[str, tuple[str, ...]] = {}  # source id -> entity ids
        self._failed: BaseException | None = None
        self._loader: threading.Thread | None = None
        if not background:
            self._fill()
            return
        holding = threading.Event()
        self._loader = threading.Thread(
            target=self._fill_holding, args=(holding,), name='mnemos-graph-mirror', daemon=True
        )
        self._loader.start()
        # the loader owns the lock before anyone can read a half-filled copy
        holding.wait()

    def _fill_holding(self, holding: threading.Event) -> None:
        with self._lock:
            holding.set()
            try:
                self._fill()
            except Exception as exc:  # reported to every later caller (_ready)
                log.exception('could not fill the graph mirror')
                self._failed = exc

    def _fill(self) -> None:
        # live writes that land in the durable store while this runs either are read here or
        # reach the copy after it (they wait for the lock); each put below is idempotent
        durable = self._durable
        self._entities.update(sys.intern(i) for i in durable.iter_entity_ids())
        for row in durable.iter_relation_rows():
            if row.id not in self._rels:
                self._put_relation(_interned(row))
        # in link-time order, as live writes append them: capped reads take the newest
        for m in sorted(durable.iter_mention_rows(), key=lambda row: row.at):
            self._put_mention(m)

    @contextmanager
    def _ready(self) -> Iterator[None]:
        """The copy's lock, once the copy is full (or an error if it could not be filled)."""
        with self._lock:
            if self._failed is not None:
                raise StoreUnavailable('the graph mirror could not be filled') from self._failed
            yield

    # ---- entities: the durable store answers (the service keeps its own name index) --------

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self._durable.upsert_entities(entities, embeddings)
        with self._ready():
            self._entities.update(sys.intern(e.id) for e in entities)

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        return self._durable.get_entities(ids)

    def list_entities(self, scope: str) -> list[Entity]:
        return self._durable.list_entities(scope)

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        return self._durable.entity_embeddings(scope)

    # ---- relations ---------------------------------------------------------------------------

    def add_relations(self, relations: Sequence[Relation]) -> None:
        self._durable.add_relations(relations)
        with self._ready():
            for rel in relations:
                if rel.id not in self._rels:
                    self._put_relation(_interned(RelationRow.of(rel)))

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        self._durable.update_relations(updates)
        with self._ready():
            for upd in updates:
                rel = self._rels.get(upd.id)
                if rel is None:
                    continue
                if upd.valid_to is not None:
                    rel = rel._replace(valid_to=to_micros(upd.valid_to))
                elif upd.reopen:
                    rel = rel._replace(valid_to=None)
                if upd.expired_at is not None:
                    rel = rel._replace(expired_at=to_micros(upd.expired_at))
                self._rels[upd.id] = rel

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        with self._ready():
            ids = dict.fromkeys(r for e in entity_ids for r in self._adjacent.get(e, ()))
            return [self._rels[r].model() for r in ids]

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        t = to_micros(as_of)
        assert t is not None
        with self._ready():
            seen: dict[str, RelationRow] = {}
            visited = {i for i in seed_ids if i in self._entities}
            frontier = sorted(visited)
            for _ in range(hops):
                found: list[RelationRow] = []
                for node in frontier:
                    for rid in self._adjacent.get(node, ()):
                        rel = self._rels[rid]
                        if rid not in seen and rel.valid_at(t):
                            found.append(rel)
                nxt: set[str] = set()
                for rel in list(dict.fromkeys(found))[:max_edges]:
                    seen[rel.id] = rel
                    nxt.update(e for e in (rel.subject_id, rel.object_id) if e not in visited)
                visited |= nxt
                frontier = sorted(nxt)
                if not frontier:
                    break
            return [r.model() for r in seen.values()]

    # ---- mentions ----------------------------------------------------------------------------

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        self._durable.add_mentions(mentions)
        # as the durable store: the last of a batch wins, a link already stored is kept
        latest = {(m.entity_id, m.source_id, m.kind): m for m in mentions}
        with self._ready():
            for m in latest.values():
                at = to_micros(m.at)
                assert at is not None
                intern = sys.intern
                row = MentionRow(intern(m.entity_id), intern(m.source_id), m.kind, m.scope, at)
                self._put_mention(row)

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        with self._ready():
            found = [
                (seen[_AT], source, entity, seen)
                for entity in dict.fromkeys(entity_ids)
                for source, seen in self._mentions.get(entity, {}).items()
            ]
        best = heapq.nlargest(limit, found, key=lambda f: f[0])
        return [
            Mention.model_construct(
                entity_id=e, source_id=s, scope=seen[_SCOPE], kind=seen[_KIND], at=from_micros(at)
            )
            for at, s, e, seen in best
        ]

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        with self._ready():
            if per_entity is None:
                out = {
                    i: [s for s, ln in self._mentions.get(i, {}).items() if ln[_KIND] == 'chunk']
                    for i in entity_ids
                }
            else:
                # links are kept in the order they were made: the newest are at the end, so a
                # capped read costs `per_entity` steps however many chunks name the entity
                out = {i: self._newest_chunks(i, per_entity) for i in entity_ids}
        return {i: sources for i, sources in out.items() if sources}

    def _newest_chunks(self, entity_id: str, limit: int) -> list[str]:
        found: list[str] = []
        links = self._mentions.get(entity_id, {})
        for source in reversed(links):
            if len(found) >= limit:
                break
            if links[source][_KIND] == 'chunk':
                found.append(source)
        return found

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        with self._ready():
            found = {s: sorted(self._sources.get(s, ())) for s in dict.fromkeys(source_ids)}
        return {source: entities for source, entities in found.items() if entities}

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        named = dict.fromkeys(self._durable.forget_sources(source_ids))
        with self._ready():
            for source in source_ids:
                for entity in self._sources.pop(source, ()):
                    self._mentions.get(entity, {}).pop(source, None)
                    named[entity] = None
        return list(named)

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        self._durable.purge(relation_ids, entity_ids)
        with self._ready():
            touching = [r for e in entity_ids for r in self._adjacent.get(e, ())]
            for rid in dict.fromkeys([*relation_ids, *touching]):
                row = self._rels.pop(rid, None)
                if row is None:
                    continue
                for end in (row.subject_id, row.object_id):
                    links = self._adjacent.get(end)
                    if links is not None and rid in links:
                        links.remove(rid)
            for ident in entity_ids:
                self._entities.discard(ident)
                self._adjacent.pop(ident, None)
                for source in self._mentions.pop(ident, {}):
                    named = self._sources.get(source)
                    if named is not None:
                        self._sources[source] = tuple(e for e in named if e != ident)

    def probe(self) -> None:
        """Raise StoreUnavailable when the copy could not be filled; never waits for a fill
        under way. Entity reads go to the durable store, so they answer while every relation
        and mention read fails: a health check must ask this too."""
        if self._failed is not None:
            raise StoreUnavailable('the graph mirror could not be filled') from self._failed

    def close(self) -> None:
        if self._loader is not None:
            self._loader.join()
        self._durable.close()

    # ---- internals ---------------------------------------------------------------------------

    def _put_relation(self, rel: RelationRow) -> None:
        self._rels[rel.id] = rel
        self._adjacent.setdefault(rel.subject_id, []).append(rel.id)
        if rel.object_id != rel.subject_id:
            self._adjacent.setdefault(rel.object_id, []).append(rel.id)

    def _put_mention(self, m: MentionRow) -> None:
        if m.entity_id not in self._entities:
            return  # the durable store ignores links to unknown entities too
        links = self._mentions.setdefault(m.entity_id, {})
        if m.source_id not in links:
            seen = (m.at, m.kind, sys.intern(m.scope))
            named = self._sources.get(m.source_id, ())
            # a source's links are made at its time in its scope: its entities share one tuple
            # (~190 of the ~650 bytes a chunk with three links held; 1M chunks: ~190 MB)
            first = self._mentions.get(named[0], {}).get(m.source_id) if named else None
            links[m.source_id] = first if first == seen else seen
            if m.entity_id not in named:  # a chunk names a handful of entities
                self._sources[m.source_id] = (*named, m.entity_id)


def _interned(rel: RelationRow) -> RelationRow:
    # ids and predicates repeat across rows: keep one copy of each. A fact's source is a chunk
    # whose id the mentions hold already (~85 bytes a relation; ~540 in all, ad-hoc tracemalloc)
    intern = sys.intern
    return rel._replace(
        scope=intern(rel.scope),
        subject_id=intern(rel.subject_id),
        predicate=intern(rel.predicate),
        object_id=intern(rel.object_id),
        source_chunk=intern(rel.source_chunk) if rel.source_chunk else rel.source_chunk,
        source_episode=intern(rel.source_episode) if rel.source_episode else rel.source_episode,
    )
