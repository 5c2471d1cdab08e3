"""RecallService: writes memories and answers `memory_search` over the VectorStore port."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from core.auth import Principal
from core.clock import Clock, to_epoch
from core.errors import InvalidInput, NotFound, PayloadTooLarge
from core.scopes import GLOBAL
from recall.decay import multiplier, next_tier, relevance
from recall.models import ANY_USER, EPISODES, MEMORIES, Chunk, chunk_id, memories_spec
from recall.normalize import content_hash, normalize_text
from recall.ports import GraphIndex
from recall.read.fusion import Fused, rrf, weighted_merge
from recall.schemas import (
    ChunkOut,
    FusionMethod,
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
from recall.write.conflicts import detect
from vectors.filtering import matches
from vectors.models import Channel, ChunkText, PointFilter, Range, ScoredPoint, VectorPoint
from vectors.ports import Embedder, SparseEncoder, VectorStore

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
# a team member whose best hit is a dense neighbour below this also reads its leader's memory
WEAK_DENSE_COSINE = 0.3
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
        *,
        graph: GraphIndex | None = None,
        enqueue_graph: Callable[[list[str]], None] | None = None,
        max_text_bytes: int = 32 * 1024,
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
        self._store_new([c for _, c in fresh.values()], dense)
        updates = {i: {**bumps.get(i, {}), **supersede.get(i, {})} for i in {*bumps, *supersede}}
        if updates:
            self._vectors.set_payload(MEMORIES, updates)
        if fresh:
            self._index_graph(list(fresh))
        return [r for r in results if r is not None]

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


def _speaker(chunk: Chunk) -> str | None:
    speaker = chunk.metadata.get('speaker')
    return speaker if isinstance(speaker, str) and speaker.strip() else None


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
