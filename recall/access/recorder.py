"""Access bookkeeping off the request path: a search's hits are counted by one thread."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

log = logging.getLogger(__name__)

# one store write covers at most this many searches' hits: a backlog (many concurrent searches)
# is recorded in a few writes instead of one per search, and no write grows without bound
MAX_COALESCED = 64


class RecallCounter(Protocol):
    """Whatever counts recalls in the store: `MemoryWriter`, the one writer of `memories`."""

    def touch(self, ids: Sequence[str], scopes: Iterable[str] | None = None) -> None:
        """Record a recall of these chunks (of these scopes, when known)."""


class AccessRecorder:
    """Hands each search's hit ids and their scopes to `record` (MemoryWriter.touch) on a thread
    of its own, so the answer does not wait for the store's writes. The thread starts with the
    first hits. Searches that queued up while it wrote are recorded together: one read and one
    write for all of them, an id hit by n of them counted n times."""

    def __init__(self, record: Callable[[Sequence[str], Iterable[str]], None]) -> None:
        self._record = record
        self._queue: queue.SimpleQueue[tuple[list[str], list[str]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def add(self, ids: list[str], scopes: list[str]) -> None:
        """Count these hits (of these scopes) soon."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name='mnemos-touch', daemon=True)
                self._thread.start()
        self._queue.put((ids, scopes))

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            ids, scopes = list(first[0]), set(first[1])
            stop = False
            for _ in range(MAX_COALESCED - 1):
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                ids.extend(more[0])
                scopes.update(more[1])
            try:
                self._record(ids, scopes)
            except Exception:
                log.exception('could not record access to %d memories', len(ids))
            if stop:
                return

    def close(self) -> None:
        """Stop the thread after it drains what it was given."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout=5)
