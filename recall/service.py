"""RecallService: the recall facade the API and jobs call: single memories, stats and search.

A search runs in `recall.read.search.Searcher`; writes go through
`recall.write.writer.MemoryWriter`, the one writer of `memories`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.auth import Principal
from core.clock import Clock
from core.errors import NotFound, StoreUnavailable
from recall.access.recorder import AccessRecorder, RecallCounter
from recall.models import MEMORIES, Chunk
from recall.ports import GraphIndex
from recall.read.fusion import DEFAULT_FUSION, FusionConfig
from recall.read.search import Searcher
from recall.schemas import ChunkOut, SearchRequest, SearchResponse, Stats
from recall.tiers import Kind
from vectors.models import PointFilter
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)


def to_out(chunk: Chunk, entity_ids: Sequence[str] = ()) -> ChunkOut:
    """Client view of a stored chunk, with the ids of the graph entities it mentions."""
    return ChunkOut.model_validate({**chunk.model_dump(), 'entity_ids': list(entity_ids)})


class RecallService:
    """Chunk memory: idempotent writes, hybrid dense + BM25 + graph recall with receipts."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        clock: Clock,
        writer: RecallCounter,
        *,
        graph: GraphIndex | None = None,
        fusion: FusionConfig = DEFAULT_FUSION,
        overlap_threads: int = 0,
        concurrency: int = 0,
    ) -> None:
        """`graph` is given in the process that owns the graph: it adds the graph channel.
        Every change to `memories` (access bookkeeping included) goes through `writer`.
        `overlap_threads` spare threads run a search's dense side (query embedding, then the
        dense query) beside its lexical side while one is idle and no other search runs; 0 runs
        them one after the other. At most `concurrency` searches run at once (0: any number);
        the others wait for a turn without taking the GIL."""
        self._vectors = vectors
        self._embedder = embedder
        self._graph = graph
        self._touches = AccessRecorder(writer.touch)
        self._searcher = Searcher(
            vectors,
            embedder,
            sparse,
            clock,
            self._touches,
            graph=graph,
            fusion=fusion,
            overlap_threads=overlap_threads,
            concurrency=concurrency,
        )

    @property
    def embedder_name(self) -> str:
        """The dense model's name (health report)."""
        return self._embedder.name

    # ---- single-memory operations -----------------------------------------------------------

    def get(self, ident: str) -> Chunk:
        """The chunk with this id, or NotFound."""
        found = self._vectors.retrieve(MEMORIES, [ident])
        if not found:
            raise NotFound('memory', ident)
        return Chunk.from_payload(found[0].payload)

    def describe(self, chunks: Sequence[Chunk]) -> list[ChunkOut]:
        """Client views of stored chunks, each with the entities the graph links it to (none
        without a graph, or while the graph cannot answer: a memory stays readable)."""
        mentioned: dict[str, list[str]] = {}
        if self._graph is not None and chunks:
            try:
                mentioned = self._graph.entities_of([c.id for c in chunks])
            except StoreUnavailable:
                log.warning('graph unavailable: memories shown without their entities')
        return [to_out(c, mentioned.get(c.id, ())) for c in chunks]

    def list_chunks(
        self,
        scopes: list[str] | None,
        *,
        kinds: list[Kind] | None = None,
        limit: int = 50,
        offset: str | None = None,
    ) -> tuple[list[Chunk], str | None]:
        """A page of chunks in id order."""
        flt = PointFilter(scopes=scopes)
        if kinds:
            flt.any_of['kind'] = [k.value for k in kinds]
        points, nxt = self._vectors.scroll(MEMORIES, flt, limit, offset)
        return [Chunk.from_payload(p.payload) for p in points], nxt

    def stats(self, scopes: list[str] | None) -> Stats:
        """Counts of live (not superseded) memories by tier, kind and scope."""
        live = PointFilter(scopes=scopes, none_of={'superseded': [True]})
        pinned = PointFilter(scopes=scopes, any_of={'pinned': [True]}, none_of=live.none_of)
        superseded = PointFilter(scopes=scopes, any_of={'superseded': [True]})
        return Stats(
            total=self._vectors.count(MEMORIES, live),
            by_tier=self._vectors.facet(MEMORIES, 'tier', live),
            by_kind=self._vectors.facet(MEMORIES, 'kind', live),
            by_scope=self._vectors.facet(MEMORIES, 'scope', live),
            pinned=self._vectors.count(MEMORIES, pinned),
            superseded=self._vectors.count(MEMORIES, superseded),
        )

    # ---- search -----------------------------------------------------------------------------

    def search(self, req: SearchRequest, principal: Principal) -> SearchResponse:
        """Hybrid recall in the caller's scope; `global`, then a team leader's scopes, are read
        too when the caller's own hits are weak (recall.read.search)."""
        return self._searcher.search(req, principal)

    def close(self) -> None:
        """Stop the access-bookkeeping thread after it drains, and the spare search threads."""
        self._touches.close()
        self._searcher.close()
