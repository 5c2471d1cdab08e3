"""VectorStore on Qdrant Edge: Qdrant's in-process engine, one shard folder per collection."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from core.errors import StoreUnavailable
from recall.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    VectorPoint,
)

log = logging.getLogger(__name__)

# HNSW is built only by optimize(), which blocks the shard while it runs (measured: ~0.5 ms per
# new point on 2 cores); so it runs when writes pause, once enough unindexed points piled up
OPTIMIZE_AFTER_POINTS = 10_000
OPTIMIZE_IDLE_SECONDS = 3.0

_MATCH_ALL_NIL = '00000000-0000-0000-0000-000000000000'


def _plain(value: str | bool | int) -> str | int:
    # qdrant-edge-py 0.9 turns a Python bool in MatchValue into the integer 1/0, which then
    # never matches a stored JSON boolean; boolean fields are therefore stored as 0/1 integers
    # (see _encode/_decode) and matched as integers
    return int(value) if isinstance(value, bool) else value


def _condition(key: str, values: Sequence[str | bool | int]) -> Any:
    match = qe.MatchAny([_plain(v) for v in values])  # type: ignore[arg-type]
    return qe.FieldCondition(key=key, match=match)


def to_edge_filter(flt: PointFilter) -> Any:
    """Translate our filter into an Edge Filter (None when it has no condition)."""
    must: list[Any] = []
    must_not: list[Any] = []
    if flt.scopes is not None:
        if not flt.scopes:
            # an empty scope list matches nothing: a condition no point can satisfy
            must.append(qe.HasIdCondition({_MATCH_ALL_NIL}))  # type: ignore[attr-defined]
        else:
            must.append(qe.FieldCondition(key='scope', match=qe.MatchAny(list(flt.scopes))))
    for key, values in flt.any_of.items():
        must.append(_condition(key, values))
    for key, values in flt.none_of.items():
        must_not.append(_condition(key, values))
    for key, rng in flt.ranges.items():
        must.append(qe.FieldCondition(key=key, range=qe.RangeFloat(gte=rng.gte, lte=rng.lte)))
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)


class EdgeVectorStore:
    """VectorStore on Qdrant Edge shards under `root` (one process owns the folder)."""

    def __init__(self, root: Path, *, auto_optimize: bool = True) -> None:
        self._root = root
        self._shards: dict[str, Any] = {}
        self._bools: dict[str, tuple[str, ...]] = {}
        self._pending = 0
        self._last_write = 0.0
        self._stop = threading.Event()
        self._optimizer: threading.Thread | None = None
        if auto_optimize:
            self._optimizer = threading.Thread(
                target=self._optimize_when_idle, name='mnemos-edge-optimize', daemon=True
            )
            self._optimizer.start()
        # Edge serialises its own segment access; the lock keeps our multi-step writes
        # (read-modify-write payload merges, creation) atomic across Flask and job threads
        self._write = threading.RLock()

    def _shard(self, collection: str) -> Any:
        try:
            return self._shards[collection]
        except KeyError:
            raise StoreUnavailable(f'collection {collection!r} is not open') from None

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create or open the shard and its payload indexes."""
        with self._write:
            if spec.name in self._shards:
                return
            path = self._root / spec.name
            config = qe.EdgeConfig(
                vectors={
                    'dense': qe.EdgeVectorParams(size=spec.dense_dim, distance=qe.Distance.Cosine)
                },
                sparse_vectors={'bm25': qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            )
            try:
                if (path / 'edge_config.json').exists() or any(path.glob('*')):
                    shard = qe.EdgeShard.load(str(path), config)
                else:
                    path.mkdir(parents=True, exist_ok=True)
                    shard = qe.EdgeShard.create(str(path), config)
            except Exception as exc:
                text = str(exc).lower()
                if 'lock' in text or 'in use' in text or 'resource temporarily' in text:
                    raise StoreUnavailable(
                        f'data dir {self._root} is in use by another process '
                        '(embedded mode allows one process per data dir)'
                    ) from exc
                raise StoreUnavailable(f'cannot open vector shard {path}: {exc}') from exc
            existing = set(shard.info().payload_schema)
            for name, schema in _index_schemas(spec):
                if name not in existing:
                    shard.update(qe.UpdateOperation.create_field_index(name, schema))
            self._shards[spec.name] = shard
            self._bools[spec.name] = spec.bool_fields

    def _encode(self, collection: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        data = dict(payload)
        for name in self._bools.get(collection, ()):
            if isinstance(data.get(name), bool):
                data[name] = int(data[name])
        return data

    def _decode(self, collection: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        data = payload or {}
        for name in self._bools.get(collection, ()):
            if isinstance(data.get(name), int):
                data[name] = bool(data[name])
        return data

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points."""
        if not points:
            return
        edge_points = [
            qe.Point(
                id=p.id,
                vector={
                    'dense': p.dense,
                    'bm25': qe.SparseVector(p.sparse.indices, p.sparse.values),
                },
                payload=self._encode(collection, p.payload),
            )
            for p in points
        ]
        with self._write:
            self._shard(collection).update(qe.UpdateOperation.upsert_points(edge_points))
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
        """Top points of one channel, filtered in the shard."""
        if isinstance(vector, SparseVector):
            if not vector.indices:
                return []
            query_vector: Any = qe.SparseVector(vector.indices, vector.values)
        else:
            query_vector = vector
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(query_vector, using=channel),
            filter=to_edge_filter(flt),
            with_payload=True,
        )
        found = self._shard(collection).query(request)
        return [
            ScoredPoint(id=str(p.id), score=p.score, payload=self._decode(collection, p.payload))
            for p in found
        ]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id, in the order asked; missing ids left out."""
        valid = [i for i in ids if _is_uuid(i)]
        if not valid:
            return []
        records = self._shard(collection).retrieve(valid, with_payload=True, with_vector=False)
        by_id = {str(r.id): r for r in records}
        return [
            StoredPoint(id=i, payload=self._decode(collection, by_id[i].payload))
            for i in dict.fromkeys(valid)
            if i in by_id
        ]

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge fields into payloads."""
        with self._write:
            shard = self._shard(collection)
            for ident, fields in updates.items():
                payload = self._encode(collection, fields)
                shard.update(qe.UpdateOperation.set_payload([ident], payload))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id."""
        valid = [i for i in ids if _is_uuid(i)]
        if valid:
            with self._write:
                self._shard(collection).update(qe.UpdateOperation.delete_points(valid))

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order and the next page's offset."""
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=to_edge_filter(flt),
            with_payload=True,
            with_vector=False,
        )
        records, nxt = self._shard(collection).scroll(request)
        points = [
            StoredPoint(id=str(r.id), payload=self._decode(collection, r.payload)) for r in records
        ]
        return points, (str(nxt) if nxt is not None else None)

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact count."""
        request = qe.CountRequest(exact=True, filter=to_edge_filter(flt))
        return int(self._shard(collection).count(request))

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Exact value counts of a keyword field."""
        request = qe.FacetRequest(key=key, limit=limit, exact=True, filter=to_edge_filter(flt))
        response = self._shard(collection).facet(request)
        return {str(hit.value): hit.count for hit in response.hits}

    def optimize(self) -> None:
        """Merge segments and build HNSW after bulk writes."""
        with self._write:
            started = time.monotonic()
            for shard in self._shards.values():
                shard.optimize()
            log.info('optimized vector shards (%d new points) in %.1f s',
                     self._pending, time.monotonic() - started)
            self._pending = 0

    def _optimize_when_idle(self) -> None:
        while not self._stop.wait(1.0):
            idle = time.monotonic() - self._last_write >= OPTIMIZE_IDLE_SECONDS
            if idle and self._pending >= OPTIMIZE_AFTER_POINTS:
                try:
                    self.optimize()
                except Exception:
                    log.exception('background optimize failed')

    def close(self) -> None:
        """Stop the optimizer, flush and close every shard."""
        self._stop.set()
        if self._optimizer is not None:
            self._optimizer.join(timeout=5)
        with self._write:
            for shard in self._shards.values():
                try:
                    shard.flush()
                finally:
                    shard.close()
            self._shards.clear()


def _index_schemas(spec: CollectionSpec) -> list[tuple[str, Any]]:
    schemas: list[tuple[str, Any]] = []
    for name in spec.keyword_fields:
        schemas.append((name, qe.KeywordIndexParams(is_tenant=name == 'scope')))
    for name in spec.bool_fields:
        schemas.append((name, qe.IntegerIndexParams(lookup=True, range=False)))
    for name in spec.float_fields:
        schemas.append((name, qe.FloatIndexParams()))
    for name in spec.integer_fields:
        schemas.append((name, qe.IntegerIndexParams(lookup=True, range=True)))
    return schemas


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        return False
    return True
