"""Access bookkeeping off the request path: a search's hits are counted by one thread."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)


class AccessRecorder:
    """Hands each search's hit ids to `record` (MemoryWriter.touch) on a thread of its own, so
    the answer does not wait for the store's writes. The thread starts with the first hits."""

    def __init__(self, record: Callable[[Sequence[str]], None]) -> None:
        self._record = record
        self._queue: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def add(self, ids: list[str]) -> None:
        """Count these hits soon."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name='mnemos-touch', daemon=True)
                self._thread.start()
        self._queue.put(ids)

    def _loop(self) -> None:
        while True:
            ids = self._queue.get()
            if ids is None:
                return
            try:
                self._record(ids)
            except Exception:
                log.exception('could not record access to %d memories', len(ids))

    def close(self) -> None:
        """Stop the thread after it drains what it was given."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout=5)
