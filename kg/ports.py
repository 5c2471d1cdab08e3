"""Ports of the knowledge graph: a graph store and an extractor, speaking kg.models."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from kg.models import Entity, Extraction, Mention, Relation, RelationUpdate, SourceText


class GraphStore(Protocol):
    """Entities, bi-temporal RELATES facts and MENTIONS links; batch writes, no ranking.

    Facts are never deleted: they are closed (`valid_to`) or retracted (`expired_at`).
    Implementations are safe to share between threads.
    """

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        """Insert or replace entities by id; `embeddings` (id -> name vector) are kept if given."""
        ...

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        """Entities by id, in the order given; unknown ids are left out."""
        ...

    def list_entities(self, scope: str) -> list[Entity]:
        """Every entity of a scope, merged ones included (the service builds its name index)."""
        ...

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        """Name vectors of a scope's entities that have one."""
        ...

    def add_relations(self, relations: Sequence[Relation]) -> None:
        """Insert new relations (ids not yet stored; endpoints must exist)."""
        ...

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        """Set `valid_to` / `expired_at` of stored relations; unknown ids are ignored."""
        ...

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        """Every relation touching the entities, whatever its time window (history)."""
        ...

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        """Relations valid at `as_of` within `hops` of the seeds (each hop capped at max_edges)."""
        ...

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        """Link entities to the chunks/episodes naming them (idempotent per pair)."""
        ...

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        """Mentions of the entities, newest first, at most `limit`."""
        ...

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        """Ids of the chunks that mention each entity; with `per_entity`, at most that many
        per entity, the most recently linked ones (the recall channel's fan-out cap)."""
        ...

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        """Ids of the entities each chunk/episode mentions, sorted; sources that mention none
        are left out."""
        ...

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        """Drop the MENTIONS of deleted chunks/episodes (entities and facts stay); the ids of
        the entities they mentioned, so the caller can expire facts only they were a source of."""
        ...

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        """Erase relations, and entities with every edge they have, for good: only for the
        right to be forgotten (everything else closes or retracts). Unknown ids are ignored."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...


class Extractor(Protocol):
    """Entities and relations from text, in batches; no I/O against the graph."""

    def extract(self, texts: Sequence[SourceText]) -> list[Extraction]:
        """One Extraction per input text, in order."""
        ...

    def extract_parts(self, texts: Sequence[SourceText]) -> Iterator[list[Extraction]]:
        """The same Extractions in consecutive parts, each ready as soon as it is parsed."""
        ...

    def close(self) -> None:
        """Release worker processes, if any."""
        ...
