"""core.overlap: steps go to a spare thread only while one is idle, else run lazily in place."""

from __future__ import annotations

import threading

import pytest

from core.overlap import Deferred, Overlap
from tests.waiting import DEADLINE_S


def test_an_idle_spare_thread_runs_the_step_beside_the_caller() -> None:
    overlap = Overlap(1)
    started, release = threading.Event(), threading.Event()
    ran_in: list[str] = []

    def step() -> int:
        ran_in.append(threading.current_thread().name)
        started.set()
        release.wait(DEADLINE_S)
        return 7

    try:
        pending = overlap.start(step)
        assert pending.on_spare_thread
        # the step runs before anyone asks for it: the caller's thread is free meanwhile
        assert started.wait(DEADLINE_S)
        release.set()
        assert pending.get() == 7
        assert ran_in and ran_in[0] != threading.current_thread().name
    finally:
        release.set()
        overlap.close()


def test_a_busy_pool_defers_the_step_to_the_caller_and_runs_it_once() -> None:
    overlap = Overlap(1)
    release = threading.Event()
    calls: list[str] = []

    def slow() -> None:
        release.wait(DEADLINE_S)

    def step() -> str:
        calls.append(threading.current_thread().name)
        return 'here'

    try:
        busy = overlap.start(slow)
        later = overlap.start(step)
        assert busy.on_spare_thread and not later.on_spare_thread
        assert calls == []  # deferred: nothing runs until asked
        assert later.get() == 'here' and later.get() == 'here'
        assert calls == [threading.current_thread().name]
        release.set()
        busy.get()
        # the spare thread is idle again and takes the next step
        assert overlap.start(lambda: 1).get() == 1
        assert overlap.start(step).on_spare_thread
    finally:
        release.set()
        overlap.close()


def test_a_step_stays_with_its_caller_while_another_request_is_in_flight() -> None:
    overlap = Overlap(2)
    other_in, other_out = threading.Event(), threading.Event()

    def other_request() -> None:
        with overlap.caller():
            other_in.set()
            other_out.wait(DEADLINE_S)

    try:
        with overlap.caller():
            # alone in flight: the spare thread takes the step
            assert overlap.start(lambda: 1).on_spare_thread
            other = threading.Thread(target=other_request)
            other.start()
            assert other_in.wait(DEADLINE_S)
            # two requests in flight: the cores are theirs, a hand-off would only add switching
            later = overlap.start(lambda: 2)
            assert not later.on_spare_thread and later.get() == 2
            other_out.set()
            other.join(DEADLINE_S)
            assert overlap.start(lambda: 3).on_spare_thread
    finally:
        other_out.set()
        overlap.close()


def test_a_failing_step_raises_where_its_result_is_asked_for() -> None:
    overlap = Overlap(2)

    def boom() -> None:
        raise ValueError('no')

    try:
        for pending in (overlap.start(boom), Deferred(boom)):
            with pytest.raises(ValueError):
                pending.get()
        # a failure gives the spare thread back
        assert overlap.start(lambda: 2).on_spare_thread
    finally:
        overlap.close()


def test_no_threads_or_a_closed_pool_runs_steps_in_the_caller() -> None:
    none = Overlap(0)
    assert not none.start(lambda: 1).on_spare_thread
    closed = Overlap(1)
    closed.close()
    late = closed.start(lambda: 3)
    assert not late.on_spare_thread and late.get() == 3
    # and the refused hand-off gave its slot back
    assert not closed.start(lambda: 4).on_spare_thread
