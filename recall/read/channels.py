"""The channels of one search: candidate lists per channel, the conversation context and the
graph channel, fused into a preliminary order.

A hybrid search runs two engines that release the GIL: the dense side (query embedding in
onnxruntime, then a Qdrant query) goes to a spare thread when one is idle and no other search is
in flight (`core.overlap`) while the request's thread runs the BM25 query and reads its
candidates' neighbouring turns; otherwise the steps run one after the other, as they always
did. `recall.read.ranking` ranks what this module finds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from core.overlap import Deferred, Overlap
from recall.models import ANY_USER, EPISODES, MEMORIES
from recall.ports import GraphIndex
from recall.read.context import CONTEXT_DEPTH, context_list, neighbours_of, query_terms
from recall.read.evidence import GraphVerdict, slot_verdict
from recall.read.filters import apply_search_filters
from recall.read.fusion import Fused, FusionConfig, fuse, graph_weight
from recall.read.slots import is_cjk
from recall.read.ties import stable_top
from recall.read.weights import CANDIDATE_FACTOR, MAX_CANDIDATES, MIN_CANDIDATES
from recall.schemas import SearchMode, SearchRequest
from recall.tiers import Kind, Trust
from vectors.filtering import matcher, matches
from vectors.models import Channel, PointFilter, ScoredPoint, StoredPoint, scored_point
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)


# Found is a dataclass, not a model: it holds models and payloads that are valid already, and
# validating them again would copy every payload dict, a visible share of a search's GIL-held
# time under load
@dataclass(frozen=True, slots=True)
class Found:
    """What the channels found in a set of scopes: lists, the fused order, every payload."""

    channels: dict[str, list[ScoredPoint]]
    fused: list[Fused]
    payloads: dict[str, dict[str, Any]]
    # a context-channel candidate -> the hits it neighbours (it shares their confidence)
    lent_by: dict[str, list[str]]
    # the graph's slot evidence: factors on scores, relevance it vouches for (recall.read.evidence)
    graph: GraphVerdict = field(default_factory=GraphVerdict)
    # each candidate's turn speaker (recall.speakers.turn_speaker) as this search has read it:
    # the context channel reads it of the neighbours it links, the ranking of every candidate
    speakers: dict[str, str | None] = field(default_factory=dict)


def recallable(scopes: list[str] | None) -> PointFilter:
    """The memories of `scopes` (None: every scope) a default search may return: not
    quarantined, not superseded, not staged by a document index still under way."""
    return PointFilter(
        scopes=scopes,
        none_of={'trust': [Trust.QUARANTINED.value], 'superseded': [True], 'staged': [True]},
    )


def search_filter(req: SearchRequest, scopes: list[str]) -> PointFilter:
    """The store filter every channel of a search shares: its scopes, no quarantined (nor,
    unless asked, superseded) memories, the caller's own and user-less ones, and the request's
    filters."""
    flt = recallable(scopes)
    if req.include_superseded:
        del flt.none_of['superseded']
    if req.user_id is not None:
        # the caller's own memories and user-less ones; other users' stay private
        flt.any_of['owner'] = [req.user_id, ANY_USER]
    apply_search_filters(flt, req.filters)
    return flt


class ChannelReader:
    """Reads a search's channels over the VectorStore port (and the graph, on its owner)."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        *,
        graph: GraphIndex | None = None,
        overlap_threads: int = 0,
    ) -> None:
        """`overlap_threads` spare threads run a search's dense side beside its lexical side
        while one is idle and no other search runs; 0 runs them one after the other."""
        self._vectors = vectors
        self._embedder = embedder
        self._sparse = sparse
        self._graph = graph
        self._overlap = Overlap(overlap_threads, 'recall-overlap')

    def searching(self) -> AbstractContextManager[None]:
        """Mark a search in flight for its whole run: a search's dense side goes to a spare
        thread only while no other search runs (core.overlap)."""
        return self._overlap.caller()

    def encode(self, req: SearchRequest, latency: dict[str, float]) -> dict[Channel, Deferred[Any]]:
        """The query's vector per channel. The dense one is embedded when first asked for, by
        the dense channel's step (on a spare thread when one is idle), so the embedding overlaps
        the BM25 query instead of preceding it."""
        out: dict[Channel, Deferred[Any]] = {}
        if req.mode in (SearchMode.HYBRID, SearchMode.DENSE):

            def embed() -> list[float]:
                t = time.perf_counter()
                vector = self._embedder.embed_query(req.query)
                latency['embed'] = _ms(t)
                return vector

            out['dense'] = Deferred(embed)
        if req.mode in (SearchMode.HYBRID, SearchMode.BM25):
            t = time.perf_counter()
            sparse = self._sparse.encode_query(req.query)
            if is_cjk(query_terms(req.query)):
                # a store mostly of another language makes every Chinese character look rare,
                # function characters (我, 的, 是) nearly as rare as content ones: a Chinese
                # query's IDF is counted over the scopes it searches
                sparse = sparse.model_copy(update={'scoped_idf': True})
            latency['encode_bm25'] = _ms(t)
            if sparse.indices:
                out['bm25'] = Deferred(lambda: sparse)
        return out

    def _query(
        self,
        collection: str,
        name: Channel,
        vector: Deferred[Any],
        flt: PointFilter,
        depth: int,
        latency: dict[str, float],
        label: str,
    ) -> list[ScoredPoint]:
        value = vector.get()
        t = time.perf_counter()
        # ties cut and ordered by id, not as the store's segments happen to return them
        points = stable_top(partial(self._vectors.query, collection, name, value, flt), depth)
        # each label is written by one thread only: the threads of a search never share a key
        latency[label] = latency.get(label, 0.0) + _ms(t)
        return points

    def read(
        self,
        req: SearchRequest,
        recipe: FusionConfig,
        scopes: list[str],
        vectors: dict[Channel, Deferred[Any]],
        latency: dict[str, float],
    ) -> Found:
        """Every channel the request and recipe ask for over `scopes`, the context channel's
        neighbouring turns, the graph channel on the graph's owner, and their preliminary fused
        order; each stage's wall time is added to `latency`."""
        flt = search_filter(req, scopes)
        depth = min(MAX_CANDIDATES, max(MIN_CANDIDATES, req.top_k * CANDIDATE_FACTOR))
        hybrid = req.mode == SearchMode.HYBRID
        context = hybrid and recipe.weight('context') > 0
        channels, early = self._vector_channels(vectors, flt, depth, context, latency)
        # ---- episodes (L1): the `episodic` kind also reads the `episodes` collection,
        # whose payloads carry the chunk fields this filter and the ranking use; fused as channels
        if req.filters.kinds and Kind.EPISODIC in req.filters.kinds:
            for name in vectors:
                label = f'episodes_{name}'
                channels[label] = self._query(
                    EPISODES, name, vectors[name], flt, depth, latency, label
                )
        payloads = {p.id: p.payload for points in channels.values() for p in points}
        lent_by: dict[str, list[str]] = {}
        speakers: dict[str, str | None] = {}
        if context:
            t = time.perf_counter()
            lent_by = self._context_channel(channels, flt, payloads, early, depth, speakers)
            latency['context'] = latency.get('context', 0.0) + _ms(t)
        graph_on = self._graph is not None and hybrid and recipe.weight('graph') > 0
        if graph_on:
            t = time.perf_counter()
            channels['graph'] = self._graph_channel(
                req.query, scopes, flt, req.hops, depth, payloads
            )
            payloads.update({p.id: p.payload for p in channels['graph']})
            latency['graph'] = latency.get('graph', 0.0) + _ms(t)
        t = time.perf_counter()
        fused = _fuse(req, recipe, channels)
        latency['fuse'] = latency.get('fuse', 0.0) + _ms(t)
        verdict = GraphVerdict()
        if graph_on or (self._graph is not None and hybrid and _evidence(req, recipe)):
            t = time.perf_counter()
            verdict = self._slot_verdict(req, scopes, flt, payloads, fused)
            latency['graph'] = latency.get('graph', 0.0) + _ms(t)
        return Found(
            channels=channels,
            fused=fused,
            payloads=payloads,
            lent_by=lent_by,
            graph=verdict,
            speakers=speakers,
        )

    def _vector_channels(
        self,
        vectors: dict[Channel, Deferred[Any]],
        flt: PointFilter,
        depth: int,
        context: bool,
        latency: dict[str, float],
    ) -> tuple[dict[str, list[ScoredPoint]], dict[str, dict[str, Any]]]:
        """Each vector channel's candidates, and the payloads of the neighbours of this
        thread's candidates when they could be read while the dense side ran."""
        names = list(vectors)
        # the dense side (embedding + query) goes to a spare thread if one is idle and this
        # search is alone (see `searching`), while this thread queries BM25; both engines
        # release the GIL, so the two overlap on two cores
        pending = {
            name: self._overlap.start(
                partial(self._query, MEMORIES, name, vectors[name], flt, depth, latency, name)
            )
            for name in names[:-1]
        }
        here = {
            name: self._query(MEMORIES, name, vectors[name], flt, depth, latency, name)
            for name in names[-1:]
        }
        early: dict[str, dict[str, Any]] = {}
        if context and any(p.on_spare_thread for p in pending.values()):
            # while the dense side still runs, read the neighbours of this thread's candidates
            t = time.perf_counter()
            early = self._neighbour_payloads(
                [p for points in here.values() for p in points[:CONTEXT_DEPTH]],
                {p.id for points in here.values() for p in points},
                flt,
            )
            latency['context'] = latency.get('context', 0.0) + _ms(t)
        channels: dict[str, list[ScoredPoint]] = {
            name: pending[name].get() if name in pending else here[name] for name in names
        }
        return channels, early

    def _context_channel(
        self,
        channels: dict[str, list[ScoredPoint]],
        flt: PointFilter,
        payloads: dict[str, dict[str, Any]],
        early: dict[str, dict[str, Any]],
        depth: int,
        speakers: dict[str, str | None],
    ) -> dict[str, list[str]]:
        """Add the context channel (the strongest candidates' neighbouring turns) to
        `channels`; returns each neighbour's lenders (the hits it neighbours). `speakers`
        gains the turn speaker of each payload the links read."""
        neighbours = self.neighbours(channels, flt, payloads, early, speakers)
        sources: dict[str, list[tuple[str, float]]] = {
            n: [(p.id, p.score) for p in channels[n]] for n in ('bm25', 'dense') if n in channels
        }
        channels['context'] = [
            scored_point(ident, score, payloads[ident])
            for ident, score in context_list(sources, neighbours)[:depth]
        ]
        lent_by: dict[str, list[str]] = {}
        for source, others in neighbours.items():
            for other in others:
                lent_by.setdefault(other, []).append(source)
        return lent_by

    def _slot_verdict(
        self,
        req: SearchRequest,
        scopes: list[str],
        flt: PointFilter,
        payloads: dict[str, dict[str, Any]],
        fused: list[Fused],
    ) -> GraphVerdict:
        assert self._graph is not None
        try:
            return slot_verdict(
                self._graph, self._vectors, req.query, scopes, req.user_id, flt, payloads, fused
            )
        except Exception:  # the graph is an extra channel: recall must not fail with it
            log.exception('graph slot evidence failed; answering without it')
            return GraphVerdict()

    def neighbours(
        self,
        channels: dict[str, list[ScoredPoint]],
        flt: PointFilter,
        payloads: dict[str, dict[str, Any]],
        early: dict[str, dict[str, Any]] | None = None,
        speakers: dict[str, str | None] | None = None,
    ) -> dict[str, list[str]]:
        """The memories written just before and after the strongest candidates, same session.

        Both come by id in one retrieve (`prev_id`, `next_id`), less those `early` holds
        already (read while the dense side ran); only payloads written before `next_id` existed
        (no such key) are looked up by their successors' `prev_id`.
        """
        strongest = [
            p for name in ('bm25', 'dense') for p in channels.get(name, [])[:CONTEXT_DEPTH]
        ]
        ids = list(dict.fromkeys(p.id for p in strongest))
        if not ids:
            return {}
        legacy = [i for i in ids if 'next_id' not in payloads[i]]
        after: list[StoredPoint] = []
        if legacy:
            following = flt.model_copy(deep=True)
            following.any_of['prev_id'] = list[str | bool | int](legacy)
            after, _ = self._vectors.scroll(MEMORIES, following, 2 * len(legacy))
        for point in after:
            if matches(point.payload, flt):
                payloads.setdefault(point.id, point.payload)
        for ident, payload in (early or {}).items():
            payloads.setdefault(ident, payload)
        for ident, payload in self._neighbour_payloads(strongest, set(payloads), flt).items():
            payloads.setdefault(ident, payload)
        legacy_next = {p.id: str(p.payload.get('prev_id')) for p in after}
        return neighbours_of(ids, payloads, legacy_next, speakers)

    def _neighbour_payloads(
        self, points: Sequence[ScoredPoint], known: set[str], flt: PointFilter
    ) -> dict[str, dict[str, Any]]:
        """The payloads, by id, of these candidates' linked neighbours (`prev_id`, `next_id`)
        that `known` lacks and that pass `flt`: one retrieve."""
        links = [p.payload.get(key) for p in points for key in ('prev_id', 'next_id')]
        wanted = list(dict.fromkeys(str(n) for n in links if n and n not in known))
        fetched = self._vectors.retrieve(MEMORIES, wanted) if wanted else []
        holds = matcher(flt)
        return {p.id: p.payload for p in fetched if holds(p.payload)}

    def _graph_channel(
        self,
        query: str,
        scopes: list[str],
        flt: PointFilter,
        hops: int,
        depth: int,
        known: dict[str, dict[str, Any]],
    ) -> list[ScoredPoint]:
        assert self._graph is not None
        try:
            related = self._graph.related_chunks(query, scopes, hops, depth)
        except Exception:  # the graph is an extra channel: recall must not fail with it
            log.exception('graph channel failed; answering without it')
            return []
        if not related:
            return []
        # the other channels' candidates already carry their payloads (and passed `flt`)
        missing = [r.id for r in related if r.id not in known]
        found = self._vectors.retrieve(MEMORIES, missing) if missing else []
        payloads = {p.id: p.payload for p in found if matches(p.payload, flt)}
        payloads.update({r.id: known[r.id] for r in related if r.id in known})
        return [scored_point(r.id, r.score, payloads[r.id]) for r in related if r.id in payloads]

    def close(self) -> None:
        """Let the spare threads finish what they run."""
        self._overlap.close()


def _fuse(
    req: SearchRequest, recipe: FusionConfig, channels: dict[str, list[ScoredPoint]]
) -> list[Fused]:
    """The preliminary fused order of the channels' lists under the recipe's weights."""
    hybrid = req.mode == SearchMode.HYBRID
    lists = {name: [(p.id, p.score) for p in points] for name, points in channels.items()}
    weights = {name: recipe.weight(name) if hybrid else 1.0 for name in lists}
    if 'graph' in lists:
        weights['graph'] = graph_weight(weights['graph'], lists['graph'])
    method = req.fusion.value if req.fusion is not None else recipe.method
    # the learned model ranks later (recall.read.ranking); RRF gives the preliminary order
    return fuse(lists, 'rrf' if method == 'learned' else method, weights)


def _evidence(req: SearchRequest, recipe: FusionConfig) -> bool:
    """Whether a search reads the graph's slot evidence without the graph channel's list."""
    return recipe.slot_evidence and req.graph is not False


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
