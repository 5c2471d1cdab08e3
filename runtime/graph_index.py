"""The one bridge between recall and the knowledge graph: recall's GraphIndex port over
`KnowledgeGraphService`. Only the graph-owning process builds it (see `core.roles.GraphRole`)."""

from __future__ import annotations

from collections.abc import Sequence

from kg.service import KnowledgeGraphService
from vectors.models import ChunkText, ScoredPoint, SlotEvidence


class KnowledgeGraphIndex:
    """GraphIndex for recall: extraction of written chunks, the graph channel, forgetting."""

    def __init__(self, kg: KnowledgeGraphService) -> None:
        self._kg = kg

    def index_chunks(self, chunks: Sequence[ChunkText]) -> dict[str, list[str]]:
        """Extract entities and relations into each chunk's scope graph; chunk id -> entity ids."""
        return self._kg.index_chunks(chunks)

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks that mention entities within `hops` of those named in `query`, best first."""
        return self._kg.related_chunks(query, scopes, hops, limit)

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """What the graph knows of the slot `query` asks about: chunks holding, chunks stale."""
        return self._kg.slot_evidence(query, scopes, user_id)

    def entities_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Chunk id -> ids of the entities it mentions; chunks that mention none left out."""
        return self._kg.source_entities(ids)

    def forget_chunks(self, ids: Sequence[str]) -> None:
        """Drop MENTIONS edges of deleted chunks and retract the facts only they said."""
        self._kg.forget_chunks(ids)
