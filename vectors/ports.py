"""Ports of the vector layer. Adapters translate to their library; ranking lives in pure modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from vectors.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    VectorPoint,
)


class VectorStore(Protocol):
    """Points with a dense and a BM25 sparse vector per collection; I/O only, no ranking."""

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection and its payload indexes if missing (idempotent)."""
        ...

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id, durably."""
        ...

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top `limit` points of one channel, filtered in the store, best first: new points
        (and top-level payload dicts) on every call, which the caller may change."""
        ...

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points by id; missing ids are left out."""
        ...

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge the given fields into each point's payload (id -> fields); vectors untouched."""
        ...

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete points by id; unknown ids are ignored."""
        ...

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page of points in id order and the offset of the next page (None at the end)."""
        ...

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of points matching `flt`."""
        ...

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        """Counts of each value of keyword field `key` among points matching `flt`."""
        ...

    def optimize(self) -> None:
        """Build indexes after bulk writes (no-op where the server does it)."""
        ...

    def close(self) -> None:
        """Flush and release files or connections."""
        ...


class Embedder(Protocol):
    """Dense text embeddings, L2-normalised, `dim` floats each."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings of documents, in order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embedding of a search query (models with query prefixes use them here)."""
        ...


class SparseEncoder(Protocol):
    """BM25 term weights for the sparse channel; the store applies IDF."""

    def encode_document(self, text: str) -> SparseVector:
        """Term-frequency weights of a stored text."""
        ...

    def encode_query(self, text: str) -> SparseVector:
        """Unit weights of a query's terms."""
        ...
