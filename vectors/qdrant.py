"""VectorStore on qdrant-client: a Qdrant server (server mode), or ':memory:' in tests."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from core.errors import StoreUnavailable
from vectors.filtering import facet_key
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

# Points per upsert request: keeps each HTTP body well under the server's 32 MB limit.
_UPSERT_BATCH = 256
# Answers meaning "the server is not there right now" rather than "your request is wrong".
_UNAVAILABLE_STATUSES = frozenset({401, 403, 404, 500, 502, 503, 504})
# Qdrant deletes a point by flagging it; its vacuum optimizer rewrites a segment without its
# deleted points only past `deleted_threshold` (a share of the segment) and
# `vacuum_min_vector_number` deleted points. `compact` lowers both to the least the server
# accepts while it vacuums, then puts the collection's own values back (Qdrant's defaults when an
# interrupted compaction left the lowered ones in place).
VACUUM = models.OptimizersConfigDiff(deleted_threshold=0.0, vacuum_min_vector_number=100)
VACUUM_DEFAULTS = models.OptimizersConfigDiff(deleted_threshold=0.2, vacuum_min_vector_number=1000)
# how long a compaction waits for the server's optimizers to start, and then to finish
VACUUM_START_S = 2.0
VACUUM_WAIT_S = 600.0


class QdrantVectorStore:
    """VectorStore on a QdrantClient; one Qdrant collection per CollectionSpec."""

    def __init__(self, client: QdrantClient) -> None:
        self._client = client
        self._ready: set[str] = set()

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection and its missing payload indexes (idempotent)."""
        if spec.name in self._ready:
            return
        client = self._client
        with _reachable():
            if not client.collection_exists(spec.name):
                try:
                    client.create_collection(
                        spec.name,
                        vectors_config={
                            'dense': models.VectorParams(
                                size=spec.dense_dim, distance=models.Distance.COSINE
                            )
                        },
                        sparse_vectors_config={
                            'bm25': models.SparseVectorParams(modifier=models.Modifier.IDF)
                        },
                    )
                except UnexpectedResponse as exc:
                    # another API process created it between our check and our create
                    if exc.status_code != 409:
                        raise
            info = client.get_collection(spec.name)
            _check_dense_dim(spec, info.config.params.vectors)
            existing = set(info.payload_schema or {})
            for name, schema in _index_schemas(spec):
                if name not in existing:
                    client.create_payload_index(spec.name, name, schema, wait=True)
        self._ready.add(spec.name)

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points; returns once the server has applied them."""
        structs = [
            models.PointStruct(id=p.id, vector=_vectors(p), payload=p.payload) for p in points
        ]
        with _reachable():
            for start in range(0, len(structs), _UPSERT_BATCH):
                batch = structs[start : start + _UPSERT_BATCH]
                self._client.upsert(collection, batch, wait=True)

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top points of one channel, filtered on the server, best first."""
        if limit <= 0 or _matches_nothing(flt):
            return []
        params = None
        if isinstance(vector, SparseVector):
            if not vector.indices:
                return []
            query: Any = models.SparseVector(indices=vector.indices, values=vector.values)
            corpus = _qdrant_filter(PointFilter(scopes=flt.scopes)) if vector.scoped_idf else None
            if corpus is not None:  # None: every scope, the whole collection's IDF
                params = models.SearchParams(idf=models.IdfCorpusParams(corpus=corpus))
        else:
            query = vector
        with _reachable():
            response = self._client.query_points(
                collection,
                query=query,
                using=channel,
                query_filter=_qdrant_filter(flt),
                search_params=params,
                limit=limit,
                with_payload=True,
                with_vectors=False,
            )
        return [
            ScoredPoint(id=str(p.id), score=p.score, payload=p.payload or {})
            for p in response.points
        ]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id in the order asked; missing (or non-UUID) ids left out."""
        wanted = canonical_ids(ids)
        if not wanted:
            return []
        with _reachable():
            records = self._client.retrieve(
                collection, wanted, with_payload=True, with_vectors=False
            )
        by_id = {str(r.id): r.payload for r in records}
        return [StoredPoint(id=i, payload=by_id[i] or {}) for i in wanted if i in by_id]

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge top-level fields into payloads in one request; missing ids are ignored."""
        operations: list[Any] = []
        for ident, fields in updates.items():
            canonical: list[Any] = canonical_ids([ident])
            if not fields or not canonical:
                continue
            # a HasId filter, not a point list: a point deleted meanwhile is a no-op, not a 404
            only = models.Filter(must=[models.HasIdCondition(has_id=canonical)])
            operations.append(
                models.SetPayloadOperation(
                    set_payload=models.SetPayload(payload=dict(fields), filter=only)
                )
            )
        if operations:
            with _reachable():
                self._client.batch_update_points(collection, operations, wait=True)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id; unknown ids are ignored."""
        wanted: list[Any] = canonical_ids(ids)
        if wanted:
            selector = models.PointIdsList(points=wanted)
            with _reachable():
                self._client.delete(collection, points_selector=selector, wait=True)

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order and the next page's offset (None at the end)."""
        if _matches_nothing(flt):
            return [], None
        with _reachable():
            records, nxt = self._client.scroll(
                collection,
                scroll_filter=_qdrant_filter(flt),
                limit=limit,
                offset=offset,
                with_payload=True,
                with_vectors=False,
            )
        points = [StoredPoint(id=str(r.id), payload=r.payload or {}) for r in records]
        return points, (str(nxt) if nxt is not None else None)

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of matching points."""
        if _matches_nothing(flt):
            return 0
        with _reachable():
            response = self._client.count(collection, count_filter=_qdrant_filter(flt), exact=True)
        return response.count

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Exact counts of each value of an indexed field among matching points."""
        if _matches_nothing(flt):
            return {}
        with _reachable():
            response = self._client.facet(
                collection, key, facet_filter=_qdrant_filter(flt), limit=limit, exact=True
            )
        return {facet_key(h.value): h.count for h in response.hits}

    def optimize(self) -> None:
        """No-op: the server's optimizers build indexes on their own."""

    def compact(self) -> int:
        """Ask the server to rewrite the segments that hold deleted points (forget's compaction;
        docs/SERVER.md says what it does and does not erase); returns the points kept."""
        kept = 0
        for name in sorted(self._ready):
            with _reachable():
                kept += self._vacuum(name)
        return kept

    def _vacuum(self, name: str) -> int:
        client = self._client
        config = client.get_collection(name).config.optimizer_config
        own = models.OptimizersConfigDiff(
            deleted_threshold=config.deleted_threshold,
            vacuum_min_vector_number=config.vacuum_min_vector_number,
        )
        if own == VACUUM:
            own = VACUUM_DEFAULTS
        # blocks until the optimizations under way are done, then starts the optimizers anew
        client.update_collection(name, optimizers_config=VACUUM)
        try:
            self._wait_optimized(name)
        finally:
            client.update_collection(name, optimizers_config=own)
        kept = client.count(name, exact=True).count
        log.info('asked Qdrant to vacuum %s: %d points', name, kept)
        return kept

    def _wait_optimized(self, name: str) -> None:
        """Wait until the optimizers of `name` have run (status yellow while they do)."""
        started = time.monotonic()
        seen_busy = False
        while True:
            status = self._client.get_collection(name).status
            busy = status == models.CollectionStatus.YELLOW
            seen_busy = seen_busy or busy
            waited = time.monotonic() - started
            if not busy and (seen_busy or waited >= VACUUM_START_S):
                return
            if waited >= VACUUM_WAIT_S:
                log.warning('Qdrant still optimizes %s after %.0f s', name, waited)
                return
            time.sleep(0.1)

    def close(self) -> None:
        """Close the client's connections."""
        self._client.close()


