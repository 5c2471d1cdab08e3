"""`InMemoryVectorStore`: the `VectorStore` port in pure Python, the twin of the Edge and
qdrant-client adapters.

Brute-force cosine and IDF-weighted sparse dot products over dicts: no engine, no files. It runs
the same contract suite as the real adapters (`tests/contract/test_vector_store.py`), so unit
tests of services can use it and trust that it answers as Qdrant does.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import StoreUnavailable
from vectors.filtering import facet_key, matches, values_at
from vectors.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    VectorPoint,
)


@dataclass
class _Point:
    dense: list[float]  # L2-normalised, as Qdrant stores cosine vectors
    sparse: dict[int, float]
    payload: dict[str, Any]


class InMemoryVectorStore:
    """VectorStore in pure Python: brute-force cosine and IDF-weighted sparse dot products."""

    def __init__(self) -> None:
        self._collections: dict[str, dict[str, _Point]] = {}
        self.specs: dict[str, CollectionSpec] = {}
        self.closed = False

    def _points(self, collection: str) -> dict[str, _Point]:
        try:
            return self._collections[collection]
        except KeyError:
            raise StoreUnavailable(f'vector collection {collection!r} is not open') from None

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection if missing; an existing one must have the same dense size."""
        known = self.specs.setdefault(spec.name, spec)
        if known.dense_dim != spec.dense_dim:
            raise StoreUnavailable(
                f'collection {spec.name!r} has dense size {known.dense_dim}, '
                f'expected {spec.dense_dim}'
            )
        self._collections.setdefault(spec.name, {})

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id."""
        store = self._points(collection)
        dim = self.specs[collection].dense_dim
        for p in points:
            if len(p.dense) != dim:
                raise ValueError(f'dense vector has {len(p.dense)} dims, expected {dim}')
            norm = math.sqrt(sum(x * x for x in p.dense)) or 1.0
            store[_canonical(p.id)] = _Point(
                dense=[x / norm for x in p.dense],
                sparse=dict(zip(p.sparse.indices, p.sparse.values, strict=True)),
                payload=_json_copy(p.payload),
            )

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top points of one channel among those matching `flt`, best first."""
        store = self._points(collection)
        if limit <= 0:
            return []
        scored: list[tuple[float, str]] = []
        if isinstance(vector, SparseVector):
            corpus = store
            if vector.scoped_idf and flt.scopes is not None:
                within = PointFilter(scopes=flt.scopes)
                corpus = {i: p for i, p in store.items() if matches(p.payload, within)}
            idf = _idf(corpus, vector.indices)
            for ident, point in store.items():
                hits = [
                    (i, w)
                    for i, w in zip(vector.indices, vector.values, strict=True)
                    if i in point.sparse
                ]
                # like Qdrant, a point sharing no term with the query is not a sparse hit
                if hits and matches(point.payload, flt):
                    scored.append((sum(w * point.sparse[i] * idf[i] for i, w in hits), ident))
        else:
            norm = math.sqrt(sum(x * x for x in vector)) or 1.0
            unit = [x / norm for x in vector]
            for ident, point in store.items():
                if matches(point.payload, flt):
                    cosine = sum(a * b for a, b in zip(unit, point.dense, strict=True))
                    scored.append((cosine, ident))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [
            ScoredPoint(id=ident, score=score, payload=_json_copy(store[ident].payload))
            for score, ident in scored[:limit]
        ]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id in the order asked; missing ids left out."""
        store = self._points(collection)
        wanted = dict.fromkeys(c for c in map(_canonical_or_none, ids) if c is not None)
        return [
            StoredPoint(id=ident, payload=_json_copy(store[ident].payload))
            for ident in wanted
            if ident in store
        ]

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge top-level fields into payloads; missing ids are ignored."""
        store = self._points(collection)
        for ident, fields in updates.items():
            point = store.get(_canonical_or_none(ident) or '')
            if point is not None:
                point.payload.update(_json_copy(dict(fields)))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id; unknown ids are ignored."""
        store = self._points(collection)
        for ident in ids:
            store.pop(_canonical_or_none(ident) or '', None)

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order; the offset is the id of the page's first point."""
        store = self._points(collection)
        start = _canonical(offset) if offset is not None else ''
        # canonical UUID strings sort like Qdrant's 128-bit id order
        ids = [i for i in sorted(store) if i >= start and matches(store[i].payload, flt)]
        page = ids[:limit]
        nxt = ids[limit] if len(ids) > limit else None
        return [StoredPoint(id=i, payload=_json_copy(store[i].payload)) for i in page], nxt

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of matching points."""
        return sum(1 for p in self._points(collection).values() if matches(p.payload, flt))

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Counts of each value of `key`, a Qdrant path (each list element once per point)."""
        counts: dict[str, int] = {}
        for point in self._points(collection).values():
            if not matches(point.payload, flt):
                continue
            for v in dict.fromkeys(facet_key(v) for v in values_at(point.payload, key)):
                counts[v] = counts.get(v, 0) + 1
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return dict(top)

    def optimize(self) -> None:
        """Nothing to build."""

    def close(self) -> None:
        """Mark closed (tests may assert it)."""
        self.closed = True


def _idf(store: Mapping[str, _Point], terms: Sequence[int]) -> dict[int, float]:
    # Qdrant's Modifier.IDF: ln(1 + (N - n + 0.5) / (n + 0.5)) over the whole collection (or the
    # corpus a query names), where N counts points with a non-empty sparse vector (as Edge counts
    # it) and n those with the term
    total = sum(1 for p in store.values() if p.sparse)
    idf: dict[int, float] = {}
    for term in terms:
        n = sum(1 for p in store.values() if term in p.sparse)
        idf[term] = math.log(1.0 + (total - n + 0.5) / (n + 0.5))
    return idf


def _json_copy(data: dict[str, Any]) -> dict[str, Any]:
    # a JSON round trip gives what a real store returns: fresh objects, tuples as lists
    copied: dict[str, Any] = json.loads(json.dumps(data))
    return copied


def _canonical(ident: str) -> str:
    return str(uuid.UUID(ident))


def _canonical_or_none(ident: str) -> str | None:
    try:
        return _canonical(ident)
    except (ValueError, AttributeError, TypeError):
        return None
