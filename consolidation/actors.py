"""Thin dramatiq actors: job params (ids and primitives) in, `registry.run` on this process's
JobContext out. Every handler is idempotent, so a redelivered or replayed message is harmless.

Actors are declared on an explicit broker (the one the JobQueue built from settings), never on
dramatiq's global default: the "set the broker before importing actors" rule holds by construction
and one process may host several services (tests) without their jobs crossing over.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import dramatiq

Runner = Callable[[str, dict[str, Any]], Any]

# Retries back off 0.5 s to 30 s; a job failing 3 times in a row is marked failed.
OPTIONS: dict[str, Any] = {'max_retries': 3, 'min_backoff': 500, 'max_backoff': 30_000}


# The handler's result, handed to JobStateMiddleware in the same worker thread. Actors return
# None so dramatiq does not warn about results dropped without its Results backend.
_result = threading.local()


def take_result() -> Any:
    """The result of the job that just ran in this thread (None if there is none)."""
    value = getattr(_result, 'value', None)
    _result.value = None
    return value


def declare(
    broker: dramatiq.Broker, job: str, queue: str, runner: Runner
) -> dramatiq.Actor[Any, Any]:
    """Declare the actor of `job` on `broker`; its body only dispatches to the job's handler."""

    def perform(**params: Any) -> None:
        _result.value = runner(job, params)

    perform.__name__ = perform.__qualname__ = job.replace('.', '_')
    return dramatiq.Actor(
        perform, broker=broker, actor_name=job, queue_name=queue, priority=0, options=OPTIONS
    )
