"""RecallService: reads memories and answers `memory_search` over the VectorStore port.

Writes go through `recall.write.writer.MemoryWriter`, the one writer of `memories`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from core.auth import Principal
from core.clock import Clock, to_epoch
from core.errors import NotFound, StoreUnavailable
from core.scopes import GLOBAL
from recall.abstracts import abstract, overview
from recall.decay import multiplier, relevance
from recall.models import MEMORIES, Chunk
from recall.ports import GraphIndex
from recall.read.channels import ChannelReader, Found, search_filter
from recall.read.context import (
    confidence,
    query_names,
    query_period,
    query_terms,
    turn_speaker,
)
from recall.read.fusion import (
    DEFAULT_FUSION,
    LEARNED_CHANNELS,
    FusionConfig,
    feature_matrix,
    learned_head,
    learned_scores,
    shipped_model,
)
from recall.read.history import not_then, past_period
from recall.read.policy import apply_policy
from recall.read.touches import AccessRecorder
from recall.schemas import (
    ChunkOut,
    Hit,
    Receipt,
    SearchMode,
    SearchRequest,
    SearchResponse,
    Stats,
)
from recall.tiers import Kind, Trust
from recall.write.supersession import Supersession
from recall.write.writer import MemoryWriter
from vectors.models import PointFilter
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)

USER_BOOST = 1.2
# `graph: true` on a recipe that leaves the graph out: a quarter of BM25's say
GRAPH_OPT_IN_WEIGHT = 0.25
# a team member (or a scope reading global) whose best hit is below this confidence also reads
# the fallback scopes
WEAK_CONFIDENCE = 0.5
WEAK_CHECK_DEPTH = 5
# a hit found as the neighbour of another takes this share of that hit's confidence
CONTEXT_SHARE = 0.8
# untrusted memories (tool output) rank below trusted ones on otherwise equal scores (seed 004)
UNTRUSTED_FACTOR = 0.9
RANK_WINDOW_FACTOR = 3
MIN_RANK_WINDOW = 30


# _Ranked is a dataclass, not a model: it holds models and payloads that are valid
# already, and validating them again (each payload dict copied) took ~7 % of the GIL-held time
# of a search under load (py-spy, bench/load_bench.py)
@dataclass(frozen=True, slots=True)
class _Scored:
    # a ranked candidate; only those the policy keeps become Hit models (validated once each)
    id: str
    score: float
    chunk: Chunk
    components: dict[str, float]

    def hit(self) -> Hit:
        c = self.chunk
        return Hit(
            id=c.id,
            text=c.text,
            score=self.score,
            components=self.components,
            kind=c.kind,
            tier=c.tier,
            scope=c.scope,
            user_id=c.user_id,
            importance=c.importance,
            pinned=c.pinned,
            created_at=c.created_at,
            metadata=c.metadata,
            superseded_by=c.superseded_by,
            supersession=Supersession.model_validate(c.supersession) if c.supersession else None,
            stale=[Supersession.model_validate(r) for r in c.stale],
        )


@dataclass(frozen=True, slots=True)
class _Ranked:
    hits: list[_Scored]
    below_floor: int
    factors: dict[str, dict[str, float]]
    speakers: frozenset[str]


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
        writer: MemoryWriter,
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
        self._clock = clock
        self._writer = writer
        self._graph = graph
        self._touches = AccessRecorder(writer.touch)
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
        too when the caller's own hits are weak (recall.read.context confidence)."""
        with self._turns, self._reader.searching():
            return self._search(req, principal)

    def _search(self, req: SearchRequest, principal: Principal) -> SearchResponse:
        started = time.perf_counter()
        latency: dict[str, float] = {}
        principal.require_read(req.scope)
        # a question about a time that has ended also reads the memories replaced since
        period = None if req.include_superseded else past_period(req.query, self._clock.now())
        if period is not None:
            req = req.model_copy(update={'include_superseded': True})
        recipe = self._recipe(req)
        query_vectors = self._reader.encode(req, latency)
        terms = query_terms(req.query)
        scopes = [req.scope]
        found = self._reader.read(req, recipe, scopes, query_vectors, latency)
        fallback: str | None = None
        if (
            req.scope != GLOBAL
            and principal.can_read(GLOBAL)
            and self._weak(found, terms)
            and self._holds_any(req, [GLOBAL])
        ):
            # global is merged with the caller's own hits, which still compete
            wider = self._reader.read(req, recipe, [req.scope, GLOBAL], query_vectors, latency)
            if any(p.get('scope') == GLOBAL for p in wider.payloads.values()):
                found, scopes, fallback = wider, [req.scope, GLOBAL], 'global'
        if (
            principal.leader_scopes
            and self._weak(found, terms)
            and self._holds_any(req, list(principal.leader_scopes))
        ):
            # a member with nothing (or nothing convincing) reads its leaders' memory, merged
            # with what it has, so its own hits still compete
            scopes = [*scopes, *principal.leader_scopes]
            found = self._reader.read(req, recipe, scopes, query_vectors, latency)
            fallback = 'team_leader'

        t = time.perf_counter()
        floor = req.min_score if req.min_score is not None else recipe.min_score
        ranked = self._rank(req, recipe, found, terms, floor)
        if period is not None:
            gone = not_then([h.chunk for h in ranked.hits], period, self._vectors)
            ranked.hits[:] = [h for h in ranked.hits if h.id not in gone]
        chosen, policy_tier = apply_policy(ranked.hits, found.payloads, req.top_k)
        hits = [c.hit() for c in chosen]
        latency['rank'] = _ms(t)
        if hits and req.touch:
            self._touches.add([h.id for h in hits], [h.scope for h in hits])
        latency['total'] = _ms(started)
        receipt = Receipt(
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
        if req.abstracts:
            hits = [
                h.model_copy(update={'abstract': abstract(h.text), 'overview': overview(h.text)})
                for h in hits
            ]
        return SearchResponse(hits=hits, receipt=receipt)

    def _recipe(self, req: SearchRequest) -> FusionConfig:
        weights = dict(self._fusion.weights)
        if req.graph is True and weights.get('graph', 0.0) <= 0:
            weights['graph'] = GRAPH_OPT_IN_WEIGHT
        elif req.graph is False:
            weights['graph'] = 0.0
        weights.update({str(k): v for k, v in (req.weights or {}).items()})
        return self._fusion.model_copy(update={'weights': weights})

    def _weak(self, found: Found, terms: list[str]) -> bool:
        """Nothing, or nothing convincing: the best few candidates all have low confidence."""
        dense = {p.id: p.score for p in found.channels.get('dense', [])}
        for item in found.fused[:WEAK_CHECK_DEPTH]:
            payload = found.payloads.get(item.id)
            if payload is None:
                continue
            text = str(payload.get('text', ''))
            if confidence(terms, text, dense.get(item.id)) >= WEAK_CONFIDENCE:
                return False
        return True

    def _holds_any(self, req: SearchRequest, scopes: list[str]) -> bool:
        """Whether these scopes hold a memory this search could find: a fallback to scopes
        that hold none would run every channel again for nothing (one search in ten on LoCoMo
        questions over a 100k store with an empty `global`: a second pass of ~15 ms)."""
        points, _ = self._vectors.scroll(MEMORIES, search_filter(req, scopes), 1)
        return bool(points)

    def _rank(
        self,
        req: SearchRequest,
        recipe: FusionConfig,
        found: Found,
        terms: list[str],
        floor: float,
    ) -> _Ranked:
        moment = self._clock.now()
        now = to_epoch(moment)
        payloads = found.payloads
        dense = {p.id: p.score for p in found.channels.get('dense', [])}
        # only dialogue turns have a speaker: not field notes, nor a user's every note
        spoken = {f.id: turn_speaker(payloads[f.id]) for f in found.fused if f.id in payloads}
        named = query_names(req.query, {s for s in spoken.values() if s})
        period = query_period(req.query, moment)
        own: dict[str, float] = {}

        def sure(ident: str) -> float:
            if ident not in own:
                text = str(payloads[ident].get('text', ''))
                own[ident] = confidence(terms, text, dense.get(ident))
            return own[ident]

        def cheap(ident: str) -> dict[str, float]:
            payload = payloads[ident]
            # a dialogue turn the question's subject spoke (spoken: turns only)
            said = spoken.get(ident) in named
            return {
                'speaker_named': 1.0 if said else 0.0,
                'date_match': 1.0 if period and period.holds(payload.get('created_at')) else 0.0,
            }

        def signals(ident: str) -> dict[str, float]:
            # a turn found through its neighbour shares in the neighbour's confidence
            lenders = [sure(i) for i in found.lent_by.get(ident, ()) if i in payloads]
            # and in the relevance the graph vouches for (recall.read.evidence)
            vouched = found.graph.sure.get(ident, 0.0)
            return {
                **cheap(ident),
                'confidence': max([sure(ident), vouched, *(CONTEXT_SHARE * c for c in lenders)]),
            }

        ids = [f.id for f in found.fused if f.id in payloads]
        model = shipped_model() if self._learned(req, recipe, found) else None
        extras: dict[str, dict[str, float]] = {}
        # only the head of the order can reach top_k after boosts; building models for the
        # whole candidate depth would cost more than the store queries themselves
        size = max(req.top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)
        if model is not None:
            # a logistic model over every candidate's channel features and signals; its
            # probability of relevance is the fused score
            lists = {c: [(p.id, p.score) for p in pts] for c, pts in found.channels.items()}
            if req.explain:
                extras = {i: signals(i) for i in ids}
                probability = learned_scores(model, feature_matrix(ids, lists, extras))
                base = {i: float(p) for i, p in zip(ids, probability, strict=True)}
            else:
                # only candidates that can reach the window get the costly signals
                base, extras = learned_head(model, ids, lists, size, cheap, signals)
            order = sorted(base, key=lambda i: (-base[i], i))
        else:
            base = {f.id: f.score for f in found.fused}
            order = ids
        # the graph's slot evidence (recall.read.evidence); a chunk it says holds is ranked even
        # when it would sit below the window
        base, moved = found.graph.lift(base)
        window = order[:size] + [i for i in order[size:] if i in found.graph.sure]
        in_window = set(window)
        fused_by_id = {f.id: f for f in found.fused}
        factors: dict[str, dict[str, float]] = {}
        best_by_text: dict[str, _Scored] = {}
        below = 0
        less_trusted: set[str] = set()
        # `mode: bm25` / `dense` show the channel as it ranks: no boosts, decay or factors
        pure = req.mode != SearchMode.HYBRID
        for ident in order if req.explain else window:
            payload = payloads[ident]
            expires = payload.get('expires_at')
            if isinstance(expires, int | float) and expires <= now:
                continue
            signal = extras.get(ident) or signals(ident)
            if not req.explain and signal['confidence'] < floor:
                below += 1  # only window ids get here; building its chunk would be wasted
                continue
            chunk = Chunk.from_payload(payload)
            # the fused rank stays dominant: decay, importance and pinning move a hit by at
            # most ~10%, enough to reorder near-ties (recall.decay.multiplier)
            rel = relevance(chunk, moment)
            lift = multiplier(chunk, moment, rel=rel)
            # the learned model has already weighed speaker and date
            spoke = 1.0 + recipe.speaker_boost * signal['speaker_named'] if model is None else 1.0
            when = 1.0 + recipe.date_boost * signal['date_match'] if model is None else 1.0
            user = USER_BOOST if req.user_id is not None and chunk.user_id == req.user_id else 1.0
            graph = moved.get(ident, 1.0)
            trusted = UNTRUSTED_FACTOR if chunk.trust != Trust.TRUSTED else 1.0
            if req.explain:
                factors[ident] = {
                    'decay_multiplier': round(lift, 6),
                    'user_boost': user,
                    'trust_factor': trusted,
                    **{k: round(v, 4) for k, v in signal.items()},
                }
            if ident not in in_window:
                continue
            if signal['confidence'] < floor:
                below += 1
                continue
            item = fused_by_id[ident]
            components = {f'{k}_rank': float(v) for k, v in item.ranks.items()}
            components.update({k: round(v, 6) for k, v in item.channel_scores.items()})
            components['fused'] = base[ident]
            components['relevance'] = round(rel, 6)
            components['decay_multiplier'] = round(lift, 6)
            components['confidence'] = round(signal['confidence'], 4)
            if model is not None:
                components['learned'] = 1.0
            for name, value in (
                ('speaker_boost', spoke),
                ('date_boost', when),
                ('user_boost', user),
                ('trust_factor', trusted),
                ('graph_factor', graph),
            ):
                if value != 1.0 and not pure:
                    components[name] = value
            factor = 1.0 if pure else lift * spoke * when * user * trusted
            hit = _Scored(
                id=chunk.id,
                score=base[ident] * factor,
                chunk=chunk,
                components=components,
            )
            # the user's own copy of a text wins over a shared twin of it
            if trusted != 1.0:
                less_trusted.add(hit.id)
            twin = best_by_text.get(chunk.content_hash)
            if twin is None or (hit.score, twin.id in less_trusted) > (twin.score, False):
                best_by_text[chunk.content_hash] = hit
        # on equal scores trusted memories rank first (seed 004)
        ranked = sorted(best_by_text.values(), key=lambda h: (-h.score, h.id in less_trusted, h.id))
        return _Ranked(hits=ranked, below_floor=below, factors=factors, speakers=named)

    @staticmethod
    def _learned(req: SearchRequest, recipe: FusionConfig, found: Found) -> bool:
        """The learned model ranks hybrid searches over the channels it was fitted on."""
        method = req.fusion.value if req.fusion is not None else recipe.method
        return (
            method == 'learned'
            and req.mode == SearchMode.HYBRID
            # the graph speaks through its slot evidence, not as a channel of the model
            and all(c in LEARNED_CHANNELS or c == 'graph' for c in found.channels)
        )

    def close(self) -> None:
        """Stop the access-bookkeeping thread after it drains, and the spare search threads."""
        self._touches.close()
        self._reader.close()


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
