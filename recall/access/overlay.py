"""Recalls kept out of the vector payloads: the VectorStore the services read in embedded mode.

Every search counts its hits (access count and time feed decay and tier moves). Written into
the payload, each count would move the recalled point out of Qdrant Edge's indexed segment into
the appendable one (Edge never edits an indexed segment in place), and that write holds the shard
while the next search queries it, slowing every search. Counts go to an `AccessLog`
(`recall.access.sqlite_log`, SQLite in the data dir) and reads add them back, so every reader
(ranking, the memory API, export, the decay sweep) sees the counts a payload would hold. A payload
write that sets `access_count` (a merge, an import) was computed from such a read, or states the
count outright, so it absorbs the logged recalls; a delete drops them.

Filters, counts and facets on `access_count` or `accessed_at` still see the payloads' own
values; no service filters on them.

Embedded only: one process owns the data dir there. In server mode `mnemos worker` processes
read the payloads on other machines, so recalls are still written into them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from recall.models import MEMORIES
from recall.ports import AccessLog
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
from vectors.ports import VectorStore


class AccessOverlay:
    """`inner` with the logged recalls of memories added to every payload it returns."""

    def __init__(self, inner: VectorStore, log: AccessLog) -> None:
        self._inner = inner
        self.log = log

    def _overlay(self, points: Sequence[ScoredPoint] | Sequence[StoredPoint]) -> None:
        logged = self.log.get(p.id for p in points)
        if not logged:
            return
        for point in points:
            hit = logged.get(point.id)
            if hit is None:
                continue
            n, at = hit
            # adapters hand out fresh top-level dicts: updating one in place is safe
            payload = point.payload
            payload['access_count'] = int(payload.get('access_count') or 0) + n
            stored = payload.get('accessed_at')
            payload['accessed_at'] = max(float(stored), at) if stored is not None else at

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """See VectorStore."""
        self._inner.ensure_collection(spec)

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """See VectorStore; an upserted memory's payload states its count."""
        self._inner.upsert(collection, points)
        if collection == MEMORIES:
            self.log.absorb(canonical_ids([p.id for p in points]))

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """See VectorStore."""
        found = self._inner.query(collection, channel, vector, flt, limit)
        if collection == MEMORIES:
            self._overlay(found)
        return found

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """See VectorStore."""
        found = self._inner.retrieve(collection, ids)
        if collection == MEMORIES:
            self._overlay(found)
        return found

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """See VectorStore; a written `access_count` absorbs the logged recalls."""
        self._inner.set_payload(collection, updates)
        if collection == MEMORIES:
            written = [i for i, fields in updates.items() if 'access_count' in fields]
            self.log.absorb(canonical_ids(written))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """See VectorStore."""
        self._inner.delete(collection, ids)
        if collection == MEMORIES:
            self.log.absorb(canonical_ids(ids))

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """See VectorStore."""
        points, nxt = self._inner.scroll(collection, flt, limit, offset)
        if collection == MEMORIES:
            self._overlay(points)
        return points, nxt

    def count(self, collection: str, flt: PointFilter) -> int:
        """See VectorStore."""
        return self._inner.count(collection, flt)

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """See VectorStore."""
        return self._inner.facet(collection, key, flt, limit)

    def optimize(self) -> None:
        """See VectorStore."""
        self._inner.optimize()

    def close(self) -> None:
        """See VectorStore (the log is closed by its owner)."""
        self._inner.close()
