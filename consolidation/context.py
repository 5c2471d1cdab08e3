"""What a job handler may use: the named dependencies of consolidation, built by runtime/."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.clock import Clock
    from core.settings import Settings
    from jobs.ports import JobQueue
    from kg.service import KnowledgeGraphService
    from recall.service import RecallService
    from recall.write.writer import MemoryWriter
    from vectors.ports import Embedder, SparseEncoder, VectorStore


@dataclass(frozen=True)
class JobContext:
    """Dependencies of the job handlers; one per process, built by `runtime.bootstrap.build`.

    `vectors`, `embedder` and `sparse` serve the `episodes` collection (consolidation's own);
    every change to `memories` goes through `writer`. `kg` is set only in the process that owns
    the graph (`owns_graph`), the only one that consumes the graph queue.
    """

    settings: Settings
    clock: Clock
    vectors: VectorStore
    embedder: Embedder
    sparse: SparseEncoder
    recall: RecallService
    writer: MemoryWriter
    jobs: JobQueue
    kg: KnowledgeGraphService | None = None
    # the graph owner's stores' rewrites that drop deleted bytes from the disk (forget.compact)
    compactors: tuple[Callable[[], object], ...] = ()
