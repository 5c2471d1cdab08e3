"""Run independent steps of one request side by side, when a spare thread is free.

A search embeds its query (onnxruntime, which releases the GIL) and queries Qdrant Edge (which
releases the GIL while it searches) for the dense channel, and queries the BM25 channel, which
needs no embedding. Run one after the other they add up; on a spare thread the dense side runs
while the request's own thread does the lexical side. Under many concurrent requests every core
is busy already and a hand-off only adds switching, so a step runs on a spare thread only when
one is idle at that moment and its request is the only one in flight (callers that mark their
requests with `Overlap.caller`), and otherwise lazily in the caller's thread when its result is
first asked for: the serial order, unchanged. Under many concurrent clients, handing off whenever
a spare thread happens to be idle costs CPU on every request and serves fewer of them
(bench/README.md has the load runs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar('T')

_UNSET = object()


class Deferred(Generic[T]):
    """A result being computed on a spare thread, or to be computed on first `get`.

    `get` returns the value or raises what the step raised; several callers may ask, the step
    runs once.
    """

    def __init__(self, step: Callable[[], T], future: Future[T] | None = None) -> None:
        self._step = step
        self._future = future
        self._lock = threading.Lock()
        self._value: object = _UNSET

    def get(self) -> T:
        """The step's value, waiting for the spare thread or running the step here."""
        if self._future is not None:
            return self._future.result()
        with self._lock:
            if self._value is _UNSET:
                self._value = self._step()
            return self._value  # type: ignore[return-value]

    @property
    def on_spare_thread(self) -> bool:
        """Whether the step was handed to a spare thread (it overlaps the caller's work)."""
        return self._future is not None


class Overlap:
    """A small pool of spare threads that steps are handed to only while one is idle."""

    def __init__(self, threads: int, name: str = 'overlap') -> None:
        """`threads` 0 runs every step in its caller's thread, when its result is asked for."""
        self._idle = threading.BoundedSemaphore(threads) if threads else None
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix=name) if threads else None
        self._callers = 0
        self._counting = threading.Lock()

    @contextmanager
    def caller(self) -> Iterator[None]:
        """Mark one request in flight for as long as the block runs: while another one is in
        flight too, `start` defers every step to its caller."""
        with self._counting:
            self._callers += 1
        try:
            yield
        finally:
            with self._counting:
                self._callers -= 1

    def start(self, step: Callable[[], T]) -> Deferred[T]:
        """Begin `step` on an idle spare thread if its request is alone in flight, or defer it
        to the caller's first `get`."""
        # read without the lock: a request that begins a moment later only misses one hand-off
        if (
            self._pool is None
            or self._idle is None
            or self._callers > 1
            or not self._idle.acquire(blocking=False)
        ):
            return Deferred(step)
        idle = self._idle

        def run() -> T:
            try:
                return step()
            finally:
                idle.release()

        try:
            future = self._pool.submit(run)
        except RuntimeError:  # shut down: the caller still gets its answer
            idle.release()
            return Deferred(step)
        return Deferred(step, future)

    def close(self) -> None:
        """Let running steps finish; later steps run in their callers' threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
