"""The store writer: how chunks reach the `memories` collection and how their payloads change.

It embeds (dense and BM25) and upserts chunks, links new memories to their neighbours in write
order (`prev_id`/`next_id`), applies payload changes (pins, tiers, recalls, merges) and deletes,
and holds the per-scope write locks: the dedup layers read then write, and two writers of one id
or entity key must not both see it missing.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime
from typing import Any

from core.clock import Clock, to_epoch
from core.errors import NotFound
from recall.access.recalls import record_recalls
from recall.models import MEMORIES, Chunk
from recall.ports import AccessLog
from recall.schemas import MemoryIn
from recall.tiers import Tier
from recall.write.guards import redact_secret_fields
from vectors.models import VectorPoint
from vectors.ports import Embedder, SparseEncoder, VectorStore

LAST_IN_SCOPE_MAX = 10_000
# the metadata key the pin route sets: a pin the client asked for
PINNED_BY = 'pinned_by'
# writes of one scope serialise on one of these locks (picked by a hash of the scope)
WRITE_STRIPES = 64


class ChunkStore:
    """Upserts, links, payload changes and deletes of `memories`, under per-scope locks."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        clock: Clock,
        access: AccessLog | None = None,
    ) -> None:
        """With an `access` log (embedded mode) recalls are counted there, not in payloads."""
        self._vectors = vectors
        self._embedder = embedder
        self._sparse = sparse
        self._clock = clock
        self._access = access
        self._lock = threading.Lock()
        self._stripes = [threading.Lock() for _ in range(WRITE_STRIPES)]
        # the last memory written in each scope (bounded): the next one links to it as prev_id;
        # after a restart the first write of a scope starts a new thread
        self._last_in_scope: dict[str, str] = {}

    @property
    def embedder(self) -> Embedder:
        """The dense embedder new chunks are embedded with."""
        return self._embedder

    @contextmanager
    def locked(self, scopes: Iterable[str]) -> Iterator[None]:
        """Hold the write locks of these scopes."""
        # the same stripe order for every caller, so two batches never wait on each other
        picked = sorted({zlib.crc32(s.encode('utf-8')) % WRITE_STRIPES for s in scopes})
        with ExitStack() as stack:
            for n in picked:
                stack.enter_context(self._stripes[n])
            yield

    # ---- vectors ------------------------------------------------------------------------------

    def embed_unstored(
        self, items: Sequence[MemoryIn], ids: Sequence[str], skips: Sequence[str | None]
    ) -> dict[str, list[float]]:
        """Vectors, keyed by text, of unskipped texts whose id is not stored yet (a repeat is a
        bump, never embedded); read unlocked: a text stored meanwhile leaves its vector unused."""
        texts: dict[str, str] = {}
        for item, ident, skip in zip(items, ids, skips, strict=True):
            if skip is None:
                texts.setdefault(ident, item.text)
        if not texts:
            return {}
        stored = {p.id for p in self._vectors.retrieve(MEMORIES, list(texts))}
        todo = list(dict.fromkeys(t for i, t in texts.items() if i not in stored))
        return dict(zip(todo, self._embedder.embed(todo), strict=True)) if todo else {}

    def vectors_of(
        self, chunks: Mapping[str, Chunk], prepared: Mapping[str, list[float]]
    ) -> dict[str, list[float]]:
        """The dense vector of each chunk by id, from `prepared` (by text) or embedded now (a
        text `embed_unstored` found stored, deleted since)."""
        texts = [c.text for c in chunks.values()]
        todo = [t for t in dict.fromkeys(texts) if t not in prepared]
        if todo:
            prepared = {**prepared, **dict(zip(todo, self._embedder.embed(todo), strict=True))}
        return {ident: prepared[text] for ident, text in zip(chunks, texts, strict=True)}

    # ---- writes -------------------------------------------------------------------------------

    def store_linked(self, chunks: list[Chunk], dense: Mapping[str, list[float]]) -> None:
        """Upsert new chunks linked in write order: each gets the id of the memory written
        before it in its scope (`prev_id`) and of the one after it (`next_id`, set on the
        earlier memory when the later one is written), so the context channel reads neighbours
        by id. One lock spans link, upsert and the `next_id` updates: a concurrent batch of the
        same scope must not set `next_id` on a memory whose upsert has not landed yet."""
        with self._lock:
            linked: dict[str, Chunk] = {}
            follows: dict[str, dict[str, Any]] = {}
            for chunk in chunks:
                prev = self._last_in_scope.pop(chunk.scope, None)
                linked[chunk.id] = chunk.model_copy(update={'prev_id': prev, 'next_id': None})
                if prev in linked:
                    linked[prev] = linked[prev].model_copy(update={'next_id': chunk.id})
                elif prev is not None:
                    follows[prev] = {'next_id': chunk.id}
                self._last_in_scope[chunk.scope] = chunk.id
                if len(self._last_in_scope) > LAST_IN_SCOPE_MAX:
                    del self._last_in_scope[next(iter(self._last_in_scope))]
            self.upsert(list(linked.values()), dense)
            if follows:
                self._vectors.set_payload(MEMORIES, follows)

    def upsert(self, chunks: Sequence[Chunk], dense: Mapping[str, list[float]] | None) -> None:
        """Upsert chunks as given, embedding those without a vector in `dense`."""
        if not chunks:
            return
        dense = dict(dense or {})
        missing = [c for c in chunks if c.id not in dense]
        if missing:
            vectors = self._embedder.embed([c.text for c in missing])
            dense.update(zip([c.id for c in missing], vectors, strict=True))
        points = [
            VectorPoint(
                id=c.id,
                dense=dense[c.id],
                sparse=self._sparse.encode_document(c.text),
                payload=c.to_payload(),
            )
            for c in chunks
        ]
        self._vectors.upsert(MEMORIES, points)

    def set_payload(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge payload fields into memories (id -> fields) as given."""
        if updates:
            self._vectors.set_payload(MEMORIES, {i: dict(c) for i, c in updates.items()})

    def update(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge payload fields into memories (id -> fields), secrets masked; vectors untouched."""
        self.set_payload({i: redact_secret_fields(dict(c)) for i, c in updates.items()})

    def get(self, ident: str) -> Chunk:
        """The stored chunk; NotFound when there is none."""
        found = self._vectors.retrieve(MEMORIES, [ident])
        if not found:
            raise NotFound('memory', ident)
        return Chunk.from_payload(found[0].payload)

    def delete(self, ids: Sequence[str]) -> None:
        """Delete memories by id."""
        if ids:
            self._vectors.delete(MEMORIES, list(ids))

    def set_tiers(self, tiers: Mapping[str, Tier], now: datetime) -> None:
        """Apply decay tier transitions (memory id -> new tier)."""
        at = to_epoch(now)
        self.set_payload({i: {'tier': Tier(t).value, 'updated_at': at} for i, t in tiers.items()})

    def set_pinned(self, ident: str, pinned: bool) -> Chunk:
        """Pin (Core, never demoted) or unpin (back to working) a chunk. A pin set here is the
        client's (`metadata.pinned_by`): unlike the one capture gives a name by itself, it
        protects the memory from unpinned corrections."""
        with self.locked([self.get(ident).scope]):
            chunk = self.get(ident)
            unpinned = Tier.WORKING if chunk.tier == Tier.CORE else chunk.tier
            tier = Tier.CORE if pinned else unpinned
            now = to_epoch(self._clock.now())
            metadata = {k: v for k, v in chunk.metadata.items() if k != PINNED_BY}
            if pinned:
                metadata[PINNED_BY] = 'client'
            change = {'pinned': pinned, 'tier': tier.value, 'updated_at': now}
            self.set_payload({ident: {**change, 'metadata': metadata}})
        return chunk.model_copy(update={'pinned': pinned, 'tier': tier, 'metadata': metadata})

    def touch(self, ids: Sequence[str], scopes: Iterable[str] | None = None) -> None:
        """Record a recall of these chunks: access count and time (an id given n times counts
        n recalls). `scopes`, the chunks' scopes when the caller knows them, saves a read."""
        if scopes is None:
            found = self._vectors.retrieve(MEMORIES, list(dict.fromkeys(ids)))
            scopes = {str(p.payload.get('scope', '')) for p in found}
        wanted = set(scopes)
        if not wanted:
            return
        # access_count is read then written: under the scopes' write locks, read again
        with self.locked(wanted):
            record_recalls(self._vectors, ids, self._clock.now(), self._access)
