"""RecallService: writes memories and answers `memory_search` over the VectorStore port."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from core.auth import Principal
from core.clock import Clock, to_epoch
from core.errors import InvalidInput, NotFound, PayloadTooLarge
from core.scopes import GLOBAL
from recall.conflicts import detect
from recall.context import (
    CONTEXT_DEPTH,
    confidence,
    context_list,
    query_names,
    query_period,
    query_terms,
    same_session,
    speaker_of,
)
from recall.decay import multiplier, next_tier, relevance
from recall.filtering import matches
from recall.fusion import (
    DEFAULT_FUSION,
    LEARNED_CHANNELS,
    Fused,
    FusionConfig,
    feature_matrix,
    fuse,
    graph_weight,
    learned_scores,
    shipped_model,
)
from recall.models import (
    ANY_USER,
    EPISODES,
    MEMORIES,
    Channel,
    Chunk,
    ChunkText,
    PointFilter,
    Range,
    ScoredPoint,
    VectorPoint,
    chunk_id,
    memories_spec,
)
from recall.normalize import content_hash, normalize_text
from recall.ports import Embedder, GraphIndex, SparseEncoder, VectorStore
from recall.schemas import (
    ChunkOut,
    Hit,
    MemoryIn,
    Receipt,
    SearchFilters,
    SearchMode,
    SearchRequest,
    SearchResponse,
    Stats,
    WriteResult,
    WriteStatus,
)
from recall.tiers import KIND_DEFAULTS, ImportanceLabel, Kind, Tier, Trust

log = logging.getLogger(__name__)

USER_BOOST = 1.2
# Channels return this many candidates per requested hit (at least MIN_CANDIDATES): RRF needs
# depth to reward ids that both channels find but neither ranks first.
CANDIDATE_FACTOR = 4
MIN_CANDIDATES = 50
MAX_CANDIDATES = 200
# dedup layer 3 and the conflict check look at this many similar memories
CONFLICT_CANDIDATES = 5
# MiniLM cosine above which two memories say the same thing
MERGE_COSINE = 0.95
CONFLICT_MIN_COSINE = 0.6
# raw notes, documents and episodes are records, not claims: only distilled kinds are merged
# semantically or superseded
DISTILLED_KINDS = frozenset(
    {
        Kind.ENTITY,
        Kind.PREFERENCE,
        Kind.FACT,
        Kind.PROJECT_STATE,
        Kind.RELATIONSHIP,
        Kind.PROCEDURE,
        Kind.REMEMBER,
        Kind.LESSON,
    }
)
LAST_IN_SCOPE_MAX = 10_000
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


class _Found(BaseModel):
    """What the channels found in a set of scopes: lists, the fused order, every payload."""

    channels: dict[str, list[ScoredPoint]]
    fused: list[Fused]
    payloads: dict[str, dict[str, Any]]
    # a context-channel candidate -> the hits it neighbours (it shares their confidence)
    lent_by: dict[str, list[str]]


class _Ranked(BaseModel):
    hits: list[Hit]
    below_floor: int
    factors: dict[str, dict[str, float]]
    speakers: frozenset[str]


def _first(item: tuple[int, Chunk]) -> int:
    return item[0]


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
        *,
        graph: GraphIndex | None = None,
        enqueue_graph: Callable[[list[str]], None] | None = None,
        max_text_bytes: int = 32 * 1024,
        fusion: FusionConfig = DEFAULT_FUSION,
    ) -> None:
        self._vectors = vectors
        self._embedder = embedder
        self._sparse = sparse
        self._clock = clock
        self._graph = graph
        # graph extraction is slower than embedding: it runs as a job when a queue is wired
        self._enqueue_graph = enqueue_graph
        self._max_text_bytes = max_text_bytes
        self._touches: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._toucher: threading.Thread | None = None
        self._lock = threading.Lock()
        self._fusion = fusion
        # the last memory written in each scope (bounded): the next one links to it as prev_id;
        # after a restart the first write of a scope starts a new thread
        self._last_in_scope: dict[str, str] = {}
        vectors.ensure_collection(memories_spec(embedder.dim))

    # ---- writes ---------------------------------------------------------------------------

    def check_text(self, text: str, field: str = 'text') -> None:
        """Reject texts over the configured byte limit."""
        size = len(text.encode('utf-8'))
        if size > self._max_text_bytes:
            raise PayloadTooLarge(
                f'{field} is {size} bytes; the limit is {self._max_text_bytes}',
                details=[{'loc': field.split('.'), 'msg': 'text too large'}],
            )

    def remember(self, items: Sequence[MemoryIn]) -> list[WriteResult]:
        """Write memories in one batch through the dedup layers and the conflict check.

        Layer 1: the same normalised text for the same (scope, user) is the same id: bump it.
        Layer 2: the same entity key (phone:…, birthday:…) in scope: bump the stored one.
        Layer 3: for distilled kinds, a near-identical memory (cosine ≥ MERGE_COSINE) is
        bumped; a similar one that the new text contradicts is superseded (kept, not recalled).
        """
        for index, item in enumerate(items):
            self.check_text(item.text, 'text' if len(items) == 1 else f'items.{index}.text')
        now = self._clock.now()
        ids = [chunk_id(i.scope, i.user_id, normalize_text(i.text)) for i in items]
        existing = {p.id: p for p in self._vectors.retrieve(MEMORIES, list(dict.fromkeys(ids)))}
        results: list[WriteResult | None] = [None] * len(items)
        fresh: dict[str, tuple[int, Chunk]] = {}
        bumps: dict[str, dict[str, Any]] = {}

        def bump(target: str, item: MemoryIn, index: int, reason: str) -> None:
            stored = existing.get(target)
            if target in bumps:
                base = bumps[target]
            elif target in fresh:
                base = fresh[target][1].to_payload()
            else:
                base = stored.payload if stored else {}
            bumps[target] = self._bump(base, item, now)
            results[index] = WriteResult(
                id=target, status=WriteStatus.MERGED, reason=reason, merged_into=target
            )

        for index, (item, ident) in enumerate(zip(items, ids, strict=True)):
            if ident in fresh or ident in existing or ident in bumps:
                bump(ident, item, index, 'same text')
                continue
            keyed = self._same_entity_key(item, fresh)
            if keyed is not None:
                bump(keyed, item, index, f'same entity key {item.entity_key}')
                continue
            fresh[ident] = (index, self._new_chunk(ident, item, now))
            results[index] = WriteResult(id=ident, status=WriteStatus.CREATED)

        vectors = self._embedder.embed([c.text for _, c in fresh.values()]) if fresh else []
        dense = dict(zip(fresh, vectors, strict=True))
        supersede: dict[str, dict[str, Any]] = {}
        for ident in list(fresh):
            index, chunk = fresh[ident]
            if chunk.kind not in DISTILLED_KINDS or ident in bumps:
                # a chunk other items of this batch already merged into must stay
                continue
            twin, older = self._semantic_check(chunk, dense[ident], fresh)
            if twin is not None:
                del fresh[ident]
                bump(twin, items[index], index, 'semantic duplicate')
                continue
            for old_id in older:
                supersede[old_id] = {
                    'superseded': True,
                    'superseded_by': ident,
                    'updated_at': to_epoch(now),
                }
            if older:
                results[index] = WriteResult(
                    id=ident,
                    status=WriteStatus.CREATED,
                    superseded=older,
                    reason='supersedes older memories',
                )
        self._store_new(self._link([c for _, c in sorted(fresh.values(), key=_first)]), dense)
        updates = {i: {**bumps.get(i, {}), **supersede.get(i, {})} for i in {*bumps, *supersede}}
        if updates:
            self._vectors.set_payload(MEMORIES, updates)
        if fresh:
            self._index_graph(list(fresh))
        return [r for r in results if r is not None]

    def _link(self, chunks: list[Chunk]) -> list[Chunk]:
        """Give each new chunk, in write order, the id of the memory written before it."""
        linked: list[Chunk] = []
        with self._lock:
            for chunk in chunks:
                prev = self._last_in_scope.pop(chunk.scope, None)
                linked.append(chunk.model_copy(update={'prev_id': prev}))
                self._last_in_scope[chunk.scope] = chunk.id
                if len(self._last_in_scope) > LAST_IN_SCOPE_MAX:
                    del self._last_in_scope[next(iter(self._last_in_scope))]
        return linked

    def _same_entity_key(self, item: MemoryIn, fresh: dict[str, tuple[int, Chunk]]) -> str | None:
        if not item.entity_key:
            return None
        for ident, (_, chunk) in fresh.items():
            if (chunk.scope, chunk.user_id, chunk.entity_key) == (
                item.scope,
                item.user_id,
                item.entity_key,
            ):
                return ident
        flt = PointFilter(
            scopes=[item.scope],
            any_of={'entity_key': [item.entity_key], 'owner': [item.user_id or ANY_USER]},
            none_of={'superseded': [True]},
        )
        found, _ = self._vectors.scroll(MEMORIES, flt, 1)
        return found[0].id if found else None

    def _semantic_check(
        self, chunk: Chunk, vector: list[float], fresh: dict[str, tuple[int, Chunk]]
    ) -> tuple[str | None, list[str]]:
        """A stored near-duplicate to merge into, or the stored memories this one supersedes."""
        flt = PointFilter(
            scopes=[chunk.scope],
            any_of={'owner': [chunk.user_id or ANY_USER], 'kind': sorted(DISTILLED_KINDS)},
            none_of={'superseded': [True]},
        )
        similar = self._vectors.query(MEMORIES, 'dense', vector, flt, CONFLICT_CANDIDATES)
        older: list[str] = []
        for point in similar:
            if point.id == chunk.id or point.id in fresh:
                continue
            if point.score >= MERGE_COSINE:
                return point.id, []
            if point.score < CONFLICT_MIN_COSINE:
                break
            judged = detect(chunk.text, str(point.payload.get('text', '')), cosine=point.score)
            if judged.kind == 'duplicate':
                return point.id, []
            if judged.kind == 'supersedes' and not point.payload.get('pinned'):
                older.append(point.id)
        return None, older

    def _new_chunk(self, ident: str, item: MemoryIn, now: datetime) -> Chunk:
        default_tier, default_importance = KIND_DEFAULTS.get(item.kind, (Tier.WORKING, 0.5))
        importance = item.importance if item.importance is not None else default_importance
        chunk = Chunk(
            id=ident,
            scope=item.scope,
            user_id=item.user_id,
            kind=item.kind,
            text=item.text,
            tier=Tier.CORE if item.pinned else (item.tier or default_tier),
            importance=importance,
            importance_label=item.importance_label or ImportanceLabel.UNKNOWN,
            pinned=item.pinned,
            created_at=item.created_at or now,
            updated_at=now,
            expires_at=item.expires_at,
            source=item.source,
            source_ref=item.source_ref,
            trust=item.trust,
            tags=item.tags,
            content_hash=content_hash(item.text),
            entity_key=item.entity_key,
            metadata=item.metadata,
            speaker=speaker_of(item.text, item.metadata, item.user_id),
        )
        if item.tier is None and not item.pinned:
            # an explicit tier is the caller's decision; otherwise the seed's rules apply at
            # write, judged as of the write: an imported old event is not stale on arrival
            fresh_view = chunk.model_copy(update={'created_at': now})
            chunk = chunk.model_copy(update={'tier': next_tier(fresh_view, now)})
        return chunk

    def _bump(self, base: dict[str, Any], item: MemoryIn, now: datetime) -> dict[str, Any]:
        importance = max(float(base.get('importance', 0.5)), item.importance or 0.0)
        metadata = {**base.get('metadata', {}), **item.metadata}
        return {
            'access_count': int(base.get('access_count', 0)) + 1,
            'accessed_at': to_epoch(now),
            'updated_at': to_epoch(now),
            'importance': importance,
            'metadata': metadata,
            'pinned': bool(base.get('pinned')) or item.pinned,
        }

    def _store_new(self, chunks: list[Chunk], dense: dict[str, list[float]]) -> None:
        if not chunks:
            return
        points = [
            VectorPoint(
                id=c.id,
                dense=dense[c.id],
                sparse=self._sparse.encode_document(c.text),
                payload=c.to_payload(),
            )
            for c in chunks
        ]
        self._vectors.upsert(MEMORIES, points)

    def _index_graph(self, ids: list[str]) -> None:
        if self._graph is None:
            return
        if self._enqueue_graph is not None:
            self._enqueue_graph(ids)
        else:
            self.index_graph(ids)

    def index_graph(self, ids: Sequence[str]) -> int:
        """Extract the given chunks into the graph and record the entities they mention."""
        if self._graph is None:
            return 0
        chunks = [Chunk.from_payload(p.payload) for p in self._vectors.retrieve(MEMORIES, ids)]
        if not chunks:
            return 0
        refs = [
            ChunkText(
                id=c.id,
                scope=c.scope,
                text=c.text,
                at=c.created_at,
                speaker=_speaker(c),
            )
            for c in chunks
        ]
        mentioned = self._graph.index_chunks(refs)
        updates = {cid: {'entity_ids': ents} for cid, ents in mentioned.items() if ents}
        if updates:
            self._vectors.set_payload(MEMORIES, updates)
        return len(chunks)

    # ---- single-memory operations -----------------------------------------------------------

    def get(self, ident: str) -> Chunk:
        """The chunk with this id, or NotFound."""
        found = self._vectors.retrieve(MEMORIES, [ident])
        if not found:
            raise NotFound('memory', ident)
        return Chunk.from_payload(found[0].payload)

    def delete(self, ident: str) -> None:
        """Delete a chunk and its graph mentions."""
        self.get(ident)
        self._vectors.delete(MEMORIES, [ident])
        if self._graph is not None:
            self._graph.forget_chunks([ident])

    def set_pinned(self, ident: str, pinned: bool) -> Chunk:
        """Pin (Core, never demoted) or unpin (back to working) a chunk."""
        chunk = self.get(ident)
        tier = Tier.CORE if pinned else (Tier.WORKING if chunk.tier == Tier.CORE else chunk.tier)
        now = to_epoch(self._clock.now())
        self._vectors.set_payload(
            MEMORIES, {ident: {'pinned': pinned, 'tier': tier.value, 'updated_at': now}}
        )
        return chunk.model_copy(update={'pinned': pinned, 'tier': tier})

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
        too when the caller's own hits are weak (recall.context confidence)."""
        started = time.perf_counter()
        latency: dict[str, float] = {}
        principal.require_read(req.scope)
        recipe = self._recipe(req)
        query_vectors = self._encode_query(req, latency)
        terms = query_terms(req.query)
        scopes = [req.scope]
        found = self._channels(req, recipe, scopes, query_vectors, latency)
        fallback: str | None = None
        if req.scope != GLOBAL and principal.can_read(GLOBAL) and self._weak(found, terms):
            # global is merged with the caller's own hits, which still compete
            wider = self._channels(req, recipe, [req.scope, GLOBAL], query_vectors, latency)
            if any(p.get('scope') == GLOBAL for p in wider.payloads.values()):
                found, scopes, fallback = wider, [req.scope, GLOBAL], 'global'
        if principal.leader_scopes and self._weak(found, terms):
            # a member with nothing (or nothing convincing) reads its leaders' memory, merged
            # with what it has, so its own hits still compete
            scopes = [*scopes, *principal.leader_scopes]
            found = self._channels(req, recipe, scopes, query_vectors, latency)
            fallback = 'team_leader'

        t = time.perf_counter()
        floor = req.min_score if req.min_score is not None else recipe.min_score
        ranked = self._rank(req, recipe, found, terms, floor)
        hits, policy_tier = _apply_policy(ranked.hits, found.payloads, req.top_k)
        latency['rank'] = _ms(t)
        if hits and req.touch:
            self._touch([h.id for h in hits])
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
        return SearchResponse(hits=hits, receipt=receipt)

    def _recipe(self, req: SearchRequest) -> FusionConfig:
        weights = dict(self._fusion.weights)
        if req.graph is True and weights.get('graph', 0.0) <= 0:
            weights['graph'] = GRAPH_OPT_IN_WEIGHT
        elif req.graph is False:
            weights['graph'] = 0.0
        weights.update({str(k): v for k, v in (req.weights or {}).items()})
        return self._fusion.model_copy(update={'weights': weights})

    def _weak(self, found: _Found, terms: list[str]) -> bool:
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
        recipe: FusionConfig,
        scopes: list[str],
        vectors: dict[Channel, Any],
        latency: dict[str, float],
    ) -> _Found:
        flt = self._filter(req, scopes)
        depth = min(MAX_CANDIDATES, max(MIN_CANDIDATES, req.top_k * CANDIDATE_FACTOR))
        hybrid = req.mode == SearchMode.HYBRID
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
        payloads = {p.id: p.payload for points in channels.values() for p in points}
        lent_by: dict[str, list[str]] = {}
        if hybrid and recipe.weight('context') > 0:
            t = time.perf_counter()
            neighbours = self._neighbours(channels, flt, payloads)
            sources: dict[str, list[tuple[str, float]]] = {
                n: [(p.id, p.score) for p in channels[n]]
                for n in ('bm25', 'dense')
                if n in channels
            }
            channels['context'] = [
                ScoredPoint(id=ident, score=score, payload=payloads[ident])
                for ident, score in context_list(sources, neighbours)[:depth]
            ]
            for source, others in neighbours.items():
                for other in others:
                    lent_by.setdefault(other, []).append(source)
            latency['context'] = latency.get('context', 0.0) + _ms(t)
        if self._graph is not None and hybrid and recipe.weight('graph') > 0:
            t = time.perf_counter()
            channels['graph'] = self._graph_channel(req.query, scopes, flt, req.hops, depth)
            payloads.update({p.id: p.payload for p in channels['graph']})
            latency['graph'] = latency.get('graph', 0.0) + _ms(t)
        t = time.perf_counter()
        lists = {name: [(p.id, p.score) for p in points] for name, points in channels.items()}
        weights = {name: recipe.weight(name) if hybrid else 1.0 for name in lists}
        if 'graph' in lists:
            weights['graph'] = graph_weight(weights['graph'], lists['graph'])
        method = req.fusion.value if req.fusion is not None else recipe.method
        # the learned model ranks later (_rank); RRF gives the preliminary order and receipt
        fused = fuse(lists, 'rrf' if method == 'learned' else method, weights)
        latency['fuse'] = latency.get('fuse', 0.0) + _ms(t)
        return _Found(channels=channels, fused=fused, payloads=payloads, lent_by=lent_by)

    def _neighbours(
        self,
        channels: dict[str, list[ScoredPoint]],
        flt: PointFilter,
        payloads: dict[str, dict[str, Any]],
    ) -> dict[str, list[str]]:
        """The memories written just before and after the strongest candidates, same session."""
        ids = list(
            dict.fromkeys(
                p.id for name in ('bm25', 'dense') for p in channels.get(name, [])[:CONTEXT_DEPTH]
            )
        )
        if not ids:
            return {}
        following = flt.model_copy(deep=True)
        following.any_of['prev_id'] = list[str | bool | int](ids)
        after, _ = self._vectors.scroll(MEMORIES, following, 2 * len(ids))
        wanted = [
            str(payloads[i]['prev_id'])
            for i in ids
            if payloads[i].get('prev_id') and payloads[i]['prev_id'] not in payloads
        ]
        before = self._vectors.retrieve(MEMORIES, wanted) if wanted else []
        for point in [*after, *before]:
            if matches(point.payload, flt):
                payloads.setdefault(point.id, point.payload)
        out: dict[str, list[str]] = {}
        for ident in ids:
            prev = payloads[ident].get('prev_id')
            if (
                isinstance(prev, str)
                and prev in payloads
                and same_session(payloads[ident], payloads[prev])
            ):
                out.setdefault(ident, []).append(prev)
        for point in after:
            source = point.payload.get('prev_id')
            if (
                point.id in payloads
                and isinstance(source, str)
                and source in payloads
                and same_session(payloads[source], point.payload)
            ):
                out.setdefault(source, []).append(point.id)
        return out

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
        self,
        req: SearchRequest,
        recipe: FusionConfig,
        found: _Found,
        terms: list[str],
        floor: float,
    ) -> _Ranked:
        moment = self._clock.now()
        now = to_epoch(moment)
        payloads = found.payloads
        dense = {p.id: p.score for p in found.channels.get('dense', [])}
        speakers = {
            str(payloads[f.id]['speaker'])
            for f in found.fused
            if f.id in payloads and payloads[f.id].get('speaker')
        }
        named = query_names(req.query, speakers)
        period = query_period(req.query, moment)
        own: dict[str, float] = {}

        def sure(ident: str) -> float:
            if ident not in own:
                text = str(payloads[ident].get('text', ''))
                own[ident] = confidence(terms, text, dense.get(ident))
            return own[ident]

        def signals(ident: str) -> dict[str, float]:
            payload = payloads[ident]
            # a turn found through its neighbour shares in the neighbour's confidence
            lenders = [sure(i) for i in found.lent_by.get(ident, ()) if i in payloads]
            return {
                'speaker_named': 1.0 if payload.get('speaker') in named else 0.0,
                'date_match': 1.0 if period and period.holds(payload.get('created_at')) else 0.0,
                'confidence': max([sure(ident), *(CONTEXT_SHARE * c for c in lenders)]),
            }

        ids = [f.id for f in found.fused if f.id in payloads]
        model = shipped_model() if self._learned(req, recipe, found) else None
        extras: dict[str, dict[str, float]] = {}
        if model is not None:
            # a logistic model over every candidate's channel features and signals; its
            # probability of relevance is the fused score
            extras = {i: signals(i) for i in ids}
            lists = {c: [(p.id, p.score) for p in pts] for c, pts in found.channels.items()}
            probability = learned_scores(model, feature_matrix(ids, lists, extras))
            base = {i: float(p) for i, p in zip(ids, probability, strict=True)}
            order = sorted(ids, key=lambda i: (-base[i], i))
        else:
            base = {f.id: f.score for f in found.fused}
            order = ids
        # only the head of the order can reach top_k after boosts; building models for the
        # whole candidate depth would cost more than the store queries themselves
        window = order[: max(req.top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)]
        in_window = set(window)
        fused_by_id = {f.id: f for f in found.fused}
        factors: dict[str, dict[str, float]] = {}
        best_by_text: dict[str, Hit] = {}
        below = 0
        for ident in order if req.explain else window:
            payload = payloads[ident]
            expires = payload.get('expires_at')
            if isinstance(expires, int | float) and expires <= now:
                continue
            chunk = Chunk.from_payload(payload)
            signal = extras.get(ident) or signals(ident)
            # the fused rank stays dominant: decay, importance and pinning move a hit by at
            # most ~10%, enough to reorder near-ties (recall.decay.multiplier)
            lift = multiplier(chunk, moment)
            # the learned model has already weighed speaker and date
            spoke = 1.0 + recipe.speaker_boost * signal['speaker_named'] if model is None else 1.0
            when = 1.0 + recipe.date_boost * signal['date_match'] if model is None else 1.0
            user = USER_BOOST if req.user_id is not None and chunk.user_id == req.user_id else 1.0
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
            components['relevance'] = round(relevance(chunk, moment), 6)
            components['decay_multiplier'] = round(lift, 6)
            components['confidence'] = round(signal['confidence'], 4)
            if model is not None:
                components['learned'] = 1.0
            for name, value in (
                ('speaker_boost', spoke),
                ('date_boost', when),
                ('user_boost', user),
                ('trust_factor', trusted),
            ):
                if value != 1.0:
                    components[name] = value
            hit = Hit(
                id=chunk.id,
                text=chunk.text,
                score=base[ident] * lift * spoke * when * user * trusted,
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
        return _Ranked(hits=ranked, below_floor=below, factors=factors, speakers=named)

    @staticmethod
    def _learned(req: SearchRequest, recipe: FusionConfig, found: _Found) -> bool:
        """The learned model ranks hybrid searches over the channels it was fitted on."""
        method = req.fusion.value if req.fusion is not None else recipe.method
        return (
            method == 'learned'
            and req.mode == SearchMode.HYBRID
            and all(c in LEARNED_CHANNELS for c in found.channels)
        )

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
                self.touch(ids)
            except Exception:
                log.exception('could not record access to %d memories', len(ids))

    def touch(self, ids: Sequence[str]) -> None:
        """Record a recall of these chunks: access count and time."""
        moment = self._clock.now()
        updates: dict[str, dict[str, Any]] = {}
        for point in self._vectors.retrieve(MEMORIES, ids):
            chunk = Chunk.from_payload(point.payload)
            touched = chunk.model_copy(
                update={'access_count': chunk.access_count + 1, 'accessed_at': moment}
            )
            # seed 000: tier transitions are evaluated on every search-hit touch
            updates[point.id] = {
                'access_count': touched.access_count,
                'accessed_at': to_epoch(moment),
                'tier': next_tier(touched, moment).value,
            }
        if updates:
            self._vectors.set_payload(MEMORIES, updates)

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


def _speaker(chunk: Chunk) -> str | None:
    speaker = chunk.metadata.get('speaker')
    return speaker if isinstance(speaker, str) and speaker.strip() else None


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
