"""Access bookkeeping: searches queued behind a write are recorded together, each hit counted."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from core.clock import ManualClock
from recall.access.recorder import MAX_COALESCED, AccessRecorder
from recall.models import MEMORIES
from recall.schemas import MemoryIn
from recall.write.writer import MemoryWriter
from tests.waiting import DEADLINE_S
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_searches_queued_behind_a_write_are_recorded_in_one_call() -> None:
    calls: list[tuple[list[str], set[str]]] = []
    entered, release = threading.Event(), threading.Event()

    def record(ids: Sequence[str], scopes: Iterable[str]) -> None:
        calls.append((list(ids), set(scopes)))
        entered.set()
        release.wait(DEADLINE_S)

    recorder = AccessRecorder(record)
    recorder.add(['a'], ['s1'])
    assert entered.wait(DEADLINE_S)  # the first write is under way; the next searches queue up
    for n in range(MAX_COALESCED + 2):
        recorder.add(['b', f'c{n}'], ['s2'])
    release.set()
    recorder.close()
    assert calls[0] == (['a'], {'s1'})
    # the backlog in bounded batches, every hit kept, in order
    assert [len(ids) for ids, _ in calls[1:]] == [2 * MAX_COALESCED, 4]
    queued = [i for ids, _ in calls[1:] for i in ids]
    assert queued == [x for n in range(MAX_COALESCED + 2) for x in ('b', f'c{n}')]
    assert all(scopes == {'s2'} for _, scopes in calls[1:])


def test_a_failed_record_does_not_stop_the_recorder() -> None:
    seen: list[list[str]] = []

    def record(ids: Sequence[str], scopes: Iterable[str]) -> None:
        seen.append(list(ids))
        if ids == ['bad']:
            raise RuntimeError('store down')

    recorder = AccessRecorder(record)
    recorder.add(['bad'], ['s'])
    recorder.close()
    recorder.add(['good'], ['s'])
    recorder.close()
    assert seen[-1] == ['good']


class _CountingStore(InMemoryVectorStore):
    def __init__(self) -> None:
        super().__init__()
        self.retrieves = 0

    def retrieve(self, collection: str, ids: Sequence[str]) -> Any:
        self.retrieves += 1
        return super().retrieve(collection, ids)


def test_touch_counts_every_occurrence_and_reads_once_when_scopes_are_known() -> None:
    store = _CountingStore()
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), ManualClock(NOW))
    written = writer.remember(
        [MemoryIn(scope='agent:a', text='Ivy likes kites'), MemoryIn(scope='agent:a', text='ok')]
    )
    one, two = (w.id or '' for w in written)
    store.retrieves = 0
    writer.touch([one, two, one], ['agent:a'])
    assert store.retrieves == 1
    counts = {p.id: p.payload['access_count'] for p in store.retrieve(MEMORIES, [one, two])}
    assert counts == {one: 2, two: 1}
    # without scopes the writer reads them first, and a deleted id is no error
    store.retrieves = 0
    writer.touch([one, 'gone'])
    assert store.retrieves == 2
    assert store.retrieve(MEMORIES, [one])[0].payload['access_count'] == 3
    writer.touch(['gone'])
