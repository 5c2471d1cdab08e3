"""A search's hits counted as recalls: access count and time, which feed decay and tier moves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.decay import next_tier, payload_vitals, vitals
from recall.models import MEMORIES, Chunk
from recall.ports import AccessLog
from vectors.ports import VectorStore


def record_recalls(
    vectors: VectorStore, ids: Sequence[str], moment: datetime, access: AccessLog | None
) -> None:
    """Count a recall at `moment` of each id (n times if given n times) and move the tiers the
    counts change. With `access` the counts go there (`vectors` reads through its overlay) and
    a payload is written only when a tier moves; without it, into every payload. The caller
    holds the scopes' write locks: counts are read, then written."""
    counts = Counter(ids)
    at = to_epoch(moment)
    updates: dict[str, dict[str, Any]] = {}
    found = vectors.retrieve(MEMORIES, list(counts))
    for point in found:
        # read off the payload (a Chunk is built only for one that does not hold them as
        # written): this runs after every search, beside the next one
        life = payload_vitals(point.payload) or vitals(Chunk.from_payload(point.payload))
        touched = life._replace(access_count=life.access_count + counts[point.id], accessed=at)
        # a recall may promote: tier transitions are evaluated on every search-hit touch
        tier = next_tier(touched, at)
        if access is None:
            updates[point.id] = {
                'access_count': touched.access_count,
                'accessed_at': at,
                'tier': tier.value,
            }
        elif tier != life.tier:
            updates[point.id] = {'tier': tier.value}  # rare: the payload moves only then
    if access is not None:
        access.add({p.id: (counts[p.id], at) for p in found})
    if updates:
        vectors.set_payload(MEMORIES, updates)
