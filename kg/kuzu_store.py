"""GraphStore on embedded Kuzu: the database, its connections and locks, transactions.

Every kuzu call lives in this file, so a fork with the same API (PyPI `ladybug`) can replace it.
The Cypher of the store's reads and writes is in `kg/kuzu_reads.py` and `kg/kuzu_writes.py`,
run through this file's connections; reopening and recovery in `kg/kuzu_lifecycle.py`.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu 0.11.3 uses importlib.util without importing it
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

import kuzu
import pyarrow as pa

from core.errors import StoreUnavailable
from core.locks import ReadWriteLock
from kg import kuzu_dump
from kg.kuzu_lifecycle import (
    REOPEN_AFTER_WRITES,
    REOPEN_IDLE_MIN_WRITES,
    REOPEN_IDLE_S,
    REOPEN_MIN_INTERVAL_S,
    closed_cleanly,
    open_recovering,
    reopen_when_idle,
    rewrite,
)
from kg.kuzu_plans import PlanCache
from kg.kuzu_reads import KeyLookups, KuzuReads
from kg.kuzu_rows import SCHEMA
from kg.kuzu_writes import KuzuWrites
from kg.models import Entity, Mention, MentionRow, Relation, RelationRow, RelationUpdate

log = logging.getLogger(__name__)

_PROBE = 'import sys, kuzu; kuzu.Database(sys.argv[1], buffer_pool_size=int(sys.argv[2])).close()'


def _prepare(conn: kuzu.Connection, query: str, params: dict[str, Any]) -> kuzu.PreparedStatement:
    plan = kuzu.PreparedStatement(conn, query, params)
    if not plan.is_success():  # a failed plan is not kept: its error, as `execute` gives it
        raise RuntimeError(plan.get_error_message())
    return plan


class KuzuGraphStore:
    """GraphStore on one Kuzu database folder; one connection per thread, one writer at a time."""

    def __init__(
        self,
        path: Path,
        buffer_pool_bytes: int = 256 * 1024 * 1024,
        reopen_after_writes: int = REOPEN_AFTER_WRITES,
        reopen_min_interval_s: float = REOPEN_MIN_INTERVAL_S,
        reopen_idle_s: float = REOPEN_IDLE_S,
        scans: bool = True,
    ) -> None:
        """`buffer_pool_bytes` bounds Kuzu's page cache (its default: 80 % of RAM); the database
        is opened again after `reopen_after_writes` write calls (0: never) once at least
        `reopen_min_interval_s` passed, and after `reopen_idle_s` without writes (0: not; see
        REOPEN_*); `scans=False` runs one indexed statement per key at any size (kuzu_rows.py)."""
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._pool_bytes = buffer_pool_bytes
        self._reopen_after = reopen_after_writes
        self._reopen_interval = reopen_min_interval_s
        self._db = self._open()
        self._opened_at = time.monotonic()
        # connections of the open database, closed with it; a thread whose connection belongs
        # to an earlier opening (`generation`) makes a new one. Weak: a finished thread's
        # connection goes with its thread-local, as it did before reopening existed
        self._conns: weakref.WeakSet[kuzu.Connection] = weakref.WeakSet()
        # statements planned once per connection, emptied before a reopening closes them
        self._plans = PlanCache(_prepare)
        self._generation = 0
        self._writes = 0
        self._last_write = time.monotonic()
        self._local = threading.local()
        # Kuzu allows one write transaction at a time, and a COPY's checkpoint times out while
        # another thread's read transaction is open: writers therefore exclude readers
        self._rw = ReadWriteLock()
        self._closed = False
        keys = KeyLookups(self._rows, scans)
        self._reader = KuzuReads(self._rows, keys)
        self._writer = KuzuWrites(self._rows, self._write, self._writing, self._transaction, keys)
        with self._writing():
            for ddl in SCHEMA:
                self._conn().execute(ddl)
        self._stop = threading.Event()
        self._idle_s = reopen_idle_s
        if reopen_idle_s > 0 and reopen_after_writes:
            # weak: a store nobody closed can still be collected, and its thread then ends
            watch = (weakref.WeakMethod(self._reopen_if_quiet), self._stop, reopen_idle_s)
            threading.Thread(target=reopen_when_idle, args=watch, daemon=True).start()

    # ---- plumbing ------------------------------------------------------------------------

    def _open(self) -> kuzu.Database:
        path, pool = str(self._path), self._pool_bytes  # the probe: kg/kuzu_lifecycle.py
        probe = lambda p: [sys.executable, '-c', _PROBE, str(p), str(pool)]  # noqa: E731
        return open_recovering(
            self._path, lambda: kuzu.Database(path, buffer_pool_size=pool), probe
        )

    def _conn(self) -> kuzu.Connection:
        if self._closed:
            raise StoreUnavailable('the graph store is closed')
        conn = getattr(self._local, 'conn', None)
        if conn is None or getattr(self._local, 'generation', -1) != self._generation:
            conn = kuzu.Connection(self._db)
            self._local.conn, self._local.generation = conn, self._generation
            self._conns.add(conn)
        return conn

    @contextmanager
    def _writing(self) -> Iterator[None]:
        with self._rw.write():
            self._local.writing = True
            try:
                yield
            finally:
                self._local.writing = False
            self._writes += 1
            self._last_write = time.monotonic()
            if (
                self._reopen_after
                and self._writes >= self._reopen_after
                and time.monotonic() - self._opened_at >= self._reopen_interval
            ):
                self._reopen()

    def _reopen_if_quiet(self) -> bool:
        """Reopen once writes have been quiet (REOPEN_IDLE_S); False when it is closed."""
        if self._writes < REOPEN_IDLE_MIN_WRITES:
            return not self._closed
        with self._rw.write():
            quiet = time.monotonic() - self._last_write >= self._idle_s
            if quiet and not self._closed and self._writes >= REOPEN_IDLE_MIN_WRITES:
                try:
                    self._reopen()
                except Exception:  # the store now says it is closed to every caller
                    log.exception('reopening the graph after writes went quiet failed')
            return not self._closed

    def compact(self) -> None:
        """Rewrite the database file with the rows it holds, so that deleted ones leave the disk
        (kg/kuzu_lifecycle.rewrite); readers and writers wait meanwhile."""
        with self._rw.write():
            self._reopen(lambda: rewrite(self._path, self._pool_bytes))

    def _reopen(self, between: Callable[[], None] | None = None) -> None:
        """Close the database and its connections, run `between`, open it again (the caller
        holds the write lock). What the opening recovers from: kg/kuzu_lifecycle.py."""
        self._close_database()
        if between is not None:
            between()
        self._generation += 1
        self._writes = 0
        try:
            self._db = self._open()
            self._opened_at = time.monotonic()
        except BaseException:
            self._closed = True  # every later call says so instead of using a closed database
            raise

    def _close_database(self) -> None:
        # planned statements before their connections, and those before their database
        self._plans.clear()
        for conn in list(self._conns):
            conn.close()
        self._conns = weakref.WeakSet()
        self._db.close()
        closed_cleanly(self._path)

    def _rows(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        if getattr(self._local, 'writing', False):
            return self._fetch(query, params)
        with self._rw.read():
            return self._fetch(query, params)

    def _execute(self, query: str, params: dict[str, Any] | None) -> Any:
        return self._plans.execute(self._conn(), query, params)

    def _fetch(self, query: str, params: dict[str, Any] | None) -> list[list[Any]]:
        result = self._execute(query, params)
        assert not isinstance(result, list)
        try:
            return [list(row) for row in result.get_all()]
        finally:
            result.close()  # an open result keeps its read transaction alive

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Statements inside commit together or not at all (one row per statement is many)."""
        self._write('BEGIN TRANSACTION')
        try:
            yield
        except BaseException:
            with suppress(RuntimeError):  # a failed statement (a full pool) ended it already
                self._write('ROLLBACK')
            raise
        self._write('COMMIT')

    def _write(self, query: str, params: dict[str, Any] | None = None) -> None:
        result = self._execute(query, params)
        for r in result if isinstance(result, list) else [result]:
            r.close()

    # ---- reads and writes (kg/kuzu_reads.py, kg/kuzu_writes.py) -----------------------------

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self._writer.upsert_entities(entities, embeddings)

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        return self._reader.get_entities(ids)

    def list_entities(self, scope: str) -> list[Entity]:
        return self._reader.list_entities(scope)

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        return self._reader.entity_embeddings(scope)

    def add_relations(self, relations: Sequence[Relation]) -> None:
        self._writer.add_relations(relations)

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        self._writer.update_relations(updates)

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        return self._reader.relations_of(entity_ids)

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        return self._reader.neighbourhood(seed_ids, hops, as_of, max_edges)

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        self._writer.add_mentions(mentions)

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        return self._reader.mentions(entity_ids, limit)

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        return self._reader.chunk_mentions(entity_ids, per_entity)

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._reader.source_entities(source_ids)

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        return self._writer.forget_sources(source_ids)

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        self._writer.purge(relation_ids, entity_ids)

    # ---- full dumps (to fill an in-memory mirror) -------------------------------------------

    def iter_entity_ids(self) -> Iterator[str]:
        with self._rw.read():
            yield from kuzu_dump.entity_ids(self._page)

    def iter_relation_rows(self) -> Iterator[RelationRow]:
        with self._rw.read():
            yield from kuzu_dump.relation_rows(self._page)

    def iter_mention_rows(self) -> Iterator[MentionRow]:
        with self._rw.read():
            yield from kuzu_dump.mention_rows(self._page)

    def _page(self, query: str, params: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
        # the caller holds the read lock (kg/kuzu_dump.py). Arrow columns, timestamps as
        # integer microseconds: 5x faster than rows of datetimes
        result = self._conn().execute(query, params)
        assert not isinstance(result, list)
        try:
            table = result.get_as_arrow(chunk_size=100_000)
        finally:
            result.close()
        for batch in table.to_batches(max_chunksize=100_000):
            columns = [
                (col.cast(pa.int64()) if pa.types.is_timestamp(col.type) else col).to_pylist()
                for col in batch.columns
            ]
            yield from zip(*columns, strict=True)

    def close(self) -> None:
        self._stop.set()
        with self._rw.write():
            if not self._closed:
                self._closed = True
                self._close_database()
