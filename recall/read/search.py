"""Searcher: a search from its request to its ranked hits.

The stages, in order: the recipe (the request's fusion weights over the service's), the query's
vectors, the channels over the caller's scope (`recall.read.channels`), a wider read when the
caller's own hits are weak (`global`, then a team leader's scopes), the ranking
(`recall.read.ranking`), the memories that did not hold in a past period the question names
(`recall.read.history`), the recall policy (`recall.read.policy`) and the receipt.
"""

from __future__ import annotations

import threading
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from core.auth import Principal
from core.clock import Clock
from core.overlap import Deferred
from core.scopes import GLOBAL
from recall.access.recorder import AccessRecorder
from recall.models import MEMORIES
from recall.ports import GraphIndex
from recall.read.abstracts import abstract, overview
from recall.read.channels import ChannelReader, Found, search_filter
from recall.read.context import calibrated_cosine, coverage, query_terms, written_in_chinese
from recall.read.fusion import FusionConfig
from recall.read.history import asks_earlier, not_then, past_period
from recall.read.policy import apply_policy
from recall.read.ranking import Ranked, en_reach, rank
from recall.read.slots import is_cjk
from recall.read.weights import GRAPH_OPT_IN_WEIGHT, WEAK_CHECK_DEPTH, WEAK_CONFIDENCE
from recall.schemas import Hit, Receipt, SearchMode, SearchRequest, SearchResponse
from vectors.models import Channel
from vectors.ports import Embedder, SparseEncoder, VectorStore


class Searcher:
    """Hybrid recall over the VectorStore port (and the graph, on its owner) with receipts."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        clock: Clock,
        touches: AccessRecorder,
        *,
        graph: GraphIndex | None = None,
        fusion: FusionConfig,
        overlap_threads: int = 0,
        concurrency: int = 0,
    ) -> None:
        """`touches` counts the hits of a search that asks for it. `overlap_threads` spare
        threads run a search's dense side beside its lexical side (recall.read.channels); at
        most `concurrency` searches run at once (0: any number)."""
        self._vectors = vectors
        self._clock = clock
        self._touches = touches
        self._fusion = fusion
        # a search is mostly Python under the GIL: run side by side, searches interleave every
        # switch interval and each waits for the GIL after every native call, which costs more
        # CPU than the overlap gives back; waiting on a semaphore costs none
        self._turns: AbstractContextManager[object] = (
            threading.BoundedSemaphore(concurrency) if concurrency > 0 else nullcontext()
        )
        self._reader = ChannelReader(
            vectors, embedder, sparse, graph=graph, overlap_threads=overlap_threads
        )

    def search(self, req: SearchRequest, principal: Principal) -> SearchResponse:
        """Hybrid recall in the caller's scope; `global`, then a team leader's scopes, are read
        too when the caller's own hits are weak (`_convincing`)."""
        with self._turns, self._reader.searching():
            return self._search(req, principal)

    def _search(self, req: SearchRequest, principal: Principal) -> SearchResponse:
        started = time.perf_counter()
        latency: dict[str, float] = {}
        principal.require_read(req.scope)
        # a question about a time that has ended also reads the memories replaced since
        period = None if req.include_superseded else past_period(req.query, self._clock.now())
        if period is not None or (not req.include_superseded and asks_earlier(req.query)):
            req = req.model_copy(update={'include_superseded': True})
        recipe = self._recipe(req)
        query_vectors = self._reader.encode(req, latency)
        terms = query_terms(req.query)
        floor = _floor(req, recipe)
        found, scopes, fallback = self._read(
            req, principal, recipe, query_vectors, terms, floor, latency
        )
        t = time.perf_counter()
        ranked = rank(req, recipe, found, terms, floor, self._clock.now())
        if period is not None:
            gone = not_then([h.chunk for h in ranked.hits], period, self._vectors)
            ranked.hits[:] = [h for h in ranked.hits if h.id not in gone]
        chosen, policy_tier = apply_policy(ranked.hits, found.payloads, req.top_k)
        hits = [c.hit() for c in chosen]
        latency['rank'] = _ms(t)
        if hits and req.touch:
            self._touches.add([h.id for h in hits], [h.scope for h in hits])
        latency['total'] = _ms(started)
        receipt = _receipt(req, found, ranked, hits, scopes, fallback, policy_tier, floor, latency)
        if req.abstracts:
            hits = [
                h.model_copy(update={'abstract': abstract(h.text), 'overview': overview(h.text)})
                for h in hits
            ]
        return SearchResponse(hits=hits, receipt=receipt)

    def _read(
        self,
        req: SearchRequest,
        principal: Principal,
        recipe: FusionConfig,
        query_vectors: dict[Channel, Deferred[Any]],
        terms: list[str],
        floor: float,
        latency: dict[str, float],
    ) -> tuple[Found, list[str], str | None]:
        """The channels over the caller's scope, widened to the fallback scopes when its own
        hits are weak: what they found, the scopes read and the fallback taken."""
        scopes = [req.scope]
        found = self._reader.read(req, recipe, scopes, query_vectors, latency)
        fallback: str | None = None
        if (
            req.scope != GLOBAL
            and principal.can_read(GLOBAL)
            and self._weak(found, terms, floor)
            and self._holds_any(req, [GLOBAL])
        ):
            # global is merged with the caller's own hits, which still compete
            wider = self._reader.read(req, recipe, [req.scope, GLOBAL], query_vectors, latency)
            if any(p.get('scope') == GLOBAL for p in wider.payloads.values()):
                found, scopes, fallback = wider, [req.scope, GLOBAL], 'global'
        if (
            principal.leader_scopes
            and self._weak(found, terms, floor)
            and self._holds_any(req, list(principal.leader_scopes))
        ):
            # a member with nothing (or nothing convincing) reads its leaders' memory, merged
            # with what it has, so its own hits still compete
            scopes = [*scopes, *principal.leader_scopes]
            found = self._reader.read(req, recipe, scopes, query_vectors, latency)
            fallback = 'team_leader'
        return found, scopes, fallback

    def _recipe(self, req: SearchRequest) -> FusionConfig:
        weights = dict(self._fusion.weights)
        if req.graph is True and weights.get('graph', 0.0) <= 0:
            weights['graph'] = GRAPH_OPT_IN_WEIGHT
        elif req.graph is False:
            weights['graph'] = 0.0
        weights.update({str(k): v for k, v in (req.weights or {}).items()})
        return self._fusion.model_copy(update={'weights': weights})

    def _weak(self, found: Found, terms: list[str], floor: float) -> bool:
        """Nothing, or nothing convincing: the best few candidates all have low confidence (below
        WEAK_CONFIDENCE, or the request's floor when higher: a hit the floor drops convinces
        nobody)."""
        bar = max(WEAK_CONFIDENCE, floor)
        dense = {p.id: p.score for p in found.channels.get('dense', [])}
        for item in found.fused[:WEAK_CHECK_DEPTH]:
            payload = found.payloads.get(item.id)
            if payload is None:
                continue
            if _convincing(terms, str(payload.get('text', '')), dense.get(item.id), bar):
                return False
        return True

    def _holds_any(self, req: SearchRequest, scopes: list[str]) -> bool:
        """Whether these scopes hold a memory this search could find: a fallback to scopes
        that hold none would run every channel again for nothing."""
        points, _ = self._vectors.scroll(MEMORIES, search_filter(req, scopes), 1)
        return bool(points)

    def close(self) -> None:
        """Let the spare search threads finish what they run."""
        self._reader.close()


