"""Past states in `memory_search`: a question about a time that has ended ("Where did Dana work
in 2023?", "我2025年住在哪里？") also reads superseded memories, and keeps those that held then.
A question about an earlier state that names no time ("Where did I use to live?", "我以前住在哪
里？") reads them too: what was replaced is what it asks for.

A superseded memory held from its event time (`created_at`) until the event time of the memory
that replaced it; it answers a question whose period overlaps that span. Memories that were
never replaced are left to ranking (the date boost, the graph's slot evidence).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from recall.models import MEMORIES, Chunk
from recall.read.context import Period, query_period
from vectors.ports import VectorStore


def past_period(query: str, now: datetime) -> Period | None:
    """The period a query names when it has ended (a month named without a year is not one)."""
    period = query_period(query, now)
    if period is None or period.start is None or period.end is None:
        return None
    return period if period.end <= now else None


# words that ask for an earlier state without a date. "之前" only after a pronoun or at the start
# ("我之前住在哪里"): after a noun it means "before" that thing ("开会之前")
EARLIER = re.compile(
    r'(?i)\b(?:used to|did \w+ use to|previously|formerly|in the past'
    r'|my (?:old|previous|former) \w+)\b'
    r'|以前|原来|曾经|从前|(?:^|[我你他她们])之前'
)


def asks_earlier(query: str) -> bool:
    """Whether the query asks about an earlier state without naming when."""
    return EARLIER.search(query) is not None


def not_then(chunks: Sequence[Chunk], period: Period, vectors: VectorStore) -> set[str]:
    """Ids of the superseded chunks among `chunks` that did not hold during `period`."""
    replaced = [c for c in chunks if c.superseded_by]
    if not replaced:
        return set()
    assert period.start is not None and period.end is not None
    later = {
        p.id: p.payload.get('created_at')
        for p in vectors.retrieve(MEMORIES, list({str(c.superseded_by) for c in replaced}))
    }
    out: set[str] = set()
    for chunk in replaced:
        ended = later.get(str(chunk.superseded_by))
        until = datetime.fromtimestamp(ended, UTC) if isinstance(ended, int | float) else None
        began = chunk.created_at
        if began >= period.end or (until is not None and until <= period.start):
            out.add(chunk.id)
    return out
