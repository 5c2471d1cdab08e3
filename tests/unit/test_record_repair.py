"""Supersession records naming a memory that no longer exists (written before deletes dropped
them, or hydrated) are repaired by the expiry sweep as a delete of that memory would drop them,
over the in-memory fakes; records naming a live memory are left as they are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from consolidation import expiry
from consolidation.context import JobContext
from core.clock import ManualClock
from recall.models import MEMORIES, episodes_spec
from recall.schemas import MemoryIn
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore, job_context
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:unit'


def _setup() -> tuple[InMemoryVectorStore, ManualClock, MemoryWriter, JobContext]:
    vectors, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(vectors, HashEmbedder(), Bm25Encoder(), clock)
    vectors.ensure_collection(episodes_spec(HashEmbedder().dim))
    context = job_context(writer, vectors, clock)
    return vectors, clock, writer, context


def _write(writer: MemoryWriter, text: str, days_ago: int) -> Any:
    [result] = writer.remember(
        [MemoryIn(scope=SCOPE, text=text, created_at=NOW - timedelta(days=days_ago))]
    )
    return result


def _payload(vectors: InMemoryVectorStore, ident: str) -> dict[str, Any]:
    [point] = vectors.retrieve(MEMORIES, [ident])
    return point.payload


def test_the_sweep_shows_again_what_a_missing_memory_hid_and_keeps_live_records() -> None:
    vectors, _, writer, context = _setup()
    leeds = _write(writer, 'I live in Leeds.', 60)
    york = _write(writer, 'I moved to York.', 50)
    partly = _write(writer, 'I work at Arup and I have two cats.', 40)
    acme = _write(writer, 'I work at Acme Corp.', 30)
    globex = _write(writer, 'I joined Globex.', 20)
    assert york.superseded == [leeds.id] and globex.superseded == [acme.id]
    assert {r['by'] for r in _payload(vectors, partly.id)['stale']} == {acme.id, globex.id}
    # old data: the superseders gone without their records (straight through the port)
    vectors.delete(MEMORIES, [york.id, acme.id])

    out = expiry.sweep(context, {})

    assert out['records_repaired'] >= 2, out
    restored = _payload(vectors, leeds.id)
    assert (restored['superseded'], restored['superseded_by'], restored['stale']) == (
        False,
        None,
        [],
    )
    # the record naming the missing Acme memory is gone, the one naming Globex stays
    assert [r['by'] for r in _payload(vectors, partly.id)['stale']] == [globex.id]
    assert _payload(vectors, globex.id)['superseded'] is False
    # idempotent: nothing left to repair
    assert writer.repair_records() == 0


def test_a_record_naming_a_live_memory_is_untouched() -> None:
    vectors, _, writer, _ = _setup()
    leeds = _write(writer, 'I live in Leeds.', 60)
    york = _write(writer, 'I moved to York.', 50)
    before = _payload(vectors, leeds.id)
    assert before['superseded_by'] == york.id
    assert writer.repair_records() == 0
    assert _payload(vectors, leeds.id) == before


def test_a_memory_hidden_by_a_missing_one_is_not_pruned_as_superseded() -> None:
    vectors, clock, writer, context = _setup()
    leeds = _write(writer, 'I live in Leeds.', 60)
    york = _write(writer, 'I moved to York.', 50)
    vectors.delete(MEMORIES, [york.id])
    # past the grace after which hygiene prunes a superseded memory
    clock.advance(expiry.SUPERSEDED_GRACE + timedelta(days=1))
    out = expiry.sweep(context, {})
    assert out['memories_pruned'] == 0, out
    assert _payload(vectors, leeds.id)['superseded'] is False


def test_the_missing_memory_outdated_by_another_live_one_stays_outdated_by_that_one() -> None:
    vectors, _, writer, _ = _setup()
    leeds = _write(writer, 'I live in Leeds.', 60)
    york = _write(writer, 'I moved to York.', 50)
    bath = _write(writer, 'I moved to Bath.', 40)
    vectors.delete(MEMORIES, [york.id])
    writer.repair_records()
    assert _payload(vectors, leeds.id)['superseded_by'] == bath.id
    assert {r['by'] for r in _payload(vectors, leeds.id)['stale']} == {bath.id}