def _floor(req: SearchRequest, recipe: FusionConfig) -> float:
    """The relevance floor: the request's `min_score`, else the calibrated one in hybrid mode;
    `mode: bm25` / `dense` show the channel's whole order, so they drop nothing unless asked."""
    if req.min_score is not None:
        return req.min_score
    return recipe.min_score if req.mode == SearchMode.HYBRID else 0.0


def _receipt(
    req: SearchRequest,
    found: Found,
    ranked: Ranked,
    hits: list[Hit],
    scopes: list[str],
    fallback: str | None,
    policy_tier: str | None,
    floor: float,
    latency: dict[str, float],
) -> Receipt:
    """How the search found its hits: channel heads, scopes, fallback, floor and timings."""
    return Receipt(
        channels={name: [p.id for p in points[:10]] for name, points in found.channels.items()},
        fused=[f.id for f in found.fused[:10]],
        scopes=scopes,
        fallback=fallback,
        policy_tier=policy_tier,
        skip_reason=None if hits else ('below_floor' if ranked.below_floor else 'no_match'),
        latency_ms={k: round(v, 3) for k, v in latency.items()},
        min_score=floor,
        below_floor=ranked.below_floor,
        candidates=(
            {n: [(p.id, p.score) for p in pts] for n, pts in found.channels.items()}
            if req.explain
            else None
        ),
        factors=ranked.factors if req.explain else None,
        speakers=sorted(ranked.speakers),
    )


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0


def _convincing(terms: list[str], text: str, cosine: float | None, bar: float) -> bool:
    """Whether a candidate answers the query convincingly enough that no fallback scope is read:
    it reaches `bar` as the ranking's floor answers a question at all, else a member
    holding one word of two would neither fall back to its leader nor get its own hit. English:
    its cosine, or most of the question's words (recall.read.ranking en_reach). Chinese: its
    share of the question's characters; the default embedder puts any two Chinese sentences at
    cosine 0.6-0.7, so one shared character read as certain (recall.read.ranking zh_reach)."""
    covered = coverage(terms, text)
    if is_cjk(terms):
        return covered >= bar
    read = 0.0 if written_in_chinese(text) else calibrated_cosine(cosine)
    return en_reach(covered, read, 0.0) >= bar
