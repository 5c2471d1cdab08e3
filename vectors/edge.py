"""VectorStore on Qdrant Edge: Qdrant's in-process engine, one shard folder per collection.

The adapter is four parts: `EdgeShards` (vectors/edge_shards.py: the open shards and the locks
around them), this class (the port, and the write path with its payload cache bookkeeping),
`EdgeSearch` (vectors/edge_search.py: every read) and `EdgeBuilds` (vectors/edge_build.py:
index builds and compactions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from vectors.edge_build import EdgeBuilds
from vectors.edge_reads import PayloadCache, edge_exact
from vectors.edge_search import WARM_IDLE_S, WARM_PAGE, EdgeSearch
from vectors.edge_shards import EdgeShards
from vectors.edge_translate import ShardLayout, decode_payload, encode_payload, same_fields
from vectors.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    VectorPoint,
    canonical_ids,
)

# Reading a point's payload out of Edge holds the GIL (~10 us a point, whatever the fields asked
# for) and a search reads ~150 (two channels and the neighbouring turns), while Edge's search
# itself releases it. Queries therefore ask Edge for ids and scores only and take the payloads
# of recently read or written points from a bounded LRU (KG_VECTOR_PAYLOAD_CACHE and
# KG_VECTOR_PAYLOAD_CACHE_MB; ~0.7 KB a memory, vectors/edge_reads.py). It stays exact because
# every write goes through this adapter and one process owns the folder: a write evicts its ids
# once Edge has it, then keeps what it wrote, so that searches seldom read payload pages from
# disk after the kernel has dropped them.
PAYLOAD_CACHE_SIZE = 1_000_000
PAYLOAD_CACHE_BYTES = 96 << 20


class EdgeVectorStore:
    """VectorStore on Qdrant Edge shards under `root`; one process owns the folder."""

    def __init__(
        self,
        root: Path,
        *,
        auto_optimize: bool = True,
        vector_storage: str = 'ram',
        quantization: str = 'none',
        max_segment_kb: int | None = None,
        payload_cache: int = PAYLOAD_CACHE_SIZE,
        payload_cache_bytes: int = PAYLOAD_CACHE_BYTES,
        search_threads: int | None = 1,
        indexing_threshold_kb: int | None = None,
        full_scan_kb: int | None = None,
    ) -> None:
        """`vector_storage='mmap'` keeps dense vectors on disk (paged in when read);
        `quantization='int8'` searches a scalar-quantised copy and rescores with the originals;
        `max_segment_kb` bounds an indexed segment (None: Edge's default, one growing segment);
        at most `payload_cache` payloads in `payload_cache_bytes` are kept (0: none, see
        PAYLOAD_CACHE_SIZE);
        `search_threads` bounds Edge's search pool (None: Edge's default, one per core);
        `indexing_threshold_kb` and `full_scan_kb` are Edge's thresholds (None: its defaults; a
        benchmark lowers them to index and walk a small store).
        """
        layout = ShardLayout(
            vector_storage=vector_storage,
            quantization=quantization,
            max_segment_kb=max_segment_kb,
            search_threads=search_threads,
            indexing_threshold_kb=indexing_threshold_kb,
            full_scan_kb=full_scan_kb,
        )
        self._shards = EdgeShards(root, layout)
        self._payloads = PayloadCache(payload_cache, payload_cache_bytes)
        self._reader = EdgeSearch(self._shards, self._payloads)
        self._builds = EdgeBuilds(self._shards, auto_optimize=auto_optimize)

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create or open the shard and create its missing payload indexes."""
        self._shards.ensure(spec)

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points; durable once it returns (WAL)."""
        if not points:
            return
        bools = self._shards.bools(collection)
        encoded = [encode_payload(p.payload, bools) for p in points]
        edge_points = [
            qe.Point(
                id=p.id,
                vector={
                    'dense': p.dense,
                    'bm25': qe.SparseVector(p.sparse.indices, p.sparse.values),
                },
                payload=payload,
            )
            for p, payload in zip(points, encoded, strict=True)
        ]
        shards = self._shards
        with shards.write:
            shards.writes_begun += 1
            try:
                shards.apply(collection, qe.UpdateOperation.upsert_points(edge_points))
            finally:  # also when Edge fails part-way: what it did apply must not read stale
                self._payloads.evict(collection, canonical_ids([p.id for p in points]))
                shards.writes_done += 1
            # applied: keep what Edge now holds (writes are serialised, so nothing newer can
            # have landed since the eviction), for payloads Edge gives back exactly as written
            written = {
                canonical: decode_payload(dict(payload), bools)
                for p, payload in zip(points, encoded, strict=True)
                for canonical in canonical_ids([p.id])
                if edge_exact(payload)
            }
            self._payloads.put(collection, written, self._payloads.generation)
            self._builds.changed(len(edge_points))

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top points of one channel, filtered in the shard, best first."""
        return self._reader.query(collection, channel, vector, flt, limit)

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id in the order asked; missing (or non-UUID) ids left out."""
        return self._reader.retrieve(collection, canonical_ids(ids))

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge top-level fields into payloads; ids that do not exist are ignored."""
        bools = self._shards.bools(collection)
        shards = self._shards
        with shards.write:
            shard = shards.get(collection)
            for ids, fields in same_fields(updates):
                # by filter, so a point deleted meanwhile is a no-op instead of an error
                # (set_payload by id raises 'No point with id')
                only = qe.Filter(must=[qe.HasIdCondition(set(ids))])
                op = qe.UpdateOperation.set_payload_by_filter(only, encode_payload(fields, bools))
                shards.writes_begun += 1
                try:
                    shards.apply(collection, op, shard)
                finally:
                    self._payloads.evict(collection, ids)
                    shards.writes_done += 1
                self._builds.changed(len(ids))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id; unknown ids are ignored."""
        wanted: list[Any] = canonical_ids(ids)
        if wanted:
            with self._shards.write:
                try:
                    self._shards.apply(collection, qe.UpdateOperation.delete_points(wanted))
                finally:
                    self._payloads.evict(collection, wanted)
                    self._builds.deleted(collection)

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order and the next page's offset (None at the end)."""
        return self._reader.scroll(collection, flt, limit, offset)

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of matching points."""
        return self._reader.count(collection, flt)

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Exact counts of each value of an indexed field among matching points."""
        return self._reader.facet(collection, key, flt, limit)

    def compact(self) -> int:
        """Rewrite every shard with a delete since its last rewrite with its live points only
        (vectors/edge_compact.py), so that no deleted payload stays in a segment or the
        write-ahead log; returns the points kept in those. Searches and writes go on meanwhile;
        searches wait only for the swap of the new shard's reference."""
        return self._builds.compact()

    def optimize(self) -> None:
        """Merge segments and build HNSW after bulk writes, in a child process that owns a copy
        of each shard (Edge's optimize holds the GIL for its whole run: every search here would
        wait for all of it); the built copy replaces the shard as a compaction's rewrite does:
        opened from its own folder (segments mapped from their files, not kept in the heap)
        before searches wait for the swap of the reference."""
        self._builds.optimize()

    def warm(
        self,
        collection: str,
        flt: PointFilter,
        *,
        delay_s: float = 0.0,
        page: int = WARM_PAGE,
        idle_s: float = WARM_IDLE_S,
    ) -> int:
        """Read the payloads of `collection`'s points matching `flt` into the payload cache,
        a page at a time whenever no payload was read for `idle_s`, until the cache is full,
        every point was read or the store closes; returns how many points were read. Payloads
        already cached are never dropped for these, and a write landing meanwhile wins (the
        cache's generation check)."""
        return self._reader.warm(collection, flt, delay_s=delay_s, page=page, idle_s=idle_s)

    def warm_in_background(self, collection: str, flt: PointFilter, delay_s: float) -> None:
        """`warm` on a daemon thread that `close` stops."""
        self._reader.warm_in_background(collection, flt, delay_s)

    def close(self) -> None:
        """Stop the optimizer and the warmers, flush and close every shard (idempotent)."""
        self._builds.stop()
        self._reader.stop()
        with self._shards.write:
            self._payloads.clear()
            try:
                self._shards.close()
            finally:
                self._builds.save_pending()
                self._shards.release()  # the shards' folders are free for another store
