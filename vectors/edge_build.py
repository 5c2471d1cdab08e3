"""Index builds and compactions of the Qdrant Edge shards: when to build, and putting a built or
rewritten copy of a shard in its place while searches and writes go on."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from core.errors import StoreUnavailable
from vectors import edge_compact
from vectors.edge_shards import EdgeShards
from vectors.edge_translate import index_schemas

log = logging.getLogger(__name__)

# HNSW is built only by optimize(); without it a dense query scans every point of its scope (45
# ms at 100k points, ~1 ms with it). A build costs CPU, so it runs once writes have paused and
# enough unindexed points have piled up: a bulk load pays one build, steady traffic pays none.
# A payload update counts as a write of its points: Edge never edits an indexed segment in
# place, it moves the point (vectors and payload) to the unindexed appendable segment. What one
# build rebuilds is bounded by the segment size (KG_VECTOR_SEGMENT_KB, edge_translate.py).
OPTIMIZE_AFTER_POINTS = 10_000
OPTIMIZE_IDLE_SECONDS = 3.0
# Writes that never pause (a bulk load, or steady traffic with its access bookkeeping) would
# otherwise grow the appendable segment, and with it exact search and the next build, without
# bound: past this many changes the build runs anyway.
OPTIMIZE_MAX_PENDING = 50_000
# An empty shard's folder takes 0.15-0.5 MB on disk (as `du` counts) as Edge creates it, and
# ~200 MB once an index build before 684b67f built it (preallocated index pages and log
# padding; 198 MB measured on a 10k store's `episodes`), which every opening reads back (~1 s
# of a start on 2 cores). Past this size an empty shard is rewritten as a fresh one
# (`repair_empty`); a shard whose points were all deleted may pass it too, and is rewritten the
# same way (a compaction's rewrite, which drops their bytes).
BLOATED_EMPTY_BYTES = 16 << 20


class EdgeBuilds:
    """Builds the shards' indexes once enough points await one (a background thread), and
    rewrites them without their deleted points (`compact`).

    Edge's own optimize holds the GIL of the process that runs it for its whole run, so a build
    runs in a child process on a copy of the shard (edge_compact.build_copy); the built copy,
    or a compaction's rewrite, is a new generation of the shard in its own folder
    (edge_compact.py), opened there, and replaces the shard once the writes that landed
    meanwhile are replayed into it; searches wait only for the swap of the reference.
    """

    def __init__(self, shards: EdgeShards, *, auto_optimize: bool) -> None:
        self._shards = shards
        self._rebuilding = threading.Lock()  # compact or optimize: both replace the shards
        self.pending = edge_compact.read_pending(shards.root)  # unindexed, across restarts
        self._last_write = 0.0
        # deletes per shard, and the count each shard's last rewrite holds: a shard with no
        # delete since its rewrite has no deleted bytes to drop (every shard has them once
        # opened: its deletes before the opening are not known)
        self._deletes: dict[str, int] = {}
        self._rewritten: dict[str, int] = {}
        self._checked: set[str] = set()  # shards `repair_empty` has looked at
        self._stop = threading.Event()
        self._optimizer: threading.Thread | None = None
        if auto_optimize:
            self._optimizer = threading.Thread(
                target=self._optimize_when_idle, name='mnemos-edge-optimize', daemon=True
            )
            self._optimizer.start()

    def changed(self, points: int) -> None:
        """Note `points` written or updated (the caller holds the shards' write lock)."""
        self.pending += points
        self._last_write = time.monotonic()

    def deleted(self, collection: str) -> None:
        """Note a delete in `collection` (the caller holds the shards' write lock)."""
        self._deletes[collection] = self._deletes.get(collection, 0) + 1

    def compact(self) -> int:
        """Rewrite with its live points only every shard that had a delete since its last
        rewrite (every shard, the first time after opening); returns the points kept in the
        shards rewritten."""
        with self._rebuilding:
            names = [
                name
                for name in list(self._shards.open)
                if self._rewritten.get(name) != self._deletes.get(name, 0)
            ]
            return sum(self._replace(name, build=False) for name in names)

    def optimize(self) -> None:
        """Build the index of every shard with points awaiting one, in a child process; with
        none, run Edge's own quick check (merges) in place."""
        with self._rebuilding:
            started, pending = time.monotonic(), self.pending
            if not pending:
                with self._shards.write:
                    for shard in self._shards.open.values():
                        shard.optimize()
                return
            for name in list(self._shards.open):
                # an empty shard has nothing to index, and a built copy of one is ~200 MB of
                # index pages and log padding that Edge reads back from disk at every start
                # (~1 s on the 2-core reference machine; the shard it copies: ~0.1 s)
                if edge_compact.points(self._shards.get(name)):
                    self._replace(name, build=True)
            self.pending = max(0, self.pending - pending)  # writes meanwhile stay pending
        log.info('indexed %d changed points in %.1f s', pending, time.monotonic() - started)

    def repair_empty(self) -> int:
        """Rewrite as a fresh empty generation every shard opened since the last call that
        holds no point but whose folder is bloated (BLOATED_EMPTY_BYTES: an empty shard an
        older build built); returns how many. The rewrite is a compaction's: a crash before its
        commit reopens the old generation, and a write landing meanwhile is replayed into it."""
        repaired = 0
        with self._rebuilding:
            for name in [n for n in list(self._shards.open) if n not in self._checked]:
                self._checked.add(name)
                if self._bloated_empty(name):
                    log.info('rewriting empty vector shard %s (a bloated folder)', name)
                    self._replace(name, build=False)
                    repaired += 1
        return repaired

    def _bloated_empty(self, name: str) -> bool:
        shards = self._shards
        with shards.write:
            shard = shards.open.get(name)
            if shard is None or edge_compact.points(shard):
                return False  # a point written from here on is one the rewrite copies
            path = shards.path(name)  # its generation changes under `_rebuilding` only
        return edge_compact.disk_bytes(path) > BLOATED_EMPTY_BYTES

    def _replace(self, name: str, *, build: bool) -> int:
        """Put a new generation of `name`'s shard in its place: its index built from a copy
        (`build`) or its live points rewritten; writes that land meanwhile are replayed into
        it. It is opened before the swap, so searches wait only for the swap of the reference."""
        shards = self._shards
        spec, number = shards.specs[name], shards.generations[name] + 1
        path, old = edge_compact.generation(shards.root, name, number), shards.path(name)
        with shards.write:
            source = shards.get(name)
            source.flush()
            if build:
                edge_compact.copy_shard(old, path)  # nothing writes while it is copied
            journal = shards.journals[name] = []
            # a delete from here on is replayed into the new shard: its bytes stay there
            deletes = self._deletes.get(name, 0)
        shard: Any = None
        swapped = False
        try:
            if build:
                edge_compact.build_copy(path)
                shard = shards.open_at(path, spec)
            else:
                config = shards.layout.config(spec.dense_dim)
                shard = edge_compact.rewrite(source, config, path, index_schemas(spec))
            replayed = edge_compact.replay(shard, journal, 0)  # most of them, beside searches
            shard.flush()
            with shards.write:
                kept = self._swap(name, source, shard, journal, replayed, number)
                swapped = True  # the new shard is the store's
                if not build:
                    self.pending += kept  # unindexed until the next build
                    self._rewritten[name] = deletes
        finally:
            with shards.write:
                shards.journals.pop(name, None)
            if not swapped:
                if shard is not None:
                    shard.close()
                edge_compact.remove(path)
        source.close()  # no search holds it: they take a shard only under `reads`
        edge_compact.remove(old)
        log.info('%s %s: %d points', 'built' if build else 'compacted', name, kept)
        return kept

    def _swap(
        self, name: str, source: Any, shard: Any, journal: list[Any], replayed: int, number: int
    ) -> int:
        """Replay the last writes into `shard`, make it generation `number` on disk and put it
        in `source`'s place (the caller holds `write`); returns its points."""
        shards = self._shards
        if shards.open.get(name) is not source:  # closed meanwhile: the store is going away
            raise StoreUnavailable(f'vector collection {name!r} closed during its rewrite')
        edge_compact.replay(shard, journal, replayed)
        kept = edge_compact.points(shard)
        edge_compact.commit(shards.root, name, number)  # a reopening opens `shard`'s folder
        with shards.reads.write():  # the entry stays: callers only check it is there
            shards.open[name] = shard
        shards.generations[name] = number
        return kept

    def _optimize_when_idle(self) -> None:
        saved = self.pending
        while not self._stop.wait(1.0):
            try:  # off the request path: a start is healthy before it runs
                self.repair_empty()
            except Exception:
                log.exception('rewriting an empty vector shard failed')
            if self.pending != saved:  # a process killed now still builds the index next time
                saved = edge_compact.save_pending(self._shards.root, self.pending)
            idle = time.monotonic() - self._last_write >= OPTIMIZE_IDLE_SECONDS
            due = self.pending >= (OPTIMIZE_AFTER_POINTS if idle else OPTIMIZE_MAX_PENDING)
            if due:
                try:
                    self.optimize()
                except Exception:
                    log.exception('background optimize failed')

    def stop(self) -> None:
        """Stop the background optimizer and wait for it."""
        self._stop.set()
        if self._optimizer is not None and self._optimizer is not threading.current_thread():
            self._optimizer.join(timeout=5)

    def save_pending(self) -> None:
        """Keep the count of points awaiting a build beside the shards."""
        edge_compact.save_pending(self._shards.root, self.pending)
