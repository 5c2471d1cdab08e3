"""JobQueue adapters for the embedded default: run jobs inline or on a background thread."""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Runner = Callable[[str, dict[str, Any]], Any]


class InlineJobQueue:
    """Runs each job synchronously at enqueue time (tests and scripts)."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner

    def enqueue(self, job: str, **params: Any) -> str:
        """Run `job` now; return its id."""
        self._runner(job, params)
        return str(uuid.uuid4())


class ThreadJobQueue:
    """Runs jobs on background threads of this process, in order of arrival."""

    def __init__(self, runner: Runner, threads: int = 1) -> None:
        self._runner = runner
        self._queue: queue.Queue[tuple[str, str, dict[str, Any]] | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._loop, name=f'mnemos-job-{i}', daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def enqueue(self, job: str, **params: Any) -> str:
        """Queue `job`; return its id."""
        ident = str(uuid.uuid4())
        self._queue.put((ident, job, params))
        return ident

    def join(self) -> None:
        """Wait until every queued job has run."""
        self._queue.join()

    def close(self) -> None:
        """Drain and stop the threads."""
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=30)

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                ident, job, params = item
                try:
                    self._runner(job, params)
                except Exception:
                    log.exception('job %s (%s) failed', job, ident)
            finally:
                self._queue.task_done()
