"""Every path that removes memories goes through `MemoryWriter.delete_many`, and so restores
what they outdated: here the expiry job's pruning, over the in-memory fakes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from consolidation import expiry
from core.clock import ManualClock
from recall.models import MEMORIES
from recall.schemas import MemoryIn
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore, job_context
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:unit'


def test_pruning_an_expired_memory_makes_what_it_outdated_current_again() -> None:
    vectors, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(vectors, HashEmbedder(), Bm25Encoder(), clock)
    home = MemoryIn(scope=SCOPE, text='I live in Leeds.', created_at=NOW - timedelta(days=60))
    # a stay that ended: the memory that said it expires
    away = MemoryIn(
        scope=SCOPE,
        text='I moved to York.',
        created_at=NOW - timedelta(days=20),
        expires_at=NOW - timedelta(days=1),
    )
    [first] = writer.remember([home])
    [second] = writer.remember([away])
    assert second.superseded == [first.id]
    context = job_context(writer, vectors, clock)
    assert expiry.hygiene(context, clock.now()) == 1
    [left] = vectors.retrieve(MEMORIES, [str(first.id)])
    assert (left.payload['superseded'], left.payload['superseded_by']) == (False, None)
    assert left.payload['stale'] == []
