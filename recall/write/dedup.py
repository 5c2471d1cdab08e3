"""The dedup and merge plan of one batch of writes: which writes become new memories, which merge
into a stored (or same-batch) memory, and what the merges and supersessions change.

Layer 1: the same normalised text for the same (scope, user) is the same id: a merge.
Layer 2: the same entity key (phone:…, birthday:…) in scope: a merge into the stored one.
Layer 3 (semantic twins of distilled kinds) and supersession are `recall.write.superseder`'s; it
merges through `MergePlan.bump` too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from recall.decay import next_tier
from recall.models import MEMORIES, Chunk
from recall.normalize import content_hash
from recall.schemas import MemoryIn, WriteResult, WriteStatus
from recall.speakers import speaker_of
from recall.tiers import KIND_DEFAULTS, ImportanceLabel, Tier
from recall.write.facts import facts_of
from recall.write.importance import write_grade
from recall.write.merging import keyed_twin, merged_change, stated_at
from recall.write.supersession import slot_tags
from recall.write.trust import trust_of, trust_rank
from vectors.models import StoredPoint
from vectors.ports import VectorStore


class MergePlan:
    """One batch's new chunks (`fresh`: id -> (item index, chunk)), its merges (`bumps`: id ->
    payload change) and a result per item."""

    def __init__(self, vectors: VectorStore, items: Sequence[MemoryIn], now: datetime) -> None:
        """`now` is the batch's write time."""
        self._vectors = vectors
        self._items = items
        self._now = now
        self.existing: dict[str, StoredPoint] = {}
        self.fresh: dict[str, tuple[int, Chunk]] = {}
        self.bumps: dict[str, dict[str, Any]] = {}
        self.results: list[WriteResult | None] = [None] * len(items)
        self._revived: set[str] = set()

    def sort(self, ids: Sequence[str], skips: Sequence[str | None]) -> None:
        """Sort each item (by its id and the guards' skip reason) into skipped, merged by layers
        1 and 2, or new."""
        stored = self._vectors.retrieve(MEMORIES, list(dict.fromkeys(ids)))
        self.existing = {p.id: p for p in stored}
        for index, (item, ident, skip) in enumerate(zip(self._items, ids, skips, strict=True)):
            if skip is not None:
                # the guards run on explicit writes too: a prompt the runtime or an attacker
                # wrote, or a credential, must not come back later as a recalled memory
                self.results[index] = WriteResult(id=None, status=WriteStatus.SKIPPED, reason=skip)
            elif ident in self.fresh or ident in self.existing or ident in self.bumps:
                self.bump(ident, item, index, 'same text')
            elif (keyed := keyed_twin(self._vectors, item, self.fresh)) is not None:
                self.bump(keyed, item, index, f'same entity key {item.entity_key}')
            else:
                self.fresh[ident] = (index, new_chunk(ident, item, self._now))
                self.results[index] = WriteResult(id=ident, status=WriteStatus.CREATED)

    def bump(self, target: str, item: MemoryIn, index: int, reason: str) -> None:
        """Merge `item` (the batch's `index`-th) into the memory `target`."""
        known = target in self.existing or target in self.fresh or target in self.bumps
        if not known:
            # layers 2 and 3 name a stored memory other than the text's own id: the merge
            # must start from what is stored, or it rebuilds the memory from defaults
            self.existing.update({p.id: p for p in self._vectors.retrieve(MEMORIES, [target])})
        stored = self.existing.get(target)
        if target in self.fresh:
            base = self.fresh[target][1].to_payload()
        else:
            base = dict(stored.payload) if stored else {}
        # a second merge in one batch starts from the first one's result
        base.update(self.bumps.get(target, {}))
        self.bumps[target] = merged_change(base, item, self._now)
        self.results[index] = WriteResult(
            id=target, status=WriteStatus.MERGED, reason=reason, merged_into=target
        )

    def restated(self) -> list[Chunk]:
        """The stored memories this batch said again later than any statement before, as
        merged: a restatement is as current as its last saying."""
        out: list[Chunk] = []
        for ident, change in self.bumps.items():
            stored = self.existing.get(ident)
            if stored is None or ident in self.fresh:
                continue
            if float(change.get('stated_at', 0.0)) > stated_at(stored.payload):
                out.append(Chunk.from_payload({**stored.payload, **change}))
        return out

    def new_chunks(self, supersede: dict[str, dict[str, Any]]) -> list[Chunk]:
        """The new chunks in write order, each with the supersession records this batch gave it
        (an older-dated fact); their entries leave `supersede`, which keeps the stored ones'."""
        ordered = sorted(self.fresh.values(), key=lambda entry: entry[0])
        return [_marked(c, supersede.pop(c.id, None)) for _, c in ordered]

    def updates(self, supersede: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The payload change of every stored memory this batch merged into or superseded;
        a memory superseded by a less trusted one that a merge made more trusted is current
        again."""
        updates = {
            i: {**self.bumps.get(i, {}), **supersede.get(i, {})} for i in {*self.bumps, *supersede}
        }
        self._revived = _revive_outranked(self._vectors, updates, self.existing)
        return updates

    def outcome(self) -> list[WriteResult]:
        """A result per item, in order; a revived memory is no longer reported superseded."""
        return [r.still_superseding(self._revived) for r in self.results if r is not None]


def new_chunk(ident: str, item: MemoryIn, now: datetime) -> Chunk:
    """The chunk a new write stores: its kind's tier and importance band, graded by its text."""
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


def _revive_outranked(
    vectors: VectorStore, updates: dict[str, dict[str, Any]], existing: Mapping[str, StoredPoint]
) -> set[str]:
    """A less trusted memory never outdates a more trusted one, also after a merge raised trust:
    a memory superseded by a less trusted one is current again (a user restating what a tool's
    contradiction superseded), whether the supersession is stored or this batch's; the ids it
    revived."""
    # the chunks of this batch are stored by now: a superseder among them is read too
    by = {
        i: change.get('superseded_by', existing[i].payload.get('superseded_by'))
        for i, change in updates.items()
        if 'trust' in change and i in existing
    }
    live = [b for b in by.values() if isinstance(b, str)]
    found = vectors.retrieve(MEMORIES, live) if live else []
    trust = {p.id: p.payload.get('trust') for p in found}
    revived: set[str] = set()
    for ident, later in by.items():
        if later in trust and trust_rank(updates[ident]['trust']) > trust_rank(trust[later]):
            updates[ident].update(superseded=False, superseded_by=None)
            revived.add(ident)
    return revived


def _marked(chunk: Chunk, change: Mapping[str, Any] | None) -> Chunk:
    if not change:
        return chunk
    return chunk.model_copy(update={k: v for k, v in change.items() if k != 'updated_at'})
