"""RecallService ranks with the learned model over only the candidates that can reach the head:
the hits are those of scoring every candidate (what `explain` still does)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.auth import Principal
from core.clock import ManualClock
from recall.schemas import MemoryIn, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:rank'
WORDS = ('tea', 'coffee', 'dog', 'cat', 'paint', 'sunrise', 'lake', 'hike') + (
    'book',
    'novel',
    'guitar',
    'song',
    'race',
    'bike',
    'park',
)


def test_hits_are_the_same_whether_every_candidate_is_scored_or_only_reachable_ones():
    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    recall = RecallService(store, HashEmbedder(), Bm25Encoder(), clock, writer)
    start = NOW - timedelta(days=30)
    items = [
        MemoryIn(
            scope=SCOPE,
            text=f'{("Ann", "Bo")[n % 2]}: {WORDS[n % 15]} and {WORDS[(n * 7) % 15]} #{n}',
            created_at=start + timedelta(minutes=n),
        )
        for n in range(240)
    ]
    writer.remember(items)
    admin = Principal(name='t', admin=True)
    for query in ('What did Ann say about tea?', 'dog park hike', 'Bo guitar song in May'):
        plain = recall.search(SearchRequest(query=query, scope=SCOPE, touch=False), admin)
        full = recall.search(
            SearchRequest(query=query, scope=SCOPE, touch=False, explain=True), admin
        )
        assert [h.id for h in plain.hits] == [h.id for h in full.hits]
        assert [h.score for h in plain.hits] == [h.score for h in full.hits]
        assert plain.hits
