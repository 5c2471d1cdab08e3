"""In-memory twins of the ports, for unit tests of services (no engine, no files).

The vector store's twin ships in the package (`vectors.memory`); it is re-exported here.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any

from consolidation.context import JobContext
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore
from vectors.models import ScoredPoint, SlotEvidence

__all__ = [
    'InMemoryVectorStore',
    'InlineJobs',
    'RecordingGraphIndex',
    'SharedDirectionEmbedder',
    'job_context',
]


class SharedDirectionEmbedder(HashEmbedder):
    """A pure-logic fake of a dense model's cosine: every text's hashed words (weight `own`) plus
    one direction all texts share (weight `shared`), so any two texts sit at about
    shared**2 / (shared**2 + own**2) whatever words they share, and identical ones at 1."""

    def __init__(self, shared: float, own: float, dim: int = 384) -> None:
        super().__init__(dim)
        self._shared, self._own_weight = shared, own

    def _one(self, text: str) -> list[float]:
        words = super()._one(text)
        common = 1.0 / math.sqrt(self.dim)
        vector = [self._shared * common + self._own_weight * w for w in words]
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The shifted vectors."""
        return [self._one(t) for t in texts]


def job_context(writer: Any, vectors: Any, clock: Any, kg: Any = None) -> JobContext:
    """What a job handler gets, around `writer` and its stores: the hash embedder and BM25,
    no settings, recall service or job queue (the handlers under unit test read none)."""
    return JobContext(
        settings=None,  # type: ignore[arg-type]
        clock=clock,
        vectors=vectors,
        embedder=HashEmbedder(),
        sparse=Bm25Encoder(),
        recall=None,  # type: ignore[arg-type]
        writer=writer,
        jobs=None,  # type: ignore[arg-type]
        kg=kg,
    )


class RecordingGraphIndex:
    """GraphIndex twin: remembers which chunks mention which (fake) entities."""

    def __init__(self) -> None:
        self.mentions: dict[str, list[str]] = {}
        self.forgotten: list[str] = []

    def index_chunks(self, chunks: Sequence[Any]) -> dict[str, list[str]]:
        """Every chunk mentions one entity named after its first word."""
        out = {c.id: [f'entity:{c.text.split()[0].lower()}'] for c in chunks}
        self.mentions.update(out)
        return out

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks whose entity is the query's first word."""
        wanted = f'entity:{query.split()[0].lower()}' if query.split() else ''
        ids = [cid for cid, ents in self.mentions.items() if wanted in ents]
        return [ScoredPoint(id=cid, score=1.0) for cid in ids[:limit]]

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """The fake graph knows no slots."""
        return None

    def entities_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The recorded mentions of these chunks."""
        return {i: self.mentions[i] for i in ids if self.mentions.get(i)}

    def forget_chunks(self, ids: Sequence[str]) -> None:
        """Drop the mentions of deleted chunks."""
        for ident in ids:
            self.mentions.pop(ident, None)
            self.forgotten.append(ident)


class InlineJobs:
    """Jobs twin: runs each job at once through `run(name, params)`, recording what was sent."""

    def __init__(self, run: Any = None) -> None:
        self.run = run
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def enqueue(self, job: Any, **params: Any) -> str:
        """Record the job, run it when a runner is wired, return a fresh id."""
        self.sent.append((str(job), params))
        if self.run is not None:
            self.run(str(job), params)
        return str(uuid.uuid4())
