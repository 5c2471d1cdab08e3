"""The `Jobs` port: services queue background work by name and ids, never import a broker.

Job names are a `StrEnum`, so a typo is a type error and the broker's actor names stay the plain
strings they always were.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol

from core.errors import Conflict


class JobName(StrEnum):
    """Every background job; handlers are in `consolidation/registry.py`."""

    INDEX_GRAPH = 'index_graph'  # extract written chunks into the graph (graph owner)
    FORGET_MENTIONS = 'forget_mentions'  # drop graph mentions of deleted chunks (graph owner)
    EPISODIC = 'episodic'  # session -> episode summary
    SEMANTIC = 'semantic'  # episode -> graph facts (graph owner)
    DEDUP = 'dedup'  # merge duplicate entities (graph owner)
    DREAMING = 'dreaming'  # unpromoted episodes -> one consolidated memory
    EXPIRY = 'expiry'  # periodic sweep: episode TTL, tier transitions, hygiene
    COMPACT = 'compact'  # after a forget: rewrite the stores without deleted bytes (owner)


class Jobs(Protocol):
    """Accepts a job durably and returns its id; the job runs later (at once when inline)."""

    def enqueue(self, job: JobName, **params: Any) -> str:
        """Queue `job` with JSON-serialisable `params`; returns the job id.

        A `scope` param, when present, guards who may read the job's state.
        """
        ...


class LockHeld(Conflict):
    """A job found its lock held by another run that is still alive: it is retried after
    `retry_after` seconds (never counted as a failure, so an accepted job is not lost to it)."""

    code = 'lock_held'

    def __init__(self, key: str, retry_after: float) -> None:
        super().__init__(f'{key} is held by another run for {retry_after:.1f} s more; retrying')
        self.key = key
        self.retry_after = retry_after
