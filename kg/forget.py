"""What the graph keeps of a deleted source: its mentions go, the facts only it said are retracted.

Facts are never deleted here (`expired_at` retracts them in system time), so `as_of` history
reads still show what was once recorded and when it was withdrawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kg.models import Relation, RelationUpdate
from kg.ports import GraphStore


def forget_sources(store: GraphStore, ids: Sequence[str], now: datetime) -> int:
    """Drop the MENTIONS of deleted chunks/episodes and retract the current facts read from them,
    unless a live chunk still names both ends of the fact (it says it too, in all likelihood:
    a fact re-read from a second chunk keeps the id and source of the first). Returns the number
    of facts retracted."""
    gone = set(ids)
    named = store.forget_sources(list(ids))
    if not named:
        return 0
    current = [r for r in store.relations_of(named) if r.expired_at is None]
    ends = list(dict.fromkeys(e for r in current for e in (r.subject_id, r.object_id)))
    live = {e: set(c) for e, c in store.chunk_mentions(ends).items()}

    def orphaned(rel: Relation) -> bool:
        # read from a chunk deleted now, or earlier while another chunk still said it
        source = rel.source_chunk
        return source is not None and (source in gone or source not in live.get(rel.subject_id, ()))

    expired = [
        RelationUpdate(id=r.id, subject_id=r.subject_id, expired_at=now)
        for r in current
        if (r.source_episode in gone or orphaned(r))
        and not (live.get(r.subject_id, set()) & live.get(r.object_id, set()))
    ]
    if expired:
        store.update_relations(expired)
    return len(expired)
