"""Thin dramatiq actors: job params (ids and primitives) in, this process's runner out (the
composition root hands the queue consolidation's `registry.run` over its JobContext). Every
handler is idempotent, so a redelivered or replayed message is harmless.

Actors are declared on an explicit broker (the one the JobQueue built from settings), never on
dramatiq's global default: the "set the broker before importing actors" rule holds by construction
and one process may host several services (tests) without their jobs crossing over.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import dramatiq
from dramatiq.middleware import CurrentMessage

from core.jobs import LockHeld

Runner = Callable[[str, dict[str, Any]], Any]

MAX_RETRIES = 3
# A job waiting for a lock is retried until the lock's owner finishes or its TTL runs out
# (0.5 s doubling to 30 s: 20 retries cover about 8 minutes, well past the longest TTL).
MAX_LOCK_RETRIES = 20
MIN_BACKOFF_MS = 500
MAX_BACKOFF_MS = 30_000


def _retry_when(retries: int, exception: BaseException) -> bool:
    if isinstance(exception, Interrupted):
        return True  # the stop's doing, not the job's: it never counts against the job
    if isinstance(exception, WaitForLock):
        return retries < MAX_LOCK_RETRIES
    return retries < MAX_RETRIES


class WaitForLock(dramatiq.Retry):
    """A retry of a job whose lock another live run holds: not a failure of the job."""


class Interrupted(dramatiq.Retry):
    """A job cut short by the process stopping (its extraction worker terminated, a store
    closed under it): not a failure of the job. Being a `Retry`, dramatiq logs no traceback for
    it; the job is recorded as queued again and runs at the next start."""


# Retries back off 0.5 s to 30 s; a job failing 3 times in a row is marked failed, while one
# waiting for a lock waits up to the lock's TTL.
OPTIONS: dict[str, Any] = {
    'min_backoff': MIN_BACKOFF_MS,
    'max_backoff': MAX_BACKOFF_MS,
    'retry_when': _retry_when,
}


# The handler's result, handed to JobStateMiddleware in the same worker thread. Actors return
# None so dramatiq does not warn about results dropped without its Results backend.
_result = threading.local()


def take_result() -> Any:
    """The result of the job that just ran in this thread (None if there is none)."""
    value = getattr(_result, 'value', None)
    _result.value = None
    return value


def declare(
    broker: dramatiq.Broker,
    job: str,
    queue: str,
    runner: Runner,
    stopping: threading.Event | None = None,
) -> dramatiq.Actor[Any, Any]:
    """Declare the actor of `job` on `broker`; its body only dispatches to the job's handler.

    Whatever a job raises once `stopping` is set is raised as `Interrupted`: the stop ends what
    the job runs on, and that is no failure of the job."""

    def perform(**params: Any) -> None:
        try:
            _result.value = runner(job, params)
        except LockHeld as exc:
            message = CurrentMessage.get_current_message()
            retries = message.options.get('retries', 0) if message is not None else 0
            backoff = min(MIN_BACKOFF_MS * 2**retries, MAX_BACKOFF_MS)
            # no later than the lock's end, and no busier than the backoff
            delay = int(min(backoff, exc.retry_after * 1000 + 50))
            raise WaitForLock(str(exc), delay=max(delay, 50)) from None
        except Exception as exc:
            if stopping is None or not stopping.is_set():
                raise
            raise Interrupted(
                f'the process stopped during the job ({type(exc).__name__})', delay=MIN_BACKOFF_MS
            ) from None

    perform.__name__ = perform.__qualname__ = job.replace('.', '_')
    return dramatiq.Actor(
        perform, broker=broker, actor_name=job, queue_name=queue, priority=0, options=OPTIONS
    )
