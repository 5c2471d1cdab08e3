"""VectorStore on Qdrant Edge: Qdrant's in-process engine, one shard folder per collection."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from core.errors import StoreUnavailable
from core.locks import ReadWriteLock
from vectors import edge_compact
from vectors.edge_reads import PayloadCache, edge_exact, warm_cache
from vectors.edge_translate import (
    ShardLayout,
    decode_payload,
    edge_filter,
    encode_payload,
    filter_key,
    index_schemas,
    matches_nothing,
    same_fields,
)
from vectors.filtering import facet_key, matches
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

log = logging.getLogger(__name__)

# HNSW is built only by optimize(). Without it a dense query scans every point of its scope: 45 ms
# at 100k (bench/service_bench.py). With it, ~1 ms. A build costs CPU (in a child process: see
# `optimize`), so it runs once writes have paused and enough unindexed points have piled up: a bulk
# load pays one build, steady traffic pays none. Edge's default merges every new batch into one
# growing segment and rebuilds it, so each 10k-point build cost more than the last (10 s at 20k,
# 32 s at 100k points, 85 s at 200k) and ingest went quadratic. With `max_segment_kb` (setting
# KG_VECTOR_SEGMENT_KB, default 40 MB ~ 20k chunks) a build rebuilds at most one bounded segment:
# 2.7-8.7 s per 10k up to 100k points, 47 s instead of 202 s to index 100k in 10k steps; dense
# top-50 search was faster too (1.7 vs 3.8 ms over 5 segments; ad-hoc run over LoCoMo turns).
# A payload update counts as a write of its points: Edge never edits an indexed segment in
# place, it moves the point (vectors and payload) to the unindexed appendable segment. The graph
# job used to set `entity_ids` on every chunk it read, and without this count a 100k store went
# back to exact search once extraction caught up (dense 2.3 -> 14.4 ms p50, in-process); access
# bookkeeping, pins and supersession still update payloads.
OPTIMIZE_AFTER_POINTS = 10_000
OPTIMIZE_IDLE_SECONDS = 3.0
# Writes that never pause (a bulk load, or steady traffic with its access bookkeeping) would
# otherwise grow the appendable segment without bound: exact search over all
# of it, then one build of all of it (46 s with the GIL held at 100k points). Past this many
# changes the build runs anyway: a freeze stays near 20 s (a 50k-point build) and exact search
# covers at most ~50k points.
OPTIMIZE_MAX_PENDING = 50_000
# Built filters are kept by content: a search sends the same filter (its scope, trust and
# supersession) to every channel, and the same scope asks again and again. Building one costs
# ~40 us of GIL-held CPU. Under 50 concurrent clients (bench/load_bench.py, A/B alternated) the
# dense and BM25 stages went from 14 to 2.5-4 ms of wall time each, but requests/s did not
# move: the time went to waiting for the GIL elsewhere. Edge only reads a filter, so threads
# can share one. The bound keeps filters with time ranges from piling up.
FILTER_CACHE_SIZE = 1024
# Reading a point's payload out of Edge costs ~10 us of GIL-held time per point whatever the
# number of fields asked for (qdrant-edge-py 0.9: 80 payloads ~1 ms, a payload-less top-50
# query ~0.4 ms), and a search reads ~100 (two channels, the neighbouring turns): about a third
# of a search's GIL-held time. Queries therefore ask Edge for ids and scores only and take the
# payloads of recently read or written points from a bounded LRU (settings
# KG_VECTOR_PAYLOAD_CACHE and KG_VECTOR_PAYLOAD_CACHE_MB; ~0.7 KB a memory, see
# vectors/edge_reads.py). It stays exact because every write goes through this adapter and one
# process owns the folder: a write evicts its ids once Edge has it, then keeps what it wrote.
# Writes keep their payloads because a search reads ~150 payloads, and at 100k chunks those
# that had to come from Edge cost ~8 ms of CPU and ~60 page faults a search once the kernel had
# dropped payload pages a minute unread (bench/README.md, "What a 100k search reads").
PAYLOAD_CACHE_SIZE = 1_000_000
PAYLOAD_CACHE_BYTES = 96 << 20
# After a start the cache is empty and the payload pages are not in the page cache: searches
# on a restarted 100k store read ~60-70 pages each from disk, and go on doing so after every
# minute of idleness, once the kernel has dropped them again. `warm` reads stored payloads
# into the cache a page at a time, only once no payload was read for WARM_IDLE_S: reading
# beside searches (pages of 256, 20 ms apart) took their p50 from 14.6 to 21.6 ms.
WARM_PAGE = 64
WARM_IDLE_S = 0.1

# Thread safety (measured on qdrant-edge-py 0.9.0): `query` releases the GIL while it searches (a
# spinning Python thread kept ~80 % of its speed during 20k-point exact searches), so searches
# from Flask threads overlap inside the engine; turning its payloads into Python objects does not
# (see PAYLOAD_CACHE_SIZE); concurrent readers and writers neither crash nor
# lose points. Reads therefore exclude only the shard swap after an index build (`_reads`,
# `_replace`), not each other or writes. Writes take `_write` so our multi-call steps (open +
# index creation, per-id payload merges, close) stay atomic whether or not a call releases the
# GIL. Edge's own optimize holds the GIL for its whole run (the spinning thread got < 0.1 % of
# its speed during a 10 s build of 30k points; a search waited 4.7 s during a 20k build,
# bench/build_wait_bench.py), so `optimize()` runs it in a child process on a copy of the shard
# (0.12 s longest wait); `flush()` still holds it while it runs.


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
        reopen_after_optimize: bool = True,
        indexing_threshold_kb: int | None = None,
        full_scan_kb: int | None = None,
    ) -> None:
        """`vector_storage='mmap'` keeps dense vectors on disk (paged in when read);
        `quantization='int8'` searches a scalar-quantised copy and rescores with the originals;
        `max_segment_kb` bounds an indexed segment (None: Edge's default, one growing segment);
        at most `payload_cache` payloads in `payload_cache_bytes` are kept (0: none, see
        PAYLOAD_CACHE_SIZE);
        `search_threads` bounds Edge's search pool (None: Edge's default, one per core);
        `reopen_after_optimize` loads the shards again after an index build (see
        `_reopen_shards`); `indexing_threshold_kb` and `full_scan_kb` are Edge's thresholds
        (None: its defaults; a benchmark lowers them to index and walk a small store).
        """
        self._root = root
        self._layout = ShardLayout(
            vector_storage=vector_storage,
            quantization=quantization,
            max_segment_kb=max_segment_kb,
            search_threads=search_threads,
            indexing_threshold_kb=indexing_threshold_kb,
            full_scan_kb=full_scan_kb,
        )
        self._payloads = PayloadCache(payload_cache, payload_cache_bytes)
        self._reads = ReadWriteLock()
        self._reopen = reopen_after_optimize
        self._specs: dict[str, CollectionSpec] = {}
        self._shards: dict[str, Any] = {}
        self._bools: dict[str, frozenset[str]] = {}
        # built Edge filters by content: see FILTER_CACHE_SIZE
        self._filters: dict[tuple[Any, ...], Any] = {}
        self._write = threading.RLock()
        self._journals: dict[str, list[Any]] = {}  # writes during a compaction (`_apply`)
        self._rebuilding = threading.Lock()  # compact or optimize: both replace the shards
        self._locks: dict[str, int] = {}  # each collection's lock file (edge_compact.lock)
        # payload writes begun and finished (each under _write): a search that left out an
        # exclusion knows from them whether a write could have crossed it (query)
        self._writes_begun = self._writes_done = 0
        self._pending = edge_compact.read_pending(root)  # unindexed points, across restarts
        self._last_write = 0.0
        self._last_read = 0.0  # when a search or retrieve last asked for payloads (see `warm`)
        self._stop = threading.Event()
        self._warmers: list[threading.Thread] = []
        self._optimizer: threading.Thread | None = None
        if auto_optimize:
            self._optimizer = threading.Thread(
                target=self._optimize_when_idle, name='mnemos-edge-optimize', daemon=True
            )
            self._optimizer.start()

    def _edge_filter(self, flt: PointFilter) -> Any:
        key = filter_key(flt)
        built = self._filters.get(key)
        if built is None:
            if len(self._filters) >= FILTER_CACHE_SIZE:
                self._filters.clear()  # rare (many scopes or time ranges): start over
            built = self._filters[key] = edge_filter(flt)
        return built

    def _without_vacuous_exclusions(self, shard: Any, flt: PointFilter) -> PointFilter:
        """`flt` without the `none_of` conditions no stored point meets.

        Every search excludes quarantined and superseded memories, and most stores hold none:
        the exclusions still cost a check of each point the search visits (at 100k chunks, in
        process: dense top 50 3.6-3.8 -> 2.7-3.1 ms, BM25 0.68-0.72 -> 0.57-0.58 ms without the
        two, bench/README.md). Counting a value through its in-RAM index takes ~10 us. `query`
        checks its results against the whole filter when a write may have crossed the count.
        """
        if not flt.none_of:
            return flt
        vacuous = [
            key
            for key, values in flt.none_of.items()
            if not shard.count(
                qe.CountRequest(
                    exact=True,
                    filter=self._edge_filter(PointFilter(scopes=None, any_of={key: values})),
                )
            )
        ]
        if not vacuous:
            return flt
        kept = {k: v for k, v in flt.none_of.items() if k not in vacuous}
        return flt.model_copy(update={'none_of': kept})

    def _shard(self, collection: str) -> Any:
        try:
            return self._shards[collection]
        except KeyError:
            raise StoreUnavailable(f'vector collection {collection!r} is not open') from None

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create or open the shard and create its missing payload indexes."""
        with self._write:
            if spec.name in self._shards:
                return
            shard = self._open(spec)
            try:
                existing = set(shard.info().payload_schema)
                for name, schema in index_schemas(spec):
                    if name not in existing:
                        shard.update(qe.UpdateOperation.create_field_index(name, schema))
            except BaseException:
                shard.close()
                raise
            self._shards[spec.name] = shard
            self._specs[spec.name] = spec
            self._bools[spec.name] = frozenset(spec.bool_fields)

    def _open(self, spec: CollectionSpec) -> Any:
        path = self._root / spec.name
        if spec.name not in self._locks:  # held from the first opening until close()
            self._locks[spec.name] = edge_compact.lock(path, self._root)
        return edge_compact.open_shard(path, self._layout.config(spec.dense_dim), self._root)

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points; durable once it returns (WAL)."""
        if not points:
            return
        bools = self._bools.get(collection, frozenset())
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
        with self._write:
            self._writes_begun += 1
            try:
                self._apply(collection, qe.UpdateOperation.upsert_points(edge_points))
            finally:  # also when Edge fails part-way: what it did apply must not read stale
                self._payloads.evict(collection, canonical_ids([p.id for p in points]))
                self._writes_done += 1
            # applied: keep what Edge now holds (writes are serialised, so nothing newer can
            # have landed since the eviction), for payloads Edge gives back exactly as written
            written = {
                canonical: decode_payload(dict(payload), bools)
                for p, payload in zip(points, encoded, strict=True)
                for canonical in canonical_ids([p.id])
                if edge_exact(payload)
            }
            self._payloads.put(collection, written, self._payloads.generation)
            self._pending += len(edge_points)
            self._last_write = time.monotonic()

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top points of one channel, filtered in the shard, best first."""
        self._shard(collection)  # an unopened collection raises, whatever the filter
        if limit <= 0 or matches_nothing(flt):
            return []
        if isinstance(vector, SparseVector):
            if not vector.indices:
                return []
            query_vector: Any = qe.SparseVector(vector.indices, vector.values)
        else:
            query_vector = vector
        return self._search(collection, channel, query_vector, flt, limit, lighten=True)

    def _search(
        self,
        collection: str,
        channel: Channel,
        query_vector: Any,
        flt: PointFilter,
        limit: int,
        *,
        lighten: bool,
    ) -> list[ScoredPoint]:
        """`query` once its vector is Edge's; `lighten` leaves out vacuous exclusions."""
        since = self._payloads.generation
        # noted before the exclusions are counted (see the check below)
        begun, done = self._writes_begun, self._writes_done
        with self._reads.read():
            shard = self._shard(collection)
            searched = self._without_vacuous_exclusions(shard, flt) if lighten else flt
            request = qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(query_vector, using=channel),
                filter=self._edge_filter(searched),
                with_payload=False,  # from the cache, or read by id: see PAYLOAD_CACHE_SIZE
            )
            found = shard.query(request)
        scored = [(str(p.id), float(p.score)) for p in found]
        ids = [i for i, _ in scored]
        if searched is not flt and (begun != done or self._writes_begun != begun):
            # a write was under way or began since the count: it may have given a point the
            # value an exclusion left out, and the cache may not know it yet. Edge's payloads
            # as they are now show it (a write not applied now was not applied to the search
            # either). If one did cross, the search runs again with the whole filter, so the
            # answer still holds `limit` points when the store has them
            payloads = self._fresh_payloads(collection, ids)
            if any(i in payloads and not matches(payloads[i], flt) for i in ids):
                return self._search(collection, channel, query_vector, flt, limit, lighten=False)
            return [
                ScoredPoint.model_construct(id=i, score=score, payload=payloads[i])
                for i, score in scored
                if i in payloads
            ]
        payloads = self._payloads_of(collection, ids)
        # a point written between the search and the payload read may have left the filter:
        # those (all, if the cache cannot tell) are checked again
        changed = self._payloads.changed(collection, ids, since)
        # model_construct: the engine's ids, scores and JSON payloads are already valid, and
        # validating ~150 payload dicts per search cost ~2 ms (bench/stage_bench.py profile)
        return [
            ScoredPoint.model_construct(id=i, score=score, payload=payloads[i])
            for i, score in scored
            if i in payloads
            and (changed is not None and i not in changed or matches(payloads[i], flt))
        ]

    def _payloads_of(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Decoded payloads of these canonical ids (deleted ones left out), each a fresh top-level
        dict: cached ones, then the rest in one read by id."""
        self._last_read = time.monotonic()
        found = self._payloads.get(collection, ids)
        missing = [i for i in ids if i not in found]
        if missing:
            since = self._payloads.generation
            bools = self._bools.get(collection, frozenset())
            with self._reads.read():
                records = self._shard(collection).retrieve(missing, True, False)
            # Edge builds every key string anew: interned, cached payloads share them
            # (4.2 -> 2.4 KB per cached payload, tracemalloc over LoCoMo turns)
            read = {
                str(r.id): decode_payload(
                    {sys.intern(k): v for k, v in (r.payload or {}).items()}, bools
                )
                for r in records
            }
            self._payloads.put(collection, read, since)
            found.update(read)
        # the cache hands out new dicts and keeps its own bytes: callers may change these
        return found

    def _fresh_payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Decoded payloads of these ids read from Edge now, not from the cache."""
        bools = self._bools.get(collection, frozenset())
        with self._reads.read():
            records = self._shard(collection).retrieve(list(ids), True, False)
        return {str(r.id): decode_payload(dict(r.payload or {}), bools) for r in records}

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id in the order asked; missing (or non-UUID) ids left out."""
        self._shard(collection)  # an unopened collection raises, cached or not
        wanted = canonical_ids(ids)
        if not wanted:
            return []
        by_id = self._payloads_of(collection, wanted)
        return [StoredPoint.model_construct(id=i, payload=by_id[i]) for i in wanted if i in by_id]

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge top-level fields into payloads; ids that do not exist are ignored."""
        bools = self._bools.get(collection, frozenset())
        with self._write:
            shard = self._shard(collection)
            for ids, fields in same_fields(updates):
                # by filter, so a point deleted meanwhile is a no-op instead of an error
                # (set_payload by id raises 'No point with id')
                only = qe.Filter(must=[qe.HasIdCondition(set(ids))])
                op = qe.UpdateOperation.set_payload_by_filter(only, encode_payload(fields, bools))
                self._writes_begun += 1
                try:
                    self._apply(collection, op, shard)
                finally:
                    self._payloads.evict(collection, ids)
                    self._writes_done += 1
                self._pending += len(ids)
                self._last_write = time.monotonic()

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id; unknown ids are ignored."""
        wanted: list[Any] = canonical_ids(ids)
        if wanted:
            with self._write:
                try:
                    self._apply(collection, qe.UpdateOperation.delete_points(wanted))
                finally:
                    self._payloads.evict(collection, wanted)

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order and the next page's offset (None at the end)."""
        self._shard(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return [], None
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=self._edge_filter(flt),
            with_payload=True,
            with_vector=False,
        )
        with self._reads.read():
            records, nxt = self._shard(collection).scroll(request)
        bools = self._bools.get(collection, frozenset())
        points = [
            StoredPoint.model_construct(id=str(r.id), payload=decode_payload(r.payload, bools))
            for r in records
        ]
        return points, (str(nxt) if nxt is not None else None)

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of matching points."""
        self._shard(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return 0
        request = qe.CountRequest(exact=True, filter=self._edge_filter(flt))
        with self._reads.read():
            return int(self._shard(collection).count(request))

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Exact counts of each value of an indexed field among matching points."""
        self._shard(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return {}
        bools = self._bools.get(collection, frozenset())
        request = qe.FacetRequest(key=key, limit=limit, exact=True, filter=self._edge_filter(flt))
        as_bool = key in bools
        with self._reads.read():
            hits = self._shard(collection).facet(request).hits
        return {facet_key(bool(h.value) if as_bool else h.value): h.count for h in hits}

    def _apply(self, collection: str, op: Any, shard: Any = None) -> None:
        """Apply a write (the caller holds _write), and note it for a compaction under way."""
        (shard or self._shard(collection)).update(op)
        journal = self._journals.get(collection)
        if journal is not None:
            journal.append(op)

    def compact(self) -> int:
        """Rewrite every shard with its live points only (vectors/edge_compact.py), so that no
        deleted payload stays in a segment or the write-ahead log; returns the points kept.
        Searches and writes go on meanwhile; searches wait only while the new shard loads."""
        with self._rebuilding:
            return sum(self._replace(name, build=False) for name in list(self._shards))

    def optimize(self) -> None:
        """Merge segments and build HNSW after bulk writes, in a child process that owns a copy
        of each shard (Edge's optimize holds the GIL for its whole run: every search here would
        wait for all of it); the built copy replaces the shard as a compaction's rewrite does,
        loaded from its files (mapped, not heap: see edge_compact.build_copy)."""
        with self._rebuilding:
            started, pending = time.monotonic(), self._pending
            if not pending:  # nothing new to index: Edge's own check (merges) is quick
                with self._write:
                    for shard in self._shards.values():
                        shard.optimize()
                return
            for name in list(self._shards):
                self._replace(name, build=True)
            self._pending = max(0, self._pending - pending)  # writes meanwhile stay pending
        log.info('indexed %d changed points in %.1f s', pending, time.monotonic() - started)

    def _replace(self, name: str, *, build: bool) -> int:
        """Put a new shard in `name`'s place: its index built from a copy (`build`) or its live
        points rewritten; writes that land meanwhile are replayed into it."""
        spec, path = self._specs[name], self._root / name
        with self._write:
            source = self._shard(name)
            source.flush()
            if build:
                edge_compact.copy_shard(path)  # nothing writes while it is copied
            journal = self._journals[name] = []
        try:
            if build:
                shard = edge_compact.build_copy(path)
            else:
                config = self._layout.config(spec.dense_dim)
                shard = edge_compact.rewrite(source, config, path, index_schemas(spec))
            with self._write:
                kept = edge_compact.finish(shard, journal, path)
                with self._reads.write():  # the entry stays: callers only check it is there
                    source.close()
                    try:
                        edge_compact.swap_in(path)
                        self._shards[name] = self._open(spec)
                    except BaseException:
                        del self._shards[name]  # reads as not open, as after a failed reopening
                        raise
                if not build:
                    self._pending += kept  # unindexed until the next build
        finally:
            with self._write:
                self._journals.pop(name, None)
        log.info('%s %s: %d points', 'built' if build else 'compacted', name, kept)
        return kept

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
        if self._stop.wait(delay_s):
            return 0
        pages = partial(self.scroll, collection, flt, page)
        read = warm_cache(
            self._payloads, collection, pages, lambda: self._last_read, self._stop, idle_s
        )
        log.info('payload cache warmed with %d %s payloads', read, collection)
        return read

    def warm_in_background(self, collection: str, flt: PointFilter, delay_s: float) -> None:
        """`warm` on a daemon thread that `close` stops."""
        warm = partial(self.warm, collection, flt, delay_s=delay_s)
        thread = threading.Thread(target=warm, name='mnemos-edge-warm', daemon=True)
        self._warmers.append(thread)
        thread.start()

    def _optimize_when_idle(self) -> None:
        saved = self._pending
        while not self._stop.wait(1.0):
            if self._pending != saved:  # a process killed now still builds the index next time
                saved = edge_compact.save_pending(self._root, self._pending)
            idle = time.monotonic() - self._last_write >= OPTIMIZE_IDLE_SECONDS
            due = self._pending >= (OPTIMIZE_AFTER_POINTS if idle else OPTIMIZE_MAX_PENDING)
            if due:
                try:
                    self.optimize()
                except Exception:
                    log.exception('background optimize failed')

    def close(self) -> None:
        """Stop the optimizer, flush and close every shard (idempotent)."""
        self._stop.set()
        if self._optimizer is not None and self._optimizer is not threading.current_thread():
            self._optimizer.join(timeout=5)
        for warmer in self._warmers:
            if warmer is not threading.current_thread():
                warmer.join(timeout=5)
        with self._write:
            shards, self._shards = self._shards, {}
            self._payloads.clear()
            try:
                for shard in shards.values():
                    try:
                        shard.flush()
                    finally:
                        shard.close()
            finally:
                edge_compact.save_pending(self._root, self._pending)
                for fd in self._locks.values():
                    os.close(fd)  # the shards' folders are free for another store
                self._locks.clear()