# ---- translation helpers --------------------------------------------------------------------


@contextmanager
def _reachable() -> Iterator[None]:
    """Connection failures and server-side outages as StoreUnavailable; other errors are bugs."""
    try:
        yield
    except ResponseHandlingException as exc:  # connection refused, DNS, timeout
        raise StoreUnavailable(f'cannot reach Qdrant: {exc}') from exc
    except UnexpectedResponse as exc:
        if exc.status_code not in _UNAVAILABLE_STATUSES:
            raise
        # 404 here is a missing collection (point lookups never 404): like a shard Edge cannot open
        raise StoreUnavailable(
            f'Qdrant answered HTTP {exc.status_code}: {exc.reason_phrase}',
            details={'status': exc.status_code},
        ) from exc


def _check_dense_dim(spec: CollectionSpec, vectors: Any) -> None:
    params = vectors.get('dense') if isinstance(vectors, dict) else None
    size = getattr(params, 'size', None)
    if size != spec.dense_dim:
        # a collection made for another embedder: querying it would fail on every request
        raise StoreUnavailable(
            f'collection {spec.name!r} has dense size {size}, expected {spec.dense_dim}',
            details={'collection': spec.name},
        )


def _vectors(p: VectorPoint) -> dict[str, Any]:
    # a text without terms gets no sparse vector: an empty one would count in the IDF corpus
    # of local mode (':memory:') but not on Edge or the server's inverted index
    vectors: dict[str, Any] = {'dense': p.dense}
    if p.sparse.indices:
        vectors['bm25'] = models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)
    return vectors


