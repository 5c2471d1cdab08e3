"""The writer's supersession step: which stored (or same-batch) memories a new one outdates.

Candidates are the memories of the same owner that state one of the new memory's slots (found
by their `slot:` tags) and the similar ones the dedup layer read already (memories stored
before facts had tags). Event time orders them: a memory whose event time is older than a
stored one's is outdated by it instead of outdating it ("stored as past").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.models import ANY_USER, MEMORIES, Chunk
from recall.schemas import MemoryIn, WriteResult, WriteStatus
from recall.tiers import Kind, Tier
from recall.write.chunk_store import PINNED_BY
from recall.write.conflicts import detect, merge_agrees
from recall.write.facts import SINGLE_VALUED
from recall.write.merging import different_subjects, keeps_content, same_subject, stated_at
from recall.write.supersession import (
    RECORD_KINDS,
    Stated,
    Supersession,
    amended_slots,
    fully_replaced,
    past_outdated,
    replaced,
)
from recall.write.trust import trust_rank
from vectors.models import PointFilter, ScoredPoint, StoredPoint
from vectors.ports import VectorStore

# dedup layer 3 and the conflict check look at this many similar memories
CONFLICT_CANDIDATES = 5
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
SLOT_CANDIDATES = 50  # stored memories of one owner's single-valued slots read per write
MANY_CANDIDATES = 20  # the most similar of a many-valued slot (a person likes many things)
# "Actually, I prefer coffee" amends a preference about the same thing: with MiniLM, "I prefer
# tea" is at 0.58-0.69 of it and "I prefer window seats" at 0.39 (unrelated ones 0.07-0.40)
AMEND_MIN_COSINE = 0.5


@dataclass
class Plan:
    """What one new memory changes: new records per outdated memory, and the ids to hide."""

    stale: dict[str, list[Supersession]] = field(default_factory=dict)
    hidden: dict[str, Supersession] = field(default_factory=dict)
    # the new memory hid one capture pinned: it takes the pin (Core), as the slot's value now
    pin: bool = False

    def add(self, target: str, records: Sequence[Supersession]) -> None:
        """Record `records` against `target`."""
        if records:
            self.stale.setdefault(target, []).extend(records)


@dataclass(frozen=True, slots=True)
class _Candidate:
    id: str
    payload: Mapping[str, Any]
    score: float | None = None  # its cosine to the new memory, when a query found it


class Superseder:
    """Finds the memories a new memory outdates, and the records that say why."""

    def __init__(self, vectors: VectorStore, merge_cosine: float, reads_cjk: bool) -> None:
        """`merge_cosine`: the embedder's cosine for "the same memory"; `reads_cjk`: whether
        its cosines between Chinese texts mean anything."""
        self._vectors = vectors
        self._merge_cosine = merge_cosine
        self._reads_cjk = reads_cjk

    def resolve(
        self,
        fresh: dict[str, tuple[int, Chunk]],
        dense: Mapping[str, list[float]],
        bumps: Mapping[str, Any],
        items: Sequence[MemoryIn],
        bump: Callable[[str, MemoryIn, int, str], None],
        results: list[WriteResult | None],
        now: datetime,
    ) -> dict[str, dict[str, Any]]:
        """Merge near-duplicates of distilled memories, and record which facts each new memory
        outdates (recall.write.supersession): payload changes by id, this batch's included."""
        changes: dict[str, dict[str, Any]] = {}
        hidden_by: dict[str, list[str]] = {}
        # this batch's memories written so far, as `plan` weighs them: only those that state a
        # fact can outdate or be outdated (most turns state none), and each one's payload is
        # built once, not at every later write of the batch
        written: list[_Candidate] = []
        for ident in sorted(fresh, key=lambda i: fresh[i][0]):
            index, chunk = fresh[ident]
            if ident in bumps:
                continue  # a chunk other items of this batch already merged into must stay
            similar: list[ScoredPoint] = []
            if chunk.kind in DISTILLED_KINDS:
                twin, similar = self._semantic_twin(chunk, dense[ident], fresh)
                if twin is not None:
                    del fresh[ident]
                    bump(twin, items[index], index, 'semantic duplicate')
                    continue
            known = {i: c.get('stale', []) for i, c in changes.items()}
            gone = {i for i, c in changes.items() if c.get('superseded')}
            plan = self.plan(chunk, written, similar, known, dense[ident], gone)
            chunk = _with_corrected_slots(chunk, plan)
            if plan.pin and not chunk.pinned:
                chunk = chunk.model_copy(update={'pinned': True, 'tier': Tier.CORE})
            fresh[ident] = (index, chunk)
            if Stated.of(chunk.id, chunk.text, chunk.speaker, chunk.slots).facts:
                written.append(_Candidate(chunk.id, chunk.to_payload()))
            for target, records in plan.stale.items():
                change = changes.setdefault(target, {'stale': []})
                change['stale'] = [*change['stale'], *(r.model_dump() for r in records)]
                change['updated_at'] = to_epoch(now)
                if target in plan.hidden:
                    record = plan.hidden[target]
                    change.update(
                        superseded=True, superseded_by=record.by, supersession=record.model_dump()
                    )
                    hidden_by.setdefault(record.by, []).append(target)
        stored = [t for t in changes if t not in fresh]
        for point in self._vectors.retrieve(MEMORIES, stored) if stored else []:
            before = point.payload.get('stale') or []
            changes[point.id]['stale'] = [*before, *changes[point.id]['stale']]
        _report(fresh, changes, hidden_by, results)
        return changes

    def restate(
        self, restated: Sequence[Chunk], changes: dict[str, dict[str, Any]], now: datetime
    ) -> None:
        """Stored memories said again later than before (`restated`: their merged view): what
        only earlier statements outdated is current again, and what was stated before the
        restatement is outdated by it ("I live in Paris", "I moved to Berlin", then "I live in
        Paris" again). Adds the payload changes to `changes`, those of `resolve`."""
        for chunk in restated:
            if changes.get(chunk.id, {}).get('superseded'):
                continue  # a later memory of this batch outdated it already
            change = changes.setdefault(chunk.id, {})
            self._weigh_again(self._current_again(chunk, change), change, changes, now)

    def reweigh(
        self, chunks: Sequence[Chunk], changes: dict[str, dict[str, Any]], now: datetime
    ) -> None:
        """Stored memories (`chunks`, as stored) weighed again against the live memories of
        their slots, as `resolve` weighed a new one: what they outdate, and what outdates them
        (recall.write.restoration: the records a deleted memory held are gone). Adds the
        payload changes to `changes`."""
        for chunk in chunks:
            change = changes.setdefault(chunk.id, {})
            if chunk.superseded or change.get('superseded'):
                continue  # hidden: it outdates nothing, and what hid it is recorded
            change.setdefault('stale', list(chunk.stale))
            self._weigh_again(chunk, change, changes, now)

    def made_by(self, chunk: Chunk, holders: Sequence[Chunk]) -> dict[str, list[dict[str, Any]]]:
        """The records naming `chunk` (as stored now: an edit's new text) that its facts justify
        on each of `holders`, weighed as if both were current: those its write makes (it
        outdates their facts) and those their writes give them (an older event, a fact told in
        the past tense). By holder id."""
        live = [h.model_copy(update={'superseded': False, 'stale': []}) for h in holders]
        current = chunk.model_copy(update={'superseded': False})
        made = self.plan(current, live, [], {})
        out: dict[str, list[dict[str, Any]]] = {}
        for holder in live:
            theirs = self.plan(holder, [current], [], {}).stale.get(holder.id, [])
            records = [*made.stale.get(holder.id, []), *(r for r in theirs if r.by == chunk.id)]
            # its write's record of a fact, if it made one, says what theirs would say again
            out[holder.id] = _unique([r.model_dump() for r in records])
        return out

    def _weigh_again(
        self,
        current: Chunk,
        change: dict[str, Any],
        changes: dict[str, dict[str, Any]],
        now: datetime,
    ) -> None:
        """Apply to `changes` the plan of a stored memory (`current`, its `change` so far)."""
        plan = self.plan(current, [], [], {current.id: change['stale']})
        for target, records in plan.stale.items():
            other = change if target == current.id else self._change_of(target, changes)
            other['stale'] = _unique([*other['stale'], *(r.model_dump() for r in records)])
            other['updated_at'] = to_epoch(now)
            if target in plan.hidden:
                record = plan.hidden[target]
                other.update(
                    superseded=True, superseded_by=record.by, supersession=record.model_dump()
                )

    def _current_again(self, chunk: Chunk, change: dict[str, Any]) -> Chunk:
        """`chunk` without the records of memories stated no later than its restatement (its
        own past-tense facts stay history); `change` gets the same."""
        at = stated_at(chunk.to_payload())
        by = {str(r.get('by')) for r in chunk.stale} | {chunk.superseded_by or ''}
        found = self._vectors.retrieve(MEMORIES, sorted(b for b in by if b))
        earlier = {p.id for p in found if stated_at(p.payload) <= at}
        kept = [r for r in chunk.stale if r.get('rule') == 'past' or r.get('by') not in earlier]
        change['stale'] = kept
        if chunk.superseded and chunk.superseded_by in earlier:
            change.update(superseded=False, superseded_by=None, supersession=None)
        return chunk.model_copy(
            update={'stale': kept, 'superseded': bool(change.get('superseded', chunk.superseded))}
        )

    def _change_of(self, target: str, changes: dict[str, dict[str, Any]]) -> dict[str, Any]:
        if target not in changes:
            [point] = self._vectors.retrieve(MEMORIES, [target])
            changes[target] = {'stale': list(point.payload.get('stale') or [])}
        return changes[target]

    def _semantic_twin(
        self, chunk: Chunk, vector: list[float], fresh: dict[str, tuple[int, Chunk]]
    ) -> tuple[str | None, list[ScoredPoint]]:
        """A stored near-duplicate to merge into, and the similar memories read to find it."""
        flt = PointFilter(
            scopes=[chunk.scope],
            any_of={'owner': [chunk.user_id or ANY_USER], 'kind': sorted(DISTILLED_KINDS)},
            none_of={'superseded': [True]},
        )
        similar = self._vectors.query(MEMORIES, 'dense', vector, flt, CONFLICT_CANDIDATES)
        for point in similar:
            if point.id == chunk.id or point.id in fresh:
                continue
            if trust_rank(chunk.trust) < trust_rank(point.payload.get('trust')):
                # a less trusted write never merges into a more trusted memory; it is kept
                # beside it and ranks below it
                continue
            key = point.payload.get('entity_key')
            if chunk.entity_key and key and key != chunk.entity_key:
                continue  # two keyed values (the twins' birthdays) are two memories, however alike
            if point.score < CONFLICT_MIN_COSINE:
                break  # candidates come best first, and the merge cosine is above this one
            text = str(point.payload.get('text', ''))
            if different_subjects(chunk.text, text):
                continue  # Leo's birthday and Mia's: two memories, never one merged
            # one cosine is not enough to merge: the same kind and subject, shared words and a
            # model that reads the language must agree too; when unsure, both stay
            agreed = (
                point.payload.get('kind') == chunk.kind
                and same_subject(chunk.speaker, point.payload.get('speaker'))
                and merge_agrees(chunk.text, text, reads_cjk=self._reads_cjk)
                and keeps_content(chunk.text, text)  # the whole texts, not the clamped ones
                and not replaced(
                    Stated.of(chunk.id, chunk.text, chunk.speaker),
                    Stated.of(point.id, text, point.payload.get('speaker')),
                )
            )
            if point.score >= self._merge_cosine:
                if agreed:
                    return point.id, list(similar)
                continue
            if detect(chunk.text, text, cosine=point.score).kind == 'duplicate' and agreed:
                return point.id, list(similar)
        return None, list(similar)

    def plan(
        self,
        chunk: Chunk,
        earlier: Sequence[Chunk | _Candidate],
        similar: Sequence[ScoredPoint],
        known: Mapping[str, list[dict[str, Any]]],
        vector: Sequence[float] | None = None,
        gone: frozenset[str] | set[str] = frozenset(),
    ) -> Plan:
        """The changes `chunk` makes: `earlier` are this batch's memories written before it
        (chunks, or candidates holding their payloads), `similar` the stored neighbours already
        read, `known` the records each target got earlier in this batch (a memory is hidden
        once all of its facts are replaced)."""
        plan = Plan()
        if chunk.kind in RECORD_KINDS:
            return plan
        new = Stated.of(chunk.id, chunk.text, chunk.speaker, chunk.slots)
        if not new.facts:
            return plan
        candidates = {c.id: c for c in self._by_slot(chunk, new, vector)}
        for point in similar:
            candidates.setdefault(point.id, _Candidate(point.id, point.payload, point.score))
        for other in earlier:
            candidates[other.id] = (
                other if isinstance(other, _Candidate) else _Candidate(other.id, other.to_payload())
            )
        candidates.pop(chunk.id, None)
        for ident in gone:  # hidden earlier in this batch: its records say by whom already
            candidates.pop(ident, None)
        own = list(known.get(chunk.id, []))
        at = stated_at(chunk.to_payload())
        amended = _amended(chunk, new, at, candidates.values())
        for cand in candidates.values():
            _weigh(plan, chunk, new, at, cand, amended=cand.id == amended)
        for target, records in plan.stale.items():
            # a pin the client set protects a memory from unpinned statements (its replaced
            # facts are only recorded on it), not from a pinned one; a pin capture set by
            # itself (a captured name) keeps it in Core, not current: the owner's correction
            # hides it and takes the pin
            if target == chunk.id:
                stated, before = new, own
                by_pinned = any(
                    candidates[r.by].payload.get('pinned') for r in records if r.by in candidates
                )
                protected = chunk.pinned and not by_pinned
            else:
                p = candidates[target].payload
                protected = bool(p.get('pinned')) and not chunk.pinned and not _capture_pin(p)
                stated = Stated.of(
                    target, str(p.get('text', '')), p.get('speaker'), p.get('slots') or ()
                )
                before = [*p.get('stale', []), *known.get(target, [])]
            dumped = [r.model_dump() for r in records]
            if not protected and fully_replaced(stated, [*before, *dumped]):
                plan.hidden[target] = records[-1]
                plan.pin |= target != chunk.id and _capture_pin(candidates[target].payload)
        return plan

    def _by_slot(
        self, chunk: Chunk, new: Stated, vector: Sequence[float] | None
    ) -> list[_Candidate]:
        """The owner's memories of the new facts' slots: every one of a single-valued slot
        (a few per person), the most similar ones of a many-valued slot (likes pile up)."""
        filled = {f.slot for f in new.facts if f.single}
        if any(f.retracts for f in new.facts):
            filled |= SINGLE_VALUED  # the value named as over may be any slot's ("…instead of Bob")
        # "Actually, I prefer Beth" may amend the name
        filled |= {s for f in new.facts for s in f.amends if s in SINGLE_VALUED}
        single = sorted(filled)
        many = sorted({f.slot for f in new.facts if not f.single})
        # memories stored before facts had slots carry `slot:<name>` tags for these three
        legacy = sorted({f'slot:{s}' for s in single if s in ('lives_in', 'works_at', 'editor')})
        found: list[StoredPoint | ScoredPoint] = []
        for key, tags in (('slots', single), ('slots', many), ('tags', legacy)):
            if not tags:
                continue
            wanted: dict[str, list[str | bool | int]] = {
                key: list(tags),
                'owner': [chunk.user_id or ANY_USER],
            }
            flt = PointFilter(
                scopes=[chunk.scope],
                any_of=wanted,
                none_of={'superseded': [True]},
            )
            if tags is many and vector is not None:
                found += self._vectors.query(MEMORIES, 'dense', list(vector), flt, MANY_CANDIDATES)
            else:
                found += self._vectors.scroll(MEMORIES, flt, SLOT_CANDIDATES)[0]
        return [
            _Candidate(p.id, p.payload, p.score if isinstance(p, ScoredPoint) else None)
            for p in found
        ]


