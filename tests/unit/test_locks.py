"""core.locks.ReadWriteLock: readers together, a writer alone, a waiting writer goes first."""

from __future__ import annotations

import threading

from core.locks import ReadWriteLock
from tests.waiting import DEADLINE_S, wait_until


def test_readers_share_and_a_writer_waits_for_them_and_then_holds_back_new_readers() -> None:
    lock = ReadWriteLock()
    events: list[str] = []
    first_in, release_first = threading.Event(), threading.Event()

    def first_reader() -> None:
        with lock.read():
            events.append('r1 in')
            first_in.set()
            release_first.wait(DEADLINE_S)
            events.append('r1 out')

    def writer() -> None:
        with lock.write():
            events.append('w')

    def late_reader() -> None:
        with lock.read():
            events.append('r2')

    r1 = threading.Thread(target=first_reader)
    r1.start()
    assert first_in.wait(DEADLINE_S)
    with lock.read():  # another reader gets in beside the first
        events.append('r0')
    w = threading.Thread(target=writer)
    w.start()
    # the writer now waits for r1 (the lock's own count of waiting writers says so)
    wait_until(lambda: lock._waiting == 1, 'the writer never queued behind r1')
    r2 = threading.Thread(target=late_reader)
    r2.start()
    # r2 waits too: two threads asleep on the lock's condition, the writer and r2
    waiters = lambda: len(lock._cond._waiters)  # type: ignore[attr-defined]  # noqa: E731
    wait_until(lambda: waiters() == 2, lambda: f'{waiters()} threads wait on the lock: {events}')
    assert 'w' not in events and 'r2' not in events  # r2 waits behind the waiting writer
    release_first.set()
    for t in (r1, w, r2):
        t.join(DEADLINE_S)
    assert events == ['r1 in', 'r0', 'r1 out', 'w', 'r2']