def _matches_nothing(flt: PointFilter) -> bool:
    # an empty scope list or an empty any_of list can match no point: skip the round trip
    if flt.scopes is not None and not flt.scopes:
        return True
    return any(not values for values in flt.any_of.values())


def _match(key: str, values: Sequence[str | bool | int]) -> list[models.Condition]:
    """Conditions each matching `key` against some of `values`; any one matching means a hit."""
    # MatchAny accepts only strings or only integers, so each bool gets its own MatchValue
    strings = [v for v in values if isinstance(v, str)]
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    conditions: list[models.Condition] = [
        models.FieldCondition(key=key, match=models.MatchValue(value=v))
        for v in dict.fromkeys(v for v in values if isinstance(v, bool))
    ]
    if strings:
        conditions.append(models.FieldCondition(key=key, match=models.MatchAny(any=strings)))
    if ints:
        conditions.append(models.FieldCondition(key=key, match=models.MatchAny(any=ints)))
    return conditions


def _qdrant_filter(flt: PointFilter) -> models.Filter | None:
    """Our filter as a Qdrant Filter, or None when it has no condition."""
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    if flt.scopes is not None:
        must.append(models.FieldCondition(key='scope', match=models.MatchAny(any=flt.scopes)))
    for key, values in flt.any_of.items():
        conditions = _match(key, values)
        must.append(conditions[0] if len(conditions) == 1 else models.Filter(should=conditions))
    for key, values in flt.none_of.items():
        must_not.extend(_match(key, values))
    for key, rng in flt.ranges.items():
        must.append(models.FieldCondition(key=key, range=models.Range(gte=rng.gte, lte=rng.lte)))
    if not must and not must_not:
        return None
    return models.Filter(must=must or None, must_not=must_not or None)


def _index_schemas(spec: CollectionSpec) -> list[tuple[str, models.PayloadSchemaParams]]:
    schemas: list[tuple[str, models.PayloadSchemaParams]] = []
    for name in spec.keyword_fields:
        # scope is the tenant key: the server co-locates each scope's points
        params = models.KeywordIndexParams(
            type=models.KeywordIndexType.KEYWORD,
            is_tenant=name == 'scope' or None,
            on_disk=spec.on_disk(name) or None,
        )
        schemas.append((name, params))
    for name in spec.bool_fields:
        on_disk = spec.on_disk(name) or None
        schemas.append(
            (name, models.BoolIndexParams(type=models.BoolIndexType.BOOL, on_disk=on_disk))
        )
    for name in spec.float_fields:
        on_disk = spec.on_disk(name) or None
        params_float = models.FloatIndexParams(type=models.FloatIndexType.FLOAT, on_disk=on_disk)
        schemas.append((name, params_float))
    for name in spec.integer_fields:
        params_int = models.IntegerIndexParams(
            type=models.IntegerIndexType.INTEGER,
            lookup=True,
            range=True,
            on_disk=spec.on_disk(name) or None,
        )
        schemas.append((name, params_int))
    return schemas
