"""What a merge changes in a stored memory: it only ever adds (issue 12)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.models import MERGE_RECORDS, MergeRecord
from recall.normalize import content_hash
from recall.schemas import MemoryIn
from recall.tiers import Tier
from recall.write.trust import trust_of, trust_rank


def merged_change(base: dict[str, Any], item: MemoryIn, now: datetime) -> dict[str, Any]:
    """The payload change of merging `item` into the stored `base`: a merge only adds. It
    keeps the pin, the higher importance, the older event time, the stored metadata (its
    keys win; new keys are added) and the union of tags, and counts one more access. The
    merged write is recorded in the memory's history (`merges`)."""
    recorded = _merge_record(base, item, now)
    if trust_rank(trust_of(item)) < trust_rank(base.get('trust')):
        # the same text from a less trusted source is one more access and nothing else
        return {
            'access_count': int(base.get('access_count', 0)) + 1,
            'accessed_at': to_epoch(now),
            'updated_at': to_epoch(now),
            **recorded,
        }
    importance = max(float(base.get('importance', 0.5)), item.importance or 0.0)
    pinned = bool(base.get('pinned')) or item.pinned
    tags = list(dict.fromkeys([*base.get('tags', []), *item.tags]))
    change: dict[str, Any] = {
        'access_count': int(base.get('access_count', 0)) + 1,
        'accessed_at': to_epoch(now),
        'updated_at': to_epoch(now),
        'importance': importance,
        'metadata': {**item.metadata, **base.get('metadata', {})},
        'pinned': pinned,
        'tags': tags,
        **recorded,
    }
    if pinned:
        change['tier'] = Tier.CORE.value
    if trust_rank(trust_of(item)) > trust_rank(base.get('trust')):
        change['trust'] = trust_of(item).value
    stored_at = base.get('created_at')
    if item.created_at is not None and (
        not isinstance(stored_at, int | float) or to_epoch(item.created_at) < stored_at
    ):
        change['created_at'] = to_epoch(item.created_at)
    return change


def _merge_record(base: dict[str, Any], item: MemoryIn, now: datetime) -> dict[str, Any]:
    """The payload change that adds `item` to the merges recorded on `base`."""
    if base.get('content_hash') == content_hash(item.text):
        reason = 'same text'
    elif item.entity_key and item.entity_key == base.get('entity_key'):
        reason = 'same entity key'
    else:
        reason = 'similar text'
    record = MergeRecord(
        at=now, text=item.text, reason=reason, source=item.source, trust=trust_of(item)
    )
    kept = [*base.get('merges', []), record.model_dump(mode='json')][-MERGE_RECORDS:]
    return {'merges': kept, 'merge_count': int(base.get('merge_count', 0)) + 1}


def same_subject(new: str | None, old: object) -> bool:
    """Whether a write by `new` may merge with a memory stored for `old` (unknown matches)."""
    # two speakers named differently say different things about different people
    return new is None or not isinstance(old, str) or not old or new == old