def _amended(chunk: Chunk, new: Stated, at: float, candidates: Iterable[_Candidate]) -> str | None:
    """The memory a preference said as a correction ("Actually, I prefer Beth") amends: the
    owner's latest, stated no later than it, of a slot it may replace; a preference only when
    it is about the same thing (tea then coffee, not window seats)."""
    if not any(f.amends for f in new.facts):
        return None
    latest: tuple[float, str] | None = None
    for cand in candidates:
        p = cand.payload
        if p.get('superseded') or (p.get('owner') or ANY_USER) != (chunk.user_id or ANY_USER):
            continue
        when = stated_at(p)
        old = Stated.of(cand.id, str(p.get('text', '')), p.get('speaker'), p.get('slots') or ())
        slots = amended_slots(new, old)
        alike = cand.score is not None and cand.score >= AMEND_MIN_COSINE
        if not (slots & SINGLE_VALUED or (slots and alike)):
            continue
        if when <= at and (latest is None or when > latest[0]):
            latest = (when, cand.id)
    return latest[1] if latest else None


def _weigh(
    plan: Plan, chunk: Chunk, new: Stated, at: float, cand: _Candidate, *, amended: bool = False
) -> None:
    """Add to `plan` what the new `chunk` (its facts `new`, stated at `at`) and one candidate
    outdate of each other: the later-stated fact wins its slot, the older one is history, and a
    less trusted memory never outdates a more trusted one. `amended`: the candidate is the one
    a preference of `chunk` said as a correction amends."""
    p = cand.payload
    if (
        p.get('superseded')
        or p.get('kind') in RECORD_KINDS
        or (p.get('owner') or ANY_USER) != (chunk.user_id or ANY_USER)
    ):
        return
    old = Stated.of(cand.id, str(p.get('text', '')), p.get('speaker'), p.get('slots') or ())
    if not old.facts:
        return
    if at >= stated_at(p) and trust_rank(chunk.trust) >= trust_rank(p.get('trust')):
        plan.add(cand.id, replaced(new, old, amended=amended))
    if trust_rank(p.get('trust')) >= trust_rank(chunk.trust):
        if at < stated_at(p):
            plan.add(chunk.id, replaced(old, new, rule_name='older_event'))
        plan.add(chunk.id, past_outdated(new, old))


