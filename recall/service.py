"""RecallService: reads memories and answers `memory_search` over the VectorStore port.

Writes go through `recall.write.writer.MemoryWriter`, the one writer of `memories`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from core.auth import Principal
from core.clock import Clock, to_epoch
from core.errors import InvalidInput, NotFound
from core.scopes import GLOBAL
from recall.decay import multiplier, relevance
from recall.models import ANY_USER, EPISODES, MEMORIES, Chunk
from recall.ports import GraphIndex
from recall.read.fusion import Fused, rrf, weighted_merge
from recall.schemas import (
    ChunkOut,
    FusionMethod,
    Hit,
    Receipt,
    SearchFilters,
    SearchMode,
    SearchRequest,
    SearchResponse,
    Stats,
)
from recall.tiers import ImportanceLabel, Kind, Trust
from recall.write.writer import MemoryWriter
from vectors.filtering import matches
from vectors.models import Channel, PointFilter, Range, ScoredPoint
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)

USER_BOOST = 1.2
# Channels return this many candidates per requested hit (at least MIN_CANDIDATES): RRF needs
# depth to reward ids that both channels find but neither ranks first.
CANDIDATE_FACTOR = 4
MIN_CANDIDATES = 50
MAX_CANDIDATES = 200
# a team member whose best hit is a dense neighbour below this also reads its leader's memory
WEAK_DENSE_COSINE = 0.3
RANK_WINDOW_FACTOR = 3
MIN_RANK_WINDOW = 30


def to_out(chunk: Chunk) -> ChunkOut:
    """Client view of a stored chunk."""
    return ChunkOut.model_validate(chunk.model_dump())


class RecallService:
    """Chunk memory: idempotent writes, hybrid dense + BM25 + graph recall with receipts."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        clock: Clock,
        writer: MemoryWriter,
        *,
        graph: GraphIndex | None = None,
    ) -> None:
        """`graph` is given in the process that owns the graph: it adds the graph channel.
        Every change to `memories` (access bookkeeping included) goes through `writer`."""
        self._vectors = vectors
        self._embedder = embedder
        self._sparse = sparse
        self._clock = clock
        self._writer = writer
        self._graph = graph
        self._touches: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._toucher: threading.Thread | None = None
        self._lock = threading.Lock()

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
        """Hybrid recall in the caller's scope, then `global`, then a team leader's scopes."""
        started = time.perf_counter()
        latency: dict[str, float] = {}
        principal.require_read(req.scope)
        query_vectors = self._encode_query(req, latency)
        scopes = [req.scope]
        channels, fused = self._channels(req, scopes, query_vectors, latency)
        fallback: str | None = None
        if not fused and req.scope != GLOBAL and principal.can_read(GLOBAL):
            channels, fused = self._channels(req, [GLOBAL], query_vectors, latency)
            if fused:
                scopes, fallback = [GLOBAL], 'global'
        if principal.leader_scopes and (not fused or _weak(channels)):
            # a member with nothing (or nothing convincing) reads its leaders' memory, merged
            # with what it has, so its own hits still compete
            scopes = [*scopes, *principal.leader_scopes]
            channels, fused = self._channels(req, scopes, query_vectors, latency)
            fallback = 'team_leader'
        scopes_read = [
            req.scope,
            *([GLOBAL] if fallback == 'global' else []),
            *(principal.leader_scopes if fallback == 'team_leader' else ()),
        ]

        t = time.perf_counter()
        payloads = {p.id: p.payload for points in channels.values() for p in points}
        hits, policy_tier = self._rank(req, fused, payloads)
        latency['rank'] = _ms(t)
        if hits:
            self._touch([h.id for h in hits])
        latency['total'] = _ms(started)
        receipt = Receipt(
            channels={name: [p.id for p in points[:10]] for name, points in channels.items()},
            fused=[f.id for f in fused[:10]],
            scopes=scopes_read,
            fallback=fallback,
            policy_tier=policy_tier,
            skip_reason=None if hits else 'no_match',
            latency_ms={k: round(v, 3) for k, v in latency.items()},
        )
        return SearchResponse(hits=hits, receipt=receipt)

    def _encode_query(self, req: SearchRequest, latency: dict[str, float]) -> dict[Channel, Any]:
        out: dict[Channel, Any] = {}
        if req.mode in (SearchMode.HYBRID, SearchMode.DENSE):
            t = time.perf_counter()
            out['dense'] = self._embedder.embed_query(req.query)
            latency['embed'] = _ms(t)
        if req.mode in (SearchMode.HYBRID, SearchMode.BM25):
            t = time.perf_counter()
            sparse = self._sparse.encode_query(req.query)
            latency['encode_bm25'] = _ms(t)
            if sparse.indices:
                out['bm25'] = sparse
        return out

    def _filter(self, req: SearchRequest, scopes: list[str]) -> PointFilter:
        flt = PointFilter(scopes=scopes, none_of={'trust': [Trust.QUARANTINED.value]})
        if not req.include_superseded:
            flt.none_of['superseded'] = [True]
        if req.user_id is not None:
            # the caller's own memories and user-less ones; other users' stay private
            flt.any_of['owner'] = [req.user_id, ANY_USER]
        _apply_filters(flt, req.filters)
        return flt

    def _channels(
        self,
        req: SearchRequest,
        scopes: list[str],
        vectors: dict[Channel, Any],
        latency: dict[str, float],
    ) -> tuple[dict[str, list[ScoredPoint]], list[Fused]]:
        flt = self._filter(req, scopes)
        depth = min(MAX_CANDIDATES, max(MIN_CANDIDATES, req.top_k * CANDIDATE_FACTOR))
        channels: dict[str, list[ScoredPoint]] = {}
        for name, vector in vectors.items():
            t = time.perf_counter()
            channels[name] = self._vectors.query(MEMORIES, name, vector, flt, depth)
            latency[name] = latency.get(name, 0.0) + _ms(t)
        # ---- episodes (L1, issue 4): the `episodic` kind also reads the `episodes` collection,
        # whose payloads carry the chunk fields this filter and `_rank` use; fused as channels
        if req.filters.kinds and Kind.EPISODIC in req.filters.kinds:
            for name, vector in vectors.items():
                t = time.perf_counter()
                channels[f'episodes_{name}'] = self._vectors.query(
                    EPISODES, name, vector, flt, depth
                )
                latency[f'episodes_{name}'] = latency.get(f'episodes_{name}', 0.0) + _ms(t)
        if self._graph is not None and req.graph and req.mode == SearchMode.HYBRID:
            t = time.perf_counter()
            channels['graph'] = self._graph_channel(req.query, scopes, flt, req.hops, depth)
            latency['graph'] = latency.get('graph', 0.0) + _ms(t)
        t = time.perf_counter()
        lists = {name: [(p.id, p.score) for p in points] for name, points in channels.items()}
        fuse = rrf if req.fusion == FusionMethod.RRF else weighted_merge
        fused = fuse(lists)
        latency['fuse'] = latency.get('fuse', 0.0) + _ms(t)
        return channels, fused

    def _graph_channel(
        self, query: str, scopes: list[str], flt: PointFilter, hops: int, depth: int
    ) -> list[ScoredPoint]:
        assert self._graph is not None
        try:
            related = self._graph.related_chunks(query, scopes, hops, depth)
        except Exception:  # the graph is an extra channel: recall must not fail with it
            log.exception('graph channel failed; answering without it')
            return []
        if not related:
            return []
        found = self._vectors.retrieve(MEMORIES, [r.id for r in related])
        payloads = {p.id: p.payload for p in found}
        return [
            ScoredPoint(id=r.id, score=r.score, payload=payloads[r.id])
            for r in related
            if r.id in payloads and matches(payloads[r.id], flt)
        ]

    def _rank(
        self, req: SearchRequest, fused: list[Fused], payloads: dict[str, dict[str, Any]]
    ) -> tuple[list[Hit], str]:
        moment = self._clock.now()
        now = to_epoch(moment)
        best_by_text: dict[str, Hit] = {}
        # only the head of the fused list can reach top_k after boosts; building models for the
        # whole candidate depth would cost more than the store queries themselves
        window = fused[: max(req.top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)]
        for item in window:
            payload = payloads.get(item.id)
            if payload is None:
                continue
            expires = payload.get('expires_at')
            if isinstance(expires, int | float) and expires <= now:
                continue
            chunk = Chunk.from_payload(payload)
            components = {f'{k}_rank': float(v) for k, v in item.ranks.items()}
            components.update({k: round(v, 6) for k, v in item.channel_scores.items()})
            components['fused'] = item.score
            # the fused rank stays dominant: decay, importance and pinning move a hit by at
            # most ~10%, enough to reorder near-ties (recall.decay.multiplier)
            lift = multiplier(chunk, moment)
            score = item.score * lift
            components['relevance'] = round(relevance(chunk, moment), 6)
            components['decay_multiplier'] = round(lift, 6)
            if req.user_id is not None and chunk.user_id == req.user_id:
                score *= USER_BOOST
                components['user_boost'] = USER_BOOST
            hit = Hit(
                id=chunk.id,
                text=chunk.text,
                score=score,
                components=components,
                kind=chunk.kind,
                tier=chunk.tier,
                scope=chunk.scope,
                user_id=chunk.user_id,
                importance=chunk.importance,
                pinned=chunk.pinned,
                created_at=chunk.created_at,
                metadata=chunk.metadata,
            )
            # the user's own copy of a text wins over a shared twin of it
            twin = best_by_text.get(chunk.content_hash)
            if twin is None or hit.score > twin.score:
                best_by_text[chunk.content_hash] = hit
        ranked = sorted(best_by_text.values(), key=lambda h: (-h.score, h.id))
        return _apply_policy(ranked, payloads, req.top_k)

    # ---- access bookkeeping, off the request path ------------------------------------------

    def _touch(self, ids: list[str]) -> None:
        with self._lock:
            if self._toucher is None:
                self._toucher = threading.Thread(
                    target=self._touch_loop, name='mnemos-touch', daemon=True
                )
                self._toucher.start()
        self._touches.put(ids)

    def _touch_loop(self) -> None:
        while True:
            ids = self._touches.get()
            if ids is None:
                return
            try:
                self._writer.touch(ids)
            except Exception:
                log.exception('could not record access to %d memories', len(ids))

    def close(self) -> None:
        """Stop the access-bookkeeping thread after it drains."""
        with self._lock:
            toucher, self._toucher = self._toucher, None
        if toucher is not None:
            self._touches.put(None)
            toucher.join(timeout=5)


