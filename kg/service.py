"""KnowledgeGraphService: extraction into the temporal graph, graph search, the recall channel.

The facade other packages use. Writes (index, ingest, forget, merge) go to `kg.writer`, the
single writer; reads (search, the recall channel, slot evidence, entity pages) to `kg.reads`.
Both share each scope's name index.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from core.clock import Clock
from kg.models import (
    EntityDetail,
    EntityOut,
    KGSearchRequest,
    KGSearchResponse,
    MergeResult,
)
from kg.ports import Extractor, GraphStore
from kg.reads import GraphReads
from kg.resolution import MAX_INDEX_ENTITIES, NameIndex, NameIndexes
from kg.writer import GraphWriter
from vectors.models import ChunkText, ScoredPoint, SlotEvidence
from vectors.ports import Embedder


class KnowledgeGraphService:
    """The L2 semantic memory: writes resolve entities and apply temporal rules; reads rank."""

    def __init__(
        self,
        store: GraphStore,
        extractor: Extractor,
        embedder: Embedder,
        clock: Clock,
        max_index_entities: int = MAX_INDEX_ENTITIES,
    ) -> None:
        self._store = store
        self._indexes = NameIndexes(self._load_index, max_index_entities)
        self._writer = GraphWriter(store, extractor, embedder, clock, self._indexes)
        self._reads = GraphReads(store, self._indexes.get, embedder, clock)

    # ---- recall.ports.GraphIndex -----------------------------------------------------------

    def index_chunks(self, chunks: Sequence[ChunkText]) -> dict[str, list[str]]:
        """Extract entities and relations into each chunk's scope graph; chunk id -> entity ids."""
        return self._writer.index_chunks(chunks)

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks that mention entities within `hops` of those named in `query`, best first."""
        return self._reads.related_chunks(query, scopes, hops, limit)

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """`kg.reads.GraphReads.slot_evidence`: what the graph knows of the slot a query asks."""
        return self._reads.slot_evidence(query, scopes, user_id)

    def source_entities(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Ids of the entities each chunk/episode mentions; sources naming none left out."""
        return self._store.source_entities(ids)

    def forget_chunks(self, ids: Sequence[str]) -> int:
        """Forget deleted chunks for good: their MENTIONS, the facts only they said (with the
        sentence they were read from, so no entity history repeats a deleted memory) and the
        entities nothing else names; count the facts erased."""
        return self.erase_sources(ids)[0]

    def erase_sources(self, ids: Sequence[str], scope: str | None = None) -> tuple[int, int]:
        """`kg.forget.erase_sources` (with `scope`: its whole graph); (facts, entities) erased."""
        return self._writer.erase_sources(ids, scope)

    # ---- other writes ----------------------------------------------------------------------

    def ingest_text(
        self,
        scope: str,
        text: str,
        at: datetime,
        speaker: str | None = None,
        source_episode: str | None = None,
    ) -> list[str]:
        """Extract one text (an episode summary) into `scope`; returns the entity ids it named."""
        return self._writer.ingest_text(scope, text, at, speaker, source_episode)

    def merge_duplicates(self, scope: str, entity_ids: Sequence[str]) -> MergeResult:
        """Merge duplicates of the given entities within `scope`; flag ambiguous pairs."""
        return self._writer.merge_duplicates(scope, entity_ids)

    # ---- reads -----------------------------------------------------------------------------

    def search(self, req: KGSearchRequest, scopes: list[str]) -> KGSearchResponse:
        """`kg.reads.GraphReads.search`: entities, facts valid at the question's time (its slot's
        first), and the paths that connect them."""
        return self._reads.search(req, scopes)

    def probe(self) -> None:
        """Raise when the graph cannot serve reads (its store's own probe, where it has one:
        an in-memory copy that failed to fill)."""
        check = getattr(self._store, 'probe', None)
        if callable(check):
            check()

    def entity(self, entity_id: str, scopes: Sequence[str]) -> EntityDetail:
        """An entity with its aliases, facts valid now and full fact history; NotFound if unseen."""
        return self._reads.entity_detail(entity_id, scopes)

    def entities(self, scope: str, q: str | None, limit: int) -> tuple[list[EntityOut], int]:
        """Live entities of `scope` whose name or an alias contains `q`, most mentioned first;
        the page and the number that matched."""
        return self._reads.find_entities(scope, q, limit)

    def _load_index(self, scope: str) -> NameIndex:
        return NameIndex(self._store.list_entities(scope), self._store.entity_embeddings(scope))
