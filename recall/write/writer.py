"""MemoryWriter: the one writer of the `memories` collection.

Every change to `memories` goes through here: explicit and captured writes (`remember`, with the
size guard and the dedup layers), raw chunks of imports, hydrates and documents (`store`),
payload changes (pins, tier transitions, access bookkeeping, document moves) and deletes (single,
documents, hygiene). The graph bookkeeping that follows a write is here too, by this process's
`GraphRole`: new chunks are queued as an `index_graph` job; deleted chunks are forgotten in the
graph directly by the owner, or through a `forget_mentions` job sent to the owner by a client.
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta
from typing import Any

from core.clock import Clock, to_epoch
from core.errors import InvalidInput, NotFound, PayloadTooLarge
from core.jobs import JobName, Jobs
from core.roles import GraphRole
from recall.access.recalls import record_recalls
from recall.decay import next_tier
from recall.models import ANY_USER, MEMORIES, Chunk, chunk_id, memories_spec
from recall.normalize import content_hash, normalize_text
from recall.ports import AccessLog, GraphIndex
from recall.schemas import MemoryIn, WriteResult, WriteStatus
from recall.speakers import speaker_of
from recall.tiers import KIND_DEFAULTS, ImportanceLabel, Tier
from recall.write.capture import CaptureDecision, capture
from recall.write.facts import facts_of
from recall.write.guards import explicit_skip, guarded_items, redact_chunk, redact_secret_fields
from recall.write.importance import write_grade
from recall.write.merging import keyed_twin, merged_change
from recall.write.superseder import Superseder
from recall.write.supersession import slot_tags
from recall.write.trust import trust_of, trust_rank
from vectors.models import ChunkText, PointFilter, StoredPoint, VectorPoint
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)

# MiniLM cosine above which two memories say the same thing
MERGE_COSINE = 0.95
LAST_IN_SCOPE_MAX = 10_000
# how far a client's clock may run ahead of ours before its event time is refused
EVENT_TIME_SKEW = timedelta(minutes=10)
# writes of one scope serialise on one of these locks (picked by a hash of the scope): the dedup
# layers read then write, and two writers of one id or entity key must not both see it missing
WRITE_STRIPES = 64


class MemoryWriter:
    """The one writer of `memories`: guards, dedup, conflicts, upserts, deletes, graph follow-up."""

    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        clock: Clock,
        *,
        graph: GraphIndex | None = None,
        graph_role: GraphRole | None = None,
        jobs: Jobs | None = None,
        max_text_bytes: int = 32 * 1024,
        access: AccessLog | None = None,
    ) -> None:
        """`graph_role` defaults to OWNER when a `graph` is given, else OFF. An owner forgets
        deleted chunks in the graph directly; a CLIENT queues that to the owner. Both queue graph
        extraction of new chunks as an `index_graph` job when `jobs` is given (it is slower than
        embedding) and run it inline otherwise. With an `access` log (embedded mode, `vectors`
        reading through `recall.access.overlay.AccessOverlay` over it) recalls are counted there
        instead of in the payloads."""
        role = graph_role or (GraphRole.OWNER if graph is not None else GraphRole.OFF)
        if role == GraphRole.OWNER and graph is None:
            raise ValueError('the graph owner needs a graph')
        if role == GraphRole.CLIENT and jobs is None:
            raise ValueError('a graph client needs a job queue to reach the graph owner')
        self._vectors = vectors
        self._embedder = embedder
        self._sparse = sparse
        self._clock = clock
        self._graph = graph if role == GraphRole.OWNER else None
        self._graph_role = role
        self._jobs = jobs
        self._max_text_bytes = max_text_bytes
        self._access = access
        # embedders may say which cosine means "the same" for them and whether they read CJK
        self._merge_cosine = float(getattr(embedder, 'merge_cosine', None) or MERGE_COSINE)
        self._reads_cjk = bool(getattr(embedder, 'multilingual', False))
        self._superseder = Superseder(vectors, self._merge_cosine, self._reads_cjk)
        self._lock = threading.Lock()
        self._stripes = [threading.Lock() for _ in range(WRITE_STRIPES)]
        # the last memory written in each scope (bounded): the next one links to it as prev_id;
        # after a restart the first write of a scope starts a new thread
        self._last_in_scope: dict[str, str] = {}
        vectors.ensure_collection(memories_spec(embedder.dim))

    @property
    def graph_role(self) -> GraphRole:
        """This process's relation to the knowledge graph."""
        return self._graph_role

    @property
    def embedder(self) -> Embedder:
        """The dense embedder new chunks are embedded with."""
        return self._embedder

    def use_embedder(self, embedder: Embedder) -> Embedder:
        """Swap the dense embedder (tests count what gets embedded); returns the previous one."""
        previous, self._embedder = self._embedder, embedder
        return previous

    # ---- writes ---------------------------------------------------------------------------

    def check_text(self, text: str, field: str = 'text') -> None:
        """Reject texts over the configured byte limit."""
        size = len(text.encode('utf-8'))
        if size > self._max_text_bytes:
            raise PayloadTooLarge(
                f'{field} is {size} bytes; the limit is {self._max_text_bytes}',
                details=[{'loc': field.split('.'), 'msg': 'text too large'}],
            )

    def check_event_time(self, when: datetime | None, field: str = 'created_at') -> None:
        """Reject an event time later than now (beyond a clock skew): a fact from the future
        would outdate every fact told after it."""
        if when is not None and when > self._clock.now() + EVENT_TIME_SKEW:
            raise InvalidInput(field, 'an event time must not be in the future')

    def remember(self, items: Sequence[MemoryIn]) -> list[WriteResult]:
        """Write memories in one batch through the dedup layers and the conflict check.

        Layer 1: the same normalised text for the same (scope, user) is the same id: bump it.
        Layer 2: the same entity key (phone:…, birthday:…) in scope: bump the stored one.
        Layer 3: for distilled kinds, a near-identical memory (cosine ≥ MERGE_COSINE) is
        bumped; a similar one that the new text contradicts is superseded (kept, not recalled).
        """
        for index, item in enumerate(items):
            self.check_text(item.text, 'text' if len(items) == 1 else f'items.{index}.text')
            where = 'created_at' if len(items) == 1 else f'items.{index}.created_at'
            self.check_event_time(item.created_at, where)
        items, masked = guarded_items(items)  # recall blocks cut, secrets masked
        ids = [chunk_id(i.scope, i.user_id, normalize_text(i.text)) for i in items]
        skips = [explicit_skip(i.text) for i in items]
        # the embedding is a write's dearest step and needs no lock: done before it, writes of
        # one scope wait for each other only for the store's reads and writes
        prepared = self._embed_unstored(items, ids, skips)
        with _held(self._stripes_of(i.scope for i in items)):
            results = self._remember(items, ids, skips, prepared)
        return [
            r.model_copy(update={'redacted': m}) if m else r
            for r, m in zip(results, masked, strict=True)
        ]

    def _embed_unstored(
        self, items: Sequence[MemoryIn], ids: Sequence[str], skips: Sequence[str | None]
    ) -> dict[str, list[float]]:
        """Vectors, keyed by text, of unskipped texts whose id is not stored yet (a repeat is a
        bump, never embedded); read unlocked: a text stored meanwhile leaves its vector unused."""
        texts: dict[str, str] = {}
        for item, ident, skip in zip(items, ids, skips, strict=True):
            if skip is None:
                texts.setdefault(ident, item.text)
        if not texts:
            return {}
        stored = {p.id for p in self._vectors.retrieve(MEMORIES, list(texts))}
        todo = list(dict.fromkeys(t for i, t in texts.items() if i not in stored))
        return dict(zip(todo, self._embedder.embed(todo), strict=True)) if todo else {}

    def _stripes_of(self, scopes: Iterable[str]) -> list[threading.Lock]:
        # the same stripe order for every caller, so two batches never wait on each other
        picked = sorted({zlib.crc32(s.encode('utf-8')) % WRITE_STRIPES for s in scopes})
        return [self._stripes[n] for n in picked]

    def _remember(
        self,
        items: Sequence[MemoryIn],
        ids: Sequence[str],
        skips: Sequence[str | None],
        prepared: Mapping[str, list[float]],
    ) -> list[WriteResult]:
        now = self._clock.now()
        existing = {p.id: p for p in self._vectors.retrieve(MEMORIES, list(dict.fromkeys(ids)))}
        results: list[WriteResult | None] = [None] * len(items)
        fresh: dict[str, tuple[int, Chunk]] = {}
        bumps: dict[str, dict[str, Any]] = {}

        def bump(target: str, item: MemoryIn, index: int, reason: str) -> None:
            if target not in existing and target not in fresh and target not in bumps:
                # layers 2 and 3 name a stored memory other than the text's own id: the merge
                # must start from what is stored, or it rebuilds the memory from defaults
                existing.update({p.id: p for p in self._vectors.retrieve(MEMORIES, [target])})
            stored = existing.get(target)
            if target in fresh:
                base = fresh[target][1].to_payload()
            else:
                base = dict(stored.payload) if stored else {}
            # a second merge in one batch starts from the first one's result
            base.update(bumps.get(target, {}))
            bumps[target] = merged_change(base, item, now)
            results[index] = WriteResult(
                id=target, status=WriteStatus.MERGED, reason=reason, merged_into=target
            )

        for index, (item, ident, skip) in enumerate(zip(items, ids, skips, strict=True)):
            if skip is not None:
                # the guards capture runs, on explicit writes too: a prompt the
                # runtime or an attacker wrote, or a credential, must not come back later as a
                # recalled memory
                results[index] = WriteResult(id=None, status=WriteStatus.SKIPPED, reason=skip)
                continue
            if ident in fresh or ident in existing or ident in bumps:
                bump(ident, item, index, 'same text')
                continue
            keyed = keyed_twin(self._vectors, item, fresh)
            if keyed is not None:
                bump(keyed, item, index, f'same entity key {item.entity_key}')
                continue
            fresh[ident] = (index, self._new_chunk(ident, item, now))
            results[index] = WriteResult(id=ident, status=WriteStatus.CREATED)

        texts = [c.text for _, c in fresh.values()]
        todo = [t for t in dict.fromkeys(texts) if t not in prepared]
        if todo:  # a text `_embed_unstored` found stored, deleted since
            prepared = {**prepared, **dict(zip(todo, self._embedder.embed(todo), strict=True))}
        dense = {ident: prepared[text] for ident, text in zip(fresh, texts, strict=True)}
        supersede = self._superseder.resolve(fresh, dense, bumps, items, bump, results, now)
        ordered = sorted(fresh.values(), key=lambda entry: entry[0])
        self._store_linked([_marked(c, supersede.pop(c.id, None)) for _, c in ordered], dense)
        updates = {i: {**bumps.get(i, {}), **supersede.get(i, {})} for i in {*bumps, *supersede}}
        revived = self._revive_outranked(updates, existing)
        if updates:
            self._vectors.set_payload(MEMORIES, updates)
        if fresh:
            self._index_graph(list(fresh))
        return [r.still_superseding(revived) for r in results if r is not None]

    def _revive_outranked(
        self, updates: dict[str, dict[str, Any]], existing: Mapping[str, StoredPoint]
    ) -> set[str]:
        """Seed 004 holds after a merge raised trust: a memory superseded by a less trusted one
        is current again (a user restating what a tool's contradiction superseded), whether the
        supersession is stored or this batch's; the ids it revived."""
        # the chunks of this batch are stored by now: a superseder among them is read too
        by = {
            i: change.get('superseded_by', existing[i].payload.get('superseded_by'))
            for i, change in updates.items()
            if 'trust' in change and i in existing
        }
        live = [b for b in by.values() if isinstance(b, str)]
        found = self._vectors.retrieve(MEMORIES, live) if live else []
        trust = {p.id: p.payload.get('trust') for p in found}
        revived: set[str] = set()
        for ident, later in by.items():
            if later in trust and trust_rank(updates[ident]['trust']) > trust_rank(trust[later]):
                updates[ident].update(superseded=False, superseded_by=None)
                revived.add(ident)
        return revived

    def capture(
        self,
        scope: str,
        text: str,
        *,
        user_id: str | None = None,
        role: str | None = 'user',
        channel: str | None = None,
        source: str | None = None,
        at: datetime | None = None,
    ) -> tuple[CaptureDecision, list[WriteResult]]:
        """Capture a conversation turn: the size guard, then `capture` (injection filter,
        salience gate, deterministic capture, classification), then `remember` of what it kept.
        `at` is the message's time: the memories' event time, and what relative dates in the
        turn ("last month", "去年") are read against."""
        self.check_text(text)
        self.check_event_time(at)
        when = at or self._clock.now()
        decision = capture(text, role=role, channel=channel, source=source, now=when)
        items = decision.writes(scope, user_id, channel, at)
        return decision, (self.remember(items) if items else [])

    def _store_linked(self, chunks: list[Chunk], dense: Mapping[str, list[float]]) -> None:
        """Upsert new chunks linked in write order: each gets the id of the memory written
        before it in its scope (`prev_id`) and of the one after it (`next_id`, set on the
        earlier memory when the later one is written), so the context channel reads neighbours
        by id. One lock spans link, upsert and the `next_id` updates: a concurrent batch of the
        same scope must not set `next_id` on a memory whose upsert has not landed yet."""
        with self._lock:
            linked: dict[str, Chunk] = {}
            follows: dict[str, dict[str, Any]] = {}
            for chunk in chunks:
                prev = self._last_in_scope.pop(chunk.scope, None)
                linked[chunk.id] = chunk.model_copy(update={'prev_id': prev, 'next_id': None})
                if prev in linked:
                    linked[prev] = linked[prev].model_copy(update={'next_id': chunk.id})
                elif prev is not None:
                    follows[prev] = {'next_id': chunk.id}
                self._last_in_scope[chunk.scope] = chunk.id
                if len(self._last_in_scope) > LAST_IN_SCOPE_MAX:
                    del self._last_in_scope[next(iter(self._last_in_scope))]
            self._upsert(list(linked.values()), dense)
            if follows:
                self._vectors.set_payload(MEMORIES, follows)

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

    def _new_chunk(self, ident: str, item: MemoryIn, now: datetime) -> Chunk:
        default_tier, _ = KIND_DEFAULTS.get(item.kind, (Tier.WORKING, 0.5))
        graded = write_grade(item.text, item.kind)  # the kind's band and keyword boosts
        importance = item.importance if item.importance is not None else graded.importance
        label = item.importance_label or (graded.label if item.importance is None else None)
        chunk = Chunk(
            id=ident,
            scope=item.scope,
            user_id=item.user_id,
            kind=item.kind,
            text=item.text,
            tier=Tier.CORE if item.pinned else (item.tier or default_tier),
            importance=importance,
            importance_label=label or ImportanceLabel.UNKNOWN,
            pinned=item.pinned,
            created_at=item.created_at or now,
            updated_at=now,
            expires_at=item.expires_at,
            source=item.source,
            source_ref=item.source_ref,
            trust=trust_of(item),
            tags=item.tags,
            slots=slot_tags(facts_of(item.text)),
            content_hash=content_hash(item.text),
            entity_key=item.entity_key,
            metadata=item.metadata,
            speaker=speaker_of(item.text, item.metadata, item.user_id),
        )
        if item.tier is None and not item.pinned:
            # an explicit tier is the caller's decision; otherwise the tier rules apply at
            # write, judged as of the write: an imported old event is not stale on arrival
            fresh_view = chunk.model_copy(update={'created_at': now})
            chunk = chunk.model_copy(update={'tier': next_tier(fresh_view, now)})
        return chunk

    def store(
        self,
        chunks: Sequence[Chunk],
        dense: Mapping[str, list[float]] | None = None,
        *,
        graph: bool = True,
    ) -> None:
        """Upsert chunks exactly as given (ids, tiers, timestamps kept), embedding those without
        a vector in `dense`, secrets masked; new chunks are then queued for graph extraction,
        unless `graph` is False (chunks stored hidden: `queue_graph` them once shown)."""
        chunks = [redact_chunk(c)[0] for c in chunks]
        self._upsert(chunks, dense)
        if graph:
            self._index_graph([c.id for c in chunks])

    def queue_graph(self, ids: Sequence[str]) -> None:
        """Queue graph extraction of stored chunks (run at once when no queue is wired)."""
        self._index_graph(list(ids))

    def _upsert(self, chunks: Sequence[Chunk], dense: Mapping[str, list[float]] | None) -> None:
        if not chunks:
            return
        dense = dict(dense or {})
        missing = [c for c in chunks if c.id not in dense]
        if missing:
            vectors = self._embedder.embed([c.text for c in missing])
            dense.update(zip([c.id for c in missing], vectors, strict=True))
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
        if self._graph_role == GraphRole.OFF or not ids:
            return
        if self._jobs is not None:
            self._jobs.enqueue(JobName.INDEX_GRAPH, ids=ids)
        else:
            self.index_graph(ids)

    def forget_graph(self, ids: list[str]) -> None:
        """Forget deleted chunks or episodes in the graph, whoever owns it."""
        if self._graph is not None:
            self._graph.forget_chunks(ids)
        elif self._graph_role == GraphRole.CLIENT and ids and self._jobs is not None:
            self._jobs.enqueue(JobName.FORGET_MENTIONS, ids=ids)

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
        # the chunk -> entity links stay in the graph (GraphIndex.entities_of): copying them
        # into the payload moved every indexed chunk out of its HNSW segment once more
        self._graph.index_chunks(refs)
        return len(chunks)

    def _get(self, ident: str) -> Chunk:
        found = self._vectors.retrieve(MEMORIES, [ident])
        if not found:
            raise NotFound('memory', ident)
        return Chunk.from_payload(found[0].payload)

    def update(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge payload fields into memories (id -> fields), secrets masked; vectors untouched."""
        if updates:
            clean = {i: redact_secret_fields(dict(c)) for i, c in updates.items()}
            self._vectors.set_payload(MEMORIES, clean)

    def delete_many(self, ids: Sequence[str], *, graph: bool = True) -> None:
        """Delete memories by id, and their graph mentions unless the caller forgets them."""
        batch = list(ids)
        if batch:
            self._vectors.delete(MEMORIES, batch)
            if graph:
                self.forget_graph(batch)

    def delete(self, ident: str) -> None:
        """Delete a chunk and its graph mentions; NotFound when there is none."""
        self._get(ident)
        self.delete_many([ident])

    def prune(self, ids: Sequence[str]) -> None:
        """Delete memories chosen by hygiene, and their graph mentions (whoever owns the graph)."""
        self.delete_many(ids)

    def set_tiers(self, tiers: Mapping[str, Tier], now: datetime) -> None:
        """Apply decay tier transitions (memory id -> new tier)."""
        if tiers:
            at = to_epoch(now)
            updates = {i: {'tier': Tier(t).value, 'updated_at': at} for i, t in tiers.items()}
            self._vectors.set_payload(MEMORIES, updates)

    def set_pinned(self, ident: str, pinned: bool) -> Chunk:
        """Pin (Core, never demoted) or unpin (back to working) a chunk."""
        with _held(self._stripes_of([self._get(ident).scope])):
            chunk = self._get(ident)
            unpinned = Tier.WORKING if chunk.tier == Tier.CORE else chunk.tier
            tier = Tier.CORE if pinned else unpinned
            now = to_epoch(self._clock.now())
            self._vectors.set_payload(
                MEMORIES, {ident: {'pinned': pinned, 'tier': tier.value, 'updated_at': now}}
            )
        return chunk.model_copy(update={'pinned': pinned, 'tier': tier})

    def touch(self, ids: Sequence[str], scopes: Iterable[str] | None = None) -> None:
        """Record a recall of these chunks: access count and time. An id given n times (the
        hits of several searches recorded together) counts n recalls. `scopes`, the chunks'
        scopes when the caller knows them (a search's hits do), saves reading them first."""
        if scopes is None:
            found = self._vectors.retrieve(MEMORIES, list(dict.fromkeys(ids)))
            scopes = {str(p.payload.get('scope', '')) for p in found}
        wanted = set(scopes)
        if not wanted:
            return
        # access_count is read then written: under the scopes' write locks, read again
        with _held(self._stripes_of(wanted)):
            record_recalls(self._vectors, ids, self._clock.now(), self._access)


@contextmanager
def _held(locks: Sequence[threading.Lock]) -> Iterator[None]:
    with ExitStack() as stack:
        for lock in locks:
            stack.enter_context(lock)
        yield


def _marked(chunk: Chunk, change: Mapping[str, Any] | None) -> Chunk:
    """A new chunk with the supersession records this batch gave it (an older-dated fact)."""
    if not change:
        return chunk
    return chunk.model_copy(update={k: v for k, v in change.items() if k != 'updated_at'})


def _speaker(chunk: Chunk) -> str | None:
    speaker = chunk.metadata.get('speaker')
    if isinstance(speaker, str) and speaker.strip():
        return speaker
    # "I"/"my" in a user's memory is that user, or the "Name:" who said it (without an
    # owner, the facts a capture found would reach no graph)
    found = chunk.speaker or chunk.user_id
    return found if found and found.strip() else None