def _capture_pin(payload: Mapping[str, Any]) -> bool:
    """Whether a memory's pin is the one capture gives an entity (a captured name), not one
    a client set: on the write, by the pin route or by an edit."""
    metadata = payload.get('metadata') or {}
    return (
        bool(payload.get('pinned'))
        and payload.get('kind') == Kind.ENTITY
        and metadata.get('captured_by') == 'capture'
        and PINNED_BY not in metadata
        and not any('pinned' in (v.get('changed') or ()) for v in payload.get('versions') or ())
    )


def _with_corrected_slots(chunk: Chunk, plan: Plan) -> Chunk:
    """`chunk` tagged with the slots it corrected, so the next fact of the slot finds it."""
    slots = [
        r.slot
        for records in plan.stale.values()
        for r in records
        if r.rule == 'corrected' and r.by == chunk.id and r.slot not in chunk.slots
    ]
    if not slots:
        return chunk
    return chunk.model_copy(update={'slots': [*chunk.slots, *dict.fromkeys(slots)]})


def _unique(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per fact and memory naming it, the first kept: weighed again, an older
    memory finds the later one's replacement of its fact as an older event, which the record
    that write made says already."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for r in records:
        key = (r.get('clause'), r.get('slot'), r.get('old_value'), r.get('by'))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _reason(outdated: list[str], records: list[Supersession], own: Mapping[str, Any]) -> str | None:
    if own.get('superseded'):
        return 'stored as past: a memory with a later event time states another value'
    if outdated:
        return 'supersedes older memories'
    return 'outdates facts of older memories' if records else None


def _report(
    fresh: Mapping[str, tuple[int, Chunk]],
    changes: Mapping[str, dict[str, Any]],
    hidden_by: Mapping[str, list[str]],
    results: list[WriteResult | None],
) -> None:
    """Each new memory's write result: what it outdated, and whether it was stored as past."""
    for ident, (index, _) in fresh.items():
        outdated = [t for t in hidden_by.get(ident, []) if t != ident]
        records = [
            Supersession.model_validate(r)
            for target, change in changes.items()
            if target != ident
            for r in change['stale']
            if r['by'] == ident
        ]
        own = changes.get(ident, {})
        results[index] = WriteResult(
            id=ident,
            status=WriteStatus.CREATED,
            superseded=outdated,
            supersessions=records,
            superseded_by=own.get('superseded_by'),
            reason=_reason(outdated, records, own),
        )
