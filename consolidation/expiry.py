"""The periodic sweep (`expiry` job, every `expiry_interval_seconds`): delete episodes past their
`expires_at`, apply decay tier transitions to memories, repair supersession records naming
memories that no longer exist, and prune with per-kind retention floors.

Hygiene never prunes core or pinned memory. Per (scope, kind) it keeps at least that kind's floor
of live memories; above the floor it removes the oldest stale peripheral ones. Memories past their
own `expires_at` and long-superseded ones are removed regardless of the floor (they are already
invisible to recall).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from core.clock import to_epoch
from recall.decay import next_tier
from recall.models import EPISODES, MEMORIES, Chunk
from recall.tiers import Kind, Tier
from vectors.models import PointFilter, Range
from vectors.paging import scroll_pages

if TYPE_CHECKING:
    from consolidation.context import JobContext

log = logging.getLogger(__name__)

PAGE = 512
# Live memories kept per (scope, kind) whatever their age: a quiet agent keeps its knowledge.
DEFAULT_FLOOR = 50
RETENTION_FLOORS: dict[Kind, int] = {
    Kind.PREFERENCE: 200,
    Kind.ENTITY: 200,
    Kind.FACT: 200,
    Kind.PROCEDURE: 100,
    Kind.PROJECT_STATE: 100,
    Kind.RELATIONSHIP: 100,
    Kind.REMEMBER: 200,
    Kind.LESSON: 100,
    Kind.DREAM: 50,
    Kind.NOTE: 50,
    Kind.SUMMARY: 50,
    Kind.FAILURE: 50,
    Kind.DOCUMENT: 500,
    Kind.EPISODIC: 50,
}
STALE_AFTER = timedelta(days=30)  # peripheral and untouched this long: prunable above the floor
SUPERSEDED_GRACE = timedelta(days=7)  # audit trail kept this long after supersession


def expire_episodes(services: JobContext, now: datetime) -> int:
    """Delete episodes whose `expires_at` has passed; returns how many."""
    flt = PointFilter(scopes=None, ranges={'expires_at': Range(lte=to_epoch(now))})
    ids = [p.id for page in scroll_pages(services.vectors, EPISODES, flt, PAGE) for p in page]
    for start in range(0, len(ids), PAGE):
        services.vectors.delete(EPISODES, ids[start : start + PAGE])
    return len(ids)


def decay_sweep(services: JobContext, now: datetime) -> int:
    """Apply `recall.decay.next_tier` to every live memory; returns the number of transitions."""
    flt = PointFilter(scopes=None, none_of={'superseded': [True]})
    changed = 0
    for page in scroll_pages(services.vectors, MEMORIES, flt, PAGE):
        tiers: dict[str, Tier] = {}
        for point in page:
            chunk = Chunk.from_payload(point.payload)
            if chunk.pinned:
                continue  # pinned memory is core and never demoted
            tier = next_tier(chunk, now)
            if tier != chunk.tier:
                tiers[chunk.id] = tier
        if tiers:
            services.writer.set_tiers(tiers, now)
            changed += len(tiers)
    return changed


def prunable(chunks: list[Chunk], now: datetime, floor: int) -> list[str]:
    """Ids to prune among one (scope, kind)'s memories; never core or pinned."""
    out: list[str] = []
    live: list[Chunk] = []
    for c in chunks:
        protected = c.pinned or c.tier == Tier.CORE
        if c.superseded:
            if not protected and now - c.updated_at >= SUPERSEDED_GRACE:
                out.append(c.id)
            continue
        if c.expires_at is not None and c.expires_at <= now and not protected:
            out.append(c.id)
            continue
        live.append(c)
    allowed = max(0, len(live) - floor)
    if allowed == 0:
        return out

    def last_used(c: Chunk) -> datetime:
        return max(c.accessed_at or c.created_at, c.updated_at)

    stale = [
        c
        for c in live
        if c.tier == Tier.PERIPHERAL and not c.pinned and now - last_used(c) >= STALE_AFTER
    ]
    stale.sort(key=lambda c: (last_used(c), c.id))
    out.extend(c.id for c in stale[:allowed])
    return out


def hygiene(services: JobContext, now: datetime) -> int:
    """Prune per (scope, kind) above the retention floors; returns how many memories went."""
    groups: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
    for page in scroll_pages(services.vectors, MEMORIES, PointFilter(scopes=None), PAGE):
        for point in page:
            chunk = Chunk.from_payload(point.payload)
            groups[(chunk.scope, chunk.kind.value)].append(chunk)
    doomed: list[str] = []
    for (_scope, kind), chunks in groups.items():
        doomed.extend(prunable(chunks, now, RETENTION_FLOORS.get(Kind(kind), DEFAULT_FLOOR)))
    for start in range(0, len(doomed), PAGE):
        batch = doomed[start : start + PAGE]
        services.writer.delete_many(batch)
    return len(doomed)


def repair_records(services: JobContext, now: datetime) -> int:
    """Drop supersession records naming memories that no longer exist, showing again what
    they hid (`MemoryWriter.repair_records`); returns the memories changed."""
    return services.writer.repair_records()


def sweep(services: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Expire episodes, run the decay sweep, repair supersession records and run hygiene;
    each step fails on its own."""
    now = services.clock.now()
    out: dict[str, Any] = {}
    steps: dict[str, Callable[[JobContext, datetime], int]] = {
        'episodes_expired': expire_episodes,
        'tier_transitions': decay_sweep,
        # before pruning: a memory hidden by a record naming no memory would be pruned as
        # superseded, though nothing outdates it
        'records_repaired': repair_records,
        'memories_pruned': hygiene,
    }
    for name, step in steps.items():
        try:
            out[name] = step(services, now)
        except Exception as exc:
            log.exception('expiry step %s failed', name)
            out[name] = f'failed: {type(exc).__name__}: {exc}'
    return out
