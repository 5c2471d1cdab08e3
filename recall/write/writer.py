"""MemoryWriter: the one writer of the `memories` collection.

Every change to `memories` goes through here: explicit and captured writes (`remember`, with the
size guard and the dedup layers), raw chunks of imports, hydrates and documents (`store`),
payload changes (pins, tier transitions, access bookkeeping, document moves) and deletes (single,
documents, hygiene). It composes three parts, one concern each: the store writer
(`recall.write.chunk_store`: upserts, links, payloads, deletes, scope locks), the dedup and merge
plan of a batch (`recall.write.dedup`, with `recall.write.superseder` for semantic twins and
supersession) and the graph follow-up (`recall.write.graph_followup`: extraction of new chunks,
forgetting of deleted ones, by this process's `GraphRole`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from core.clock import Clock
from core.errors import InvalidInput, PayloadTooLarge
from core.jobs import Jobs
from core.roles import GraphRole
from recall.models import MEMORIES, Chunk, chunk_id, memories_spec
from recall.normalize import normalize_text
from recall.ports import AccessLog, GraphIndex
from recall.schemas import MemoryIn, WriteResult
from recall.tiers import Tier
from recall.write.capture import CaptureDecision, capture
from recall.write.chunk_store import ChunkStore
from recall.write.dedup import MergePlan
from recall.write.facts import facts_of
from recall.write.graph_followup import GraphFollowUp
from recall.write.guards import explicit_skip, guarded_items, redact_chunk, text_masked
from recall.write.restoration import dangling, relink, repair, restore, reweigh_edited
from recall.write.superseder import Superseder
from recall.write.supersession import RECORD_KINDS, slot_tags
from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)

# MiniLM cosine above which two memories say the same thing
MERGE_COSINE = 0.95
# how far a client's clock may run ahead of ours before its event time is refused
EVENT_TIME_SKEW = timedelta(minutes=10)
# memories repaired under one hold of their scopes' write locks
REPAIR_BATCH = 64


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
        self._graph = GraphFollowUp(vectors, graph, graph_role, jobs)
        self._vectors = vectors
        self._clock = clock
        self._max_text_bytes = max_text_bytes
        self._store = ChunkStore(vectors, embedder, sparse, clock, access)
        # embedders may say which cosine means "the same" for them and whether they read CJK
        merge_cosine = float(getattr(embedder, 'merge_cosine', None) or MERGE_COSINE)
        reads_cjk = bool(getattr(embedder, 'multilingual', False))
        self._superseder = Superseder(vectors, merge_cosine, reads_cjk)
        vectors.ensure_collection(memories_spec(embedder.dim))

    @property
    def graph_role(self) -> GraphRole:
        """This process's relation to the knowledge graph."""
        return self._graph.role

    @property
    def embedder(self) -> Embedder:
        """The dense embedder new chunks are embedded with."""
        return self._store.embedder

    @contextmanager
    def locked(self, scopes: Iterable[str]) -> Iterator[None]:
        """Hold the write locks of these scopes (a caller's read-then-write of a memory)."""
        with self._store.locked(scopes):
            yield

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
        # a text the masking scanned and left as it was holds no secret: not scanned again
        skips = [
            explicit_skip(i.text, scanned_clean=not text_masked(m))
            for i, m in zip(items, masked, strict=True)
        ]
        # the embedding is a write's dearest step and needs no lock: done before it, writes of
        # one scope wait for each other only for the store's reads and writes
        prepared = self._store.embed_unstored(items, ids, skips)
        with self._store.locked(i.scope for i in items):
            results = self._remember(items, ids, skips, prepared)
        return [
            r.model_copy(update={'redacted': m}) if m else r
            for r, m in zip(results, masked, strict=True)
        ]

    def _remember(
        self,
        items: Sequence[MemoryIn],
        ids: Sequence[str],
        skips: Sequence[str | None],
        prepared: Mapping[str, list[float]],
    ) -> list[WriteResult]:
        now = self._clock.now()
        plan = MergePlan(self._vectors, items, now)
        plan.sort(ids, skips)  # layers 1 and 2
        dense = self._store.vectors_of({i: c for i, (_, c) in plan.fresh.items()}, prepared)
        # layer 3 and supersession: may merge a new chunk away (plan.bump) or outdate memories
        supersede = self._superseder.resolve(
            plan.fresh, dense, plan.bumps, items, plan.bump, plan.results, now
        )
        self._superseder.restate(plan.restated(), supersede, now)
        self._store.store_linked(plan.new_chunks(supersede), dense)
        # read after the new chunks are stored: a superseder among them is read too
        self._store.set_payload(plan.updates(supersede))
        self._graph.queue(list(plan.fresh))
        return plan.outcome()

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
        chunks = [_with_slots(redact_chunk(c)[0]) for c in chunks]
        self._store.upsert(chunks, dense)
        if graph:
            self._graph.queue([c.id for c in chunks])

    # ---- the graph --------------------------------------------------------------------------

    def queue_graph(self, ids: Sequence[str]) -> None:
        """Queue graph extraction of stored chunks (run at once when no queue is wired)."""
        self._graph.queue(ids)

    def forget_graph(self, ids: list[str]) -> None:
        """Forget deleted chunks or episodes in the graph, whoever owns it."""
        self._graph.forget(ids)

    def index_graph(self, ids: Sequence[str]) -> int:
        """Extract the given chunks into the graph and record the entities they mention."""
        return self._graph.index(ids)

    # ---- payload changes and deletes ----------------------------------------------------------

    def update(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge payload fields into memories (id -> fields), secrets masked; vectors untouched."""
        self._store.update(updates)

    def delete_many(self, ids: Sequence[str], *, graph: bool = True) -> None:
        """Delete memories by id, and their graph mentions unless the caller forgets them.
        What they had outdated is weighed again without them (`recall.write.restoration`):
        no record keeps naming a deleted id, which the next write of its text would reuse."""
        batch = list(ids)
        if not batch:
            return
        gone = self._vectors.retrieve(MEMORIES, batch)
        # the records naming them are read and rewritten as a write would: under the lock
        with self._store.locked(str(p.payload.get('scope')) for p in gone):
            self._store.delete(batch)
            restore(self._vectors, self._superseder, gone, self._clock.now())
        if graph:
            self._graph.forget(batch)

    def relink(self, ids: Sequence[str], renamed: Mapping[tuple[str, str], str]) -> None:
        """Imported memories' supersession records made to name memories of their own scope
        (`renamed`: (scope, id in the file) -> id stored), and records naming a memory their
        scope does not hold dropped (`recall.write.restoration.relink`)."""
        if not ids:
            return
        scopes = {str(p.payload.get('scope')) for p in self._vectors.retrieve(MEMORIES, ids)}
        with self._store.locked(scopes):
            relink(self._vectors, self._superseder, ids, renamed, self._clock.now())

    def reweigh_edited(self, ident: str) -> None:
        """A memory whose text an edit changed (stored already) weighed again: the records it
        made that its new text no longer justifies go as after its delete, and it outdates
        what it now states (`recall.write.restoration.reweigh_edited`). The caller holds its
        scope's write lock."""
        reweigh_edited(self._vectors, self._superseder, ident, self._clock.now())

    def repair_records(self) -> int:
        """Drop every supersession record naming a memory that does not exist (written before
        deletes dropped them, or hydrated), as a delete of that memory would, and weigh their
        holders again (`recall.write.restoration.repair`); returns the memories changed."""
        found = dangling(self._vectors)
        changed = 0
        for start in range(0, len(found), REPAIR_BATCH):
            batch = found[start : start + REPAIR_BATCH]
            # found without the locks: `repair` reads both sides again under them
            with self._store.locked({scope for _, scope in batch}):
                ids = [ident for ident, _ in batch]
                changed += len(repair(self._vectors, self._superseder, ids, self._clock.now()))
        return changed

    def delete(self, ident: str) -> None:
        """Delete a chunk and its graph mentions; NotFound when there is none."""
        self._store.get(ident)
        self.delete_many([ident])

    def set_tiers(self, tiers: Mapping[str, Tier], now: datetime) -> None:
        """Apply decay tier transitions (memory id -> new tier)."""
        self._store.set_tiers(tiers, now)

    def set_pinned(self, ident: str, pinned: bool) -> Chunk:
        """Pin (Core, never demoted) or unpin (back to working) a chunk."""
        return self._store.set_pinned(ident, pinned)

    def touch(self, ids: Sequence[str], scopes: Iterable[str] | None = None) -> None:
        """Record a recall of these chunks: access count and time. An id given n times (the
        hits of several searches recorded together) counts n recalls. `scopes`, the chunks'
        scopes when the caller knows them (a search's hits do), saves reading them first."""
        self._store.touch(ids, scopes)


def _with_slots(chunk: Chunk) -> Chunk:
    """`chunk` with the slots its facts fill, when the record did not carry them (hydrated and
    imported memories), so a later fact of a slot finds it as it finds a written one."""
    if chunk.slots or chunk.kind in RECORD_KINDS:
        return chunk
    return chunk.model_copy(update={'slots': slot_tags(facts_of(chunk.text))})
