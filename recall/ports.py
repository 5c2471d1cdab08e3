"""Ports of chunk memory: what recall needs of the knowledge graph."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from vectors.models import (
    ChunkText,
    ScoredPoint,
    SlotEvidence,
)


class GraphIndex(Protocol):
    """What recall needs of the knowledge graph (`runtime/graph_index.py` implements it)."""

    def index_chunks(self, chunks: Sequence[ChunkText]) -> dict[str, list[str]]:
        """Extract entities and relations into each chunk's scope graph; chunk id -> entity ids."""
        ...

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks that mention entities within `hops` of those named in `query`, best first."""
        ...

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """For a question about one slot of a subject it names ("where does Dana work now",
        "我住在哪里" asked by `user_id`): the chunks stating the value that holds at the
        question's time and those stating values that do not; None when the graph is not sure."""
        ...

    def entities_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Chunk id -> ids of the entities it mentions; chunks that mention none left out.

        The graph keeps these links (MENTIONS); the vector payload does not copy them, since
        setting a payload field moves an indexed point out of its HNSW segment."""
        ...

    def forget_chunks(self, ids: Sequence[str]) -> None:
        """Drop MENTIONS edges of deleted chunks and retract the current facts only they said."""
        ...


class AccessLog(Protocol):
    """Recalls counted beside the vector store (`recall.access.sqlite_log` implements it)."""

    def add(self, hits: Mapping[str, tuple[int, float]]) -> None:
        """Count `n` more recalls of each id, the latest at epoch `at`: {id: (n, at)}."""
        ...

    def get(self, ids: Iterable[str]) -> dict[str, tuple[int, float]]:
        """{id: (recalls, latest epoch)} of these ids that have any."""
        ...

    def absorb(self, ids: Iterable[str]) -> None:
        """Forget these ids: their payloads now hold every recall (or they are gone)."""
        ...
