"""GraphStore on embedded Kuzu: schema DDL, parameterised Cypher, batches in transactions.

Every kuzu call lives in this file, so a fork with the same API (PyPI `ladybug`) can replace it.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu 0.11.3 uses importlib.util without importing it
import logging
import re
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
from kg.kuzu_rows import (
    CREATE_ENTITIES,
    CREATE_RELATION,
    CREATE_RELATIONS,
    CREATE_SOURCES,
    DELETE_MS_PER_KEY,
    ENTITY_COLS,
    REL_COLS,
    SCHEMA,
    SMALL_BATCH,
    SOURCE_TABLES,
    UNWIND_LINK_MS_PER_ROW,
    UNWIND_SET_MS_PER_ROW,
    WITH_EMBEDDING,
    entity_from_row,
    entity_props,
    entity_row,
    mention_from_row,
    naive,
    relation_props,
    scan_cheaper,
    unique_relations,
)
from kg.models import Entity, Mention, MentionRow, Relation, RelationRow, RelationUpdate

log = logging.getLogger(__name__)

# Kuzu TIMESTAMP is zone-less: we store naive UTC and re-attach UTC on the way out.
_RETURN_ENTITY = ', '.join(f'e.{c}' for c in ENTITY_COLS)
_RETURN_REL = 'a.id, b.id, ' + ', '.join(f'r.{c}' for c in REL_COLS)
_VALID_AT = (
    'r.expired_at IS NULL AND (r.valid_from IS NULL OR r.valid_from <= $t) '
    'AND (r.valid_to IS NULL OR r.valid_to > $t)'
)
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
        self._scans = scans
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

    # ---- entities ------------------------------------------------------------------------

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        latest = {e.id: e for e in entities}  # the last version of an id in a batch wins
        vectors = dict(embeddings or {})
        if not latest and not vectors:
            return
        with self._writing():
            stored = self._existing('Entity', sorted(latest.keys() | vectors.keys()))
            fresh = [e for i, e in latest.items() if i not in stored]
            # one UNWIND per kind of row at every size: creating nodes matches nothing, so it
            # needs no lookup per row (kg/kuzu_rows.py says why it is never COPY)
            with self._transaction():
                for key in (WITH_EMBEDDING, ''):
                    rows = [
                        entity_props(e, vectors.get(e.id))
                        for e in fresh
                        if (e.id in vectors) == bool(key)
                    ]
                    if rows:
                        self._write(CREATE_ENTITIES.format(embedding=key), {'rows': rows})
            changed = [entity_row(e) for i, e in latest.items() if i in stored]
            self._each_or_unwind(
                'MATCH (e:Entity {id: r.id}) SET e.name = r.name, '
                'e.canonical_name = r.canonical_name, e.type = r.type, e.aliases = r.aliases, '
                'e.summary = r.summary, e.mention_count = r.mention_count, '
                'e.attributes = r.attributes, e.updated_at = r.updated_at, '
                "e.merged_into = CASE WHEN r.merged_into = '' THEN NULL "
                'ELSE r.merged_into END',
                changed,
            )
            fresh_ids = {e.id for e in fresh}
            revectored = [
                {'id': i, 'v': [float(x) for x in v]}
                for i, v in vectors.items()
                if i not in fresh_ids and (i in stored)
            ]
            self._each_or_unwind('MATCH (e:Entity {id: r.id}) SET e.embedding = r.v', revectored)

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        if not ids:
            return []
        rows = self._by_keys(
            ('Entity', 0.5),
            list(dict.fromkeys(ids)),
            f'MATCH (e:Entity) WHERE e.id IN $keys RETURN {_RETURN_ENTITY}',
            f'MATCH (e:Entity {{id: $key}}) RETURN {_RETURN_ENTITY}',
        )
        found = {r[0]: entity_from_row(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def list_entities(self, scope: str) -> list[Entity]:
        query = f'MATCH (e:Entity) WHERE e.scope = $scope RETURN {_RETURN_ENTITY}'
        return [entity_from_row(r) for r in self._rows(query, {'scope': scope})]

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        query = 'MATCH (e:Entity) WHERE e.scope = $scope AND e.embedding IS NOT NULL RETURN '
        rows = self._rows(query + 'e.id, e.embedding', {'scope': scope})
        return {r[0]: list(r[1]) for r in rows}

    # ---- relations -----------------------------------------------------------------------

    def add_relations(self, relations: Sequence[Relation]) -> None:
        unique = list({r.id: r for r in relations}.values())
        if not unique:
            return
        with self._writing():
            if self._scan_cheaper('Entity', 0.57, len(unique)):
                rows = self._rows(
                    'MATCH (a:Entity)-[r:RELATES]->(:Entity) WHERE a.id IN $keys AND r.id IN $ids '
                    'RETURN r.id',
                    {'keys': sorted({r.subject_id for r in unique}), 'ids': [r.id for r in unique]},
                )
            else:  # from the subject's index entry; scalars only, so its plan is kept
                one = (
                    'MATCH (a:Entity {id: $a})-[r:RELATES]->(:Entity) WHERE r.id = $id RETURN r.id'
                )
                rows = [x for r in unique for x in self._rows(one, {'a': r.subject_id, 'id': r.id})]
            stored = {r[0] for r in rows}
            fresh = [r for r in unique if r.id not in stored]
            if fresh:
                self._create_relations(fresh)

    def _create_relations(self, fresh: list[Relation]) -> None:
        rows = [relation_props(r) for r in fresh]
        with self._transaction():
            if self._scan_cheaper('Entity', 0.59, len(rows), UNWIND_LINK_MS_PER_ROW):
                created = len(self._rows(CREATE_RELATIONS, {'rows': rows}))
            else:
                created = sum(len(self._rows(CREATE_RELATION, row)) for row in rows)
            if created != len(rows):  # as COPY did: a relation needs both its ends stored
                raise ValueError('a relation endpoint entity is not stored')

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        closes = [
            {'s': u.subject_id, 'id': u.id, 'v': naive(u.valid_to)}
            for u in updates
            if u.valid_to is not None
        ]
        expiries = [
            {'s': u.subject_id, 'id': u.id, 'v': naive(u.expired_at)}
            for u in updates
            if u.expired_at is not None
        ]
        with self._writing():
            for field, rows in (('valid_to', closes), ('expired_at', expiries)):
                # MATCH from the indexed subject: rel properties have no index of their own
                self._each_or_unwind(
                    'MATCH (a:Entity {id: r.s})-[x:RELATES]->(:Entity) '
                    f'WHERE x.id = r.id SET x.{field} = r.v',
                    rows,
                )

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        if not entity_ids:
            return []
        rows = self._rows(
            f'MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids RETURN {_RETURN_REL} '
            f'UNION MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE b.id IN $ids '
            f'RETURN {_RETURN_REL}',
            {'ids': list(entity_ids)},
        )
        return unique_relations(rows)

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        seen: dict[str, Relation] = {}
        visited = set(seed_ids)
        frontier = sorted(visited)
        t = naive(as_of)
        for _ in range(hops):
            if not frontier:
                break
            rows = self._rows(
                f'MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids AND {_VALID_AT} '
                f'RETURN {_RETURN_REL} LIMIT $n '
                f'UNION MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE b.id IN $ids AND '
                f'{_VALID_AT} RETURN {_RETURN_REL} LIMIT $n',
                {'ids': frontier, 't': t, 'n': max_edges},
            )
            nxt: set[str] = set()
            for rel in unique_relations(rows)[:max_edges]:
                if rel.id in seen:
                    continue
                seen[rel.id] = rel
                nxt.update(e for e in (rel.subject_id, rel.object_id) if e not in visited)
            visited |= nxt
            frontier = sorted(nxt)
        return list(seen.values())

    # ---- mentions ------------------------------------------------------------------------

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        unique = list({(m.entity_id, m.source_id, m.kind): m for m in mentions}.values())
        if not unique:
            return
        with self._writing():
            for kind, table in SOURCE_TABLES.items():
                batch = [m for m in unique if m.kind == kind]
                if batch:
                    self._add_mentions(table, batch)

    def _add_mentions(self, table: str, batch: list[Mention]) -> None:
        source_ids = sorted({m.source_id for m in batch})
        stored = self._existing(table, source_ids)
        entities = self._existing('Entity', sorted({m.entity_id for m in batch}))
        known = {(m.entity_id, m.source_id): m for m in batch if m.entity_id in entities}
        links: dict[str, list[dict[str, Any]]] = {s: [] for s in source_ids if s not in stored}
        for (entity, source), m in known.items():
            if source in links:
                links[source].append({'e': entity, 'scope': m.scope, 'at': naive(m.at)})
        scopes = {m.source_id: m.scope for m in batch}
        # new sources with their links: one statement (kg/kuzu_rows.py says why) while it beats a
        # statement per link; Kuzu cannot type an empty list, so unlinked ones come on their own
        n = sum(map(len, links.values()))
        together = self._scan_cheaper('Entity', 0.33, n, UNWIND_LINK_MS_PER_ROW)
        rows = [{'id': s, 'scope': scopes[s], 'links': ls} for s, ls in links.items() if ls]
        bare = [{'id': s, 'scope': scopes[s]} for s, ls in links.items() if not (ls and together)]
        if rows and together:
            self._write(CREATE_SOURCES.format(table=table), {'rows': rows})
        if bare:
            self._write(
                f'UNWIND $rows AS r CREATE (:{table} {{id: r.id, scope: r.scope}})', {'rows': bare}
            )
        linked = self._linked(table, [s for s in source_ids if s in stored])
        todo = [m for k, m in known.items() if k not in linked and (k[1] in stored or not together)]
        with self._transaction():  # the other links: one statement per row
            for m in todo:
                self._write(
                    f'MATCH (e:Entity {{id: $e}}), (c:{table} {{id: $c}}) '
                    'CREATE (e)-[:MENTIONS {scope: $scope, at: $at}]->(c)',
                    {'e': m.entity_id, 'c': m.source_id, 'scope': m.scope, 'at': naive(m.at)},
                )

    def _linked(self, table: str, source_ids: list[str]) -> set[tuple[str, str]]:
        """(entity, source) pairs already linked, for sources that exist."""
        rows = self._by_keys(
            (table, 0.2),
            source_ids,
            f'MATCH (e:Entity)-[:MENTIONS]->(c:{table}) WHERE c.id IN $keys RETURN e.id, c.id',
            f'MATCH (e:Entity)-[:MENTIONS]->(c:{table} {{id: $key}}) RETURN e.id, c.id',
        )
        return {(r[0], r[1]) for r in rows}

    def _each_or_unwind(self, statement: str, rows: list[dict[str, Any]]) -> None:
        """Run `statement` (which reads row fields as `r.<field>` and matches entities) for every
        row: one UNWIND for many rows among few entities, else one indexed statement per row."""
        if self._scan_cheaper('Entity', 1.0, len(rows), UNWIND_SET_MS_PER_ROW):
            self._write(f'UNWIND $rows AS r {statement}', {'rows': rows})
        elif rows:
            with self._transaction():
                for row in rows:
                    self._write(re.sub(r'\br\.(\w+)', r'$\1', statement), row)

    def _existing(self, table: str, ids: list[str]) -> set[str]:
        """Which of `ids` are stored in a node table."""
        rows = self._by_keys(
            (table, 0.1),
            ids,
            f'MATCH (n:{table}) WHERE n.id IN $keys RETURN n.id',
            f'MATCH (n:{table} {{id: $key}}) RETURN n.id',
        )
        return {r[0] for r in rows}

    def _by_keys(self, cost: tuple[str, float], keys: list[str], many: str, one: str) -> list[Any]:
        """Rows of `many` (`$keys` in an IN list: a scan of table `cost[0]`) or of `one` (`$key`,
        a primary-key lookup of ~`cost[1]` ms) run once per key, whichever is cheaper."""
        if self._scan_cheaper(*cost, len(keys)):
            return self._rows(many, {'keys': keys})
        return [r for k in keys for r in self._rows(one, {'key': k})]

    def _scan_cheaper(
        self, table: str, per_key_ms: float, keys: int, per_row: float | None = None
    ) -> bool:
        """kuzu_rows.scan_cheaper for `table` as it is now (counting its rows: ~0.3 ms)."""
        if not self._scans or keys <= SMALL_BATCH:
            return False
        rows = self._rows(f'MATCH (n:{table}) RETURN count(*)')[0][0]
        return scan_cheaper(int(rows), keys, per_key_ms, per_row)

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        if not entity_ids:
            return []
        rows = self._rows(
            'MATCH (e:Entity)-[m:MENTIONS]->(c) WHERE e.id IN $ids '
            'RETURN e.id, c.id, label(c), m.scope, m.at ORDER BY m.at DESC LIMIT $n',
            {'ids': list(entity_ids), 'n': limit},
        )
        return [mention_from_row(r) for r in rows]

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        if not entity_ids:
            return {}
        if per_entity is not None:
            # the mirror (kg/mirror.py) serves capped reads in production; here by link time
            rows = self._rows(
                'MATCH (e:Entity)-[m:MENTIONS]->(c:Chunk) WHERE e.id IN $ids '
                'RETURN e.id, c.id ORDER BY m.at DESC, c.id',
                {'ids': list(entity_ids)},
            )
            capped: dict[str, list[str]] = {}
            for entity, chunk in rows:
                kept = capped.setdefault(entity, [])
                if len(kept) < per_entity:
                    kept.append(chunk)
            return capped
        rows = self._rows(
            'MATCH (e:Entity)-[:MENTIONS]->(c:Chunk) WHERE e.id IN $ids RETURN e.id, c.id',
            {'ids': list(entity_ids)},
        )
        out: dict[str, list[str]] = {}
        for entity, chunk in rows:
            out.setdefault(entity, []).append(chunk)
        return out

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        wanted = list(dict.fromkeys(source_ids))
        for table in SOURCE_TABLES.values():
            for entity, source in self._linked(table, wanted):
                out.setdefault(source, []).append(entity)
        return {source: sorted(entities) for source, entities in out.items()}

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        wanted, named = list(dict.fromkeys(source_ids)), dict[str, None]()
        if not wanted:  # nothing to forget: no write call
            return []
        with self._writing():
            for table in SOURCE_TABLES.values():
                named.update((entity, None) for entity, _ in self._linked(table, wanted))
                self._delete_nodes(table, wanted)
        return list(named)

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        with self._writing():
            if relation_ids:  # a relation's id is no key: this scans the relations either way
                self._write(
                    'MATCH (:Entity)-[r:RELATES]->(:Entity) WHERE r.id IN $ids DELETE r',
                    {'ids': list(relation_ids)},
                )
            self._delete_nodes('Entity', list(dict.fromkeys(entity_ids)))

    def _delete_nodes(self, table: str, ids: list[str]) -> None:
        """DETACH DELETE the nodes of `table` with these ids: one statement scanning the table,
        or one primary-key lookup per id (DELETE_MS_PER_KEY), whichever is cheaper."""
        if self._scan_cheaper(table, DELETE_MS_PER_KEY, len(ids)):
            self._write(f'MATCH (n:{table}) WHERE n.id IN $ids DETACH DELETE n', {'ids': ids})
        elif ids:
            with self._transaction():
                for key in ids:
                    self._write(f'MATCH (n:{table} {{id: $id}}) DETACH DELETE n', {'id': key})

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
