"""The `Jobs` port: services queue background work by name and ids, never import a broker.

Job names are a `StrEnum`, so a typo is a type error and the broker's actor names stay the plain
strings they always were.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol


class JobName(StrEnum):
    """Every background job; handlers are in `consolidation/registry.py`."""

    INDEX_GRAPH = 'index_graph'  # extract written chunks into the graph (graph owner)
    FORGET_MENTIONS = 'forget_mentions'  # drop graph mentions of deleted chunks (graph owner)
    EPISODIC = 'episodic'  # session -> episode summary
    SEMANTIC = 'semantic'  # episode -> graph facts (graph owner)
    DEDUP = 'dedup'  # merge duplicate entities (graph owner)
    DREAMING = 'dreaming'  # unpromoted episodes -> one consolidated memory
    EXPIRY = 'expiry'  # periodic sweep: episode TTL, tier transitions, hygiene


class Jobs(Protocol):
    """Accepts a job durably and returns its id; the job runs later (at once when inline)."""

    def enqueue(self, job: JobName, **params: Any) -> str:
        """Queue `job` with JSON-serialisable `params`; returns the job id.

        A `scope` param, when present, guards who may read the job's state.
        """
        ...
