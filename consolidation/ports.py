"""The JobQueue port: services enqueue work by name and ids, never import dramatiq."""

from __future__ import annotations

from typing import Any, Protocol


class JobQueue(Protocol):
    """Accepts a job durably and returns its id; the job runs later, at least once."""

    def enqueue(self, job: str, **params: Any) -> str:
        """Queue `job` with JSON-serialisable `params`; returns the job id."""
        ...
