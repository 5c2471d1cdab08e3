"""Access bookkeeping off the request path: a search's hits are counted by one thread."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence

log = logging.getLogger(__name__)

# Recording waits until searches pause for QUIET_S (or the oldest waiting hit is MAX_DELAY_S old,
# or MAX_COALESCED searches wait): the write's GIL-held work (~2 ms for ten hits) then lands
# between searches instead of inside the next one, and searches that arrive back to back share
# one read and one write. A recall is counted at most ~1 s late; counts were never synchronous.
QUIET_S = 0.05
MAX_DELAY_S = 1.0
MAX_COALESCED = 64


class AccessRecorder:
    """Hands each search's hit ids and their scopes to `record` (MemoryWriter.touch) on a thread
    of its own, so the answer does not wait for the store's writes. The thread starts with the
    first hits. It waits for a pause in searches (QUIET_S) and records every search that arrived
    meanwhile together: one read and one write for all of them, an id hit by n of them counted
    n times."""

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
            due = time.monotonic() + MAX_DELAY_S
            stop, taken = False, 1
            while taken < MAX_COALESCED:
                wait = min(QUIET_S, due - time.monotonic())
                if wait <= 0:
                    break
                try:
                    more = self._queue.get(timeout=wait)
                except queue.Empty:
                    break  # searches paused: record now
                if more is None:
                    stop = True
                    break
                ids.extend(more[0])
                scopes.update(more[1])
                taken += 1
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