def _apply_filters(flt: PointFilter, filters: SearchFilters) -> None:
    if filters.kinds:
        flt.any_of['kind'] = [k.value for k in filters.kinds]
    if filters.tiers:
        flt.any_of['tier'] = [t.value for t in filters.tiers]
    if filters.user_id is not None:
        flt.any_of['user_id'] = [filters.user_id]
    if filters.tags:
        flt.any_of['tags'] = list(filters.tags)
    if filters.pinned is not None:
        flt.any_of['pinned'] = [filters.pinned]
    if filters.created_after or filters.created_before:
        if (
            filters.created_after
            and filters.created_before
            and filters.created_after > filters.created_before
        ):
            raise InvalidInput('filters.created_after', 'must not be after created_before')
        flt.ranges['created_at'] = Range(
            gte=to_epoch(filters.created_after) if filters.created_after else None,
            lte=to_epoch(filters.created_before) if filters.created_before else None,
        )


def _weak(channels: dict[str, list[ScoredPoint]]) -> bool:
    """Nothing but a distant dense neighbour: not worth answering from alone."""
    if channels.get('bm25') or channels.get('graph'):
        return False
    dense = channels.get('dense') or []
    return not dense or dense[0].score < WEAK_DENSE_COSINE


# fail-open order of importance labels (seed 004): must+nice, then unknown, then ignore
POLICY_STEPS: tuple[tuple[str, frozenset[str]], ...] = (
    ('must+nice', frozenset({ImportanceLabel.MUST_REMEMBER, ImportanceLabel.NICE_TO_HAVE})),
    ('unknown', frozenset({ImportanceLabel.UNKNOWN})),
    ('ignore', frozenset({ImportanceLabel.IGNORE})),
)


def _apply_policy(
    ranked: list[Hit], payloads: dict[str, dict[str, Any]], top_k: int
) -> tuple[list[Hit], str]:
    """Admit labels step by step until top_k hits are found; one store query serves all steps."""
    chosen: list[Hit] = []
    names: list[str] = []
    for name, labels in POLICY_STEPS:
        names.append(name)
        chosen.extend(
            h
            for h in ranked
            if payloads[h.id].get('importance_label', ImportanceLabel.UNKNOWN) in labels
        )
        if len(chosen) >= top_k:
            break
    chosen.sort(key=lambda h: (-h.score, h.id))
    return chosen[:top_k], '+'.join(names)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
