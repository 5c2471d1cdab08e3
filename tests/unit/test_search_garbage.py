"""A search leaves no reference cycle behind: its hits, ranking and candidates are freed when the
response is dropped, not left to the cyclic GC, whose full collections were the search p99
tail (bench/README.md, "GC pauses"). A hit's receipt closure held the ranking, which held the
hits: ~2,000 objects a search for the collector."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

from core.auth import Principal
from core.clock import ManualClock
from recall.read.ranking import Scored, _Ranking
from recall.schemas import MemoryIn, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

SCOPE = 'agent:garbage'
ADMIN = Principal(name='t', admin=True)


def test_a_search_leaves_no_ranking_to_the_cyclic_collector():
    store, clock, embedder = (
        InMemoryVectorStore(),
        ManualClock(datetime(2026, 3, 1, tzinfo=UTC)),
        HashEmbedder(),
    )
    writer = MemoryWriter(store, embedder, Bm25Encoder(), clock)
    recall = RecallService(store, embedder, Bm25Encoder(), clock, writer)
    texts = ['Caroline likes painting sunsets.', 'We hiked up a mountain last weekend.']
    writer.remember([MemoryIn(scope=SCOPE, text=t) for t in texts])
    request = SearchRequest(query='What did Caroline paint on the mountain?', scope=SCOPE)
    assert len(recall.search(request, ADMIN).hits) == 2
    gc.collect()
    # other threads of the test process may leave garbage of their own: look for ours only
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert recall.search(request, ADMIN).hits
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, Scored | _Ranking)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
