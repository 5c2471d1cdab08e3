"""The context channel's neighbours: read by id (`prev_id`/`next_id`), the same turns as the
earlier definition (the memory before a hit, and every memory whose `prev_id` is the hit)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from core.clock import ManualClock
from recall.models import MEMORIES
from recall.read.channels import ChannelReader
from recall.read.context import same_session
from recall.schemas import MemoryIn
from recall.write.writer import MemoryWriter
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore
from vectors.models import PointFilter, ScoredPoint

NOW = datetime(2026, 3, 1, tzinfo=UTC)
A, B = 'agent:a', 'agent:b'


class _CountingStore(InMemoryVectorStore):
    def __init__(self) -> None:
        super().__init__()
        self.prev_id_scrolls = 0

    def scroll(self, collection: str, flt: PointFilter, limit: int, offset: str | None = None):  # type: ignore[no-untyped-def]
        if 'prev_id' in flt.any_of:
            self.prev_id_scrolls += 1
        return super().scroll(collection, flt, limit, offset)


def _conversation(writer: MemoryWriter) -> None:
    """Turns of two scopes written interleaved in batches, a fact between turns and a new
    session after a long gap: every case `same_session` separates."""
    start = NOW - timedelta(days=2)

    def turns(scope: str, first: int, count: int, at: datetime) -> list[MemoryIn]:
        speakers = ('Ann', 'Bo')
        return [
            MemoryIn(
                scope=scope,
                text=f'{speakers[n % 2]}: line {n} of {scope}',
                created_at=at + timedelta(minutes=n),
            )
            for n in range(first, first + count)
        ]

    writer.remember(turns(A, 0, 5, start))
    writer.remember(turns(B, 0, 3, start))
    writer.remember(turns(A, 5, 1, start))
    writer.remember([MemoryIn(scope=A, text='buy oat milk', created_at=start)])
    writer.remember(turns(A, 6, 4, start))
    writer.remember(turns(B, 3, 2, start))
    writer.remember(turns(A, 10, 3, start + timedelta(hours=6)))


def _all_payloads(store: InMemoryVectorStore) -> dict[str, dict[str, Any]]:
    points, _ = store.scroll(MEMORIES, PointFilter(scopes=None), 1000)
    return {p.id: p.payload for p in points}


def _reference(ids: list[str], every: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """The earlier definition, over every stored payload."""
    out: dict[str, set[str]] = {}
    for ident in ids:
        prev = every[ident].get('prev_id')
        if prev in every and same_session(every[ident], every[prev]):
            out.setdefault(ident, set()).add(prev)
        for other, payload in every.items():
            if payload.get('prev_id') == ident and same_session(every[ident], payload):
                out.setdefault(ident, set()).add(other)
    return out


def _neighbours(
    reader: ChannelReader, every: dict[str, dict[str, Any]], ids: list[str], scope: str
) -> dict[str, set[str]]:
    channels = {'bm25': [ScoredPoint(id=i, score=1.0, payload=every[i]) for i in ids]}
    payloads = {i: every[i] for i in ids}
    found = reader.neighbours(channels, PointFilter(scopes=[scope]), payloads)
    return {k: set(v) for k, v in found.items()}


def test_context_neighbours_come_by_id_and_match_the_prev_id_definition():
    store, clock = _CountingStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    recall = ChannelReader(store, HashEmbedder(), Bm25Encoder())
    _conversation(writer)
    every = _all_payloads(store)
    assert all('next_id' in p for p in every.values())
    for scope in (A, B):
        mine = sorted(i for i, p in every.items() if p['scope'] == scope)
        for ids in (mine, mine[::2], mine[1::3]):
            assert _neighbours(recall, every, ids, scope) == _reference(ids, every)
    found = _neighbours(recall, every, sorted(every)[:6], A)
    assert found, 'the fixture must have neighbours to compare'
    assert store.prev_id_scrolls == 0


def test_payloads_written_before_next_id_still_find_their_successors():
    store, clock = _CountingStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    recall = ChannelReader(store, HashEmbedder(), Bm25Encoder())
    _conversation(writer)
    for point in store._points(MEMORIES).values():
        point.payload.pop('next_id')
    every = _all_payloads(store)
    mine = sorted(i for i, p in every.items() if p['scope'] == A)
    assert _neighbours(recall, every, mine[::2], A) == _reference(mine[::2], every)
    assert store.prev_id_scrolls > 0
