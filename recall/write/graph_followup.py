"""The graph follow-up of a write, by this process's `GraphRole`: new chunks go to extraction (an
`index_graph` job, or inline without a queue), deleted chunks are forgotten in the graph directly
by its owner, or through a `forget_mentions` job sent to the owner by a client."""

from __future__ import annotations

from collections.abc import Sequence

from core.jobs import JobName, Jobs
from core.roles import GraphRole
from recall.models import MEMORIES, Chunk
from recall.ports import GraphIndex
from vectors.models import ChunkText
from vectors.ports import VectorStore


class GraphFollowUp:
    """What the knowledge graph learns of the writes to `memories`, whoever owns it."""

    def __init__(
        self,
        vectors: VectorStore,
        graph: GraphIndex | None,
        role: GraphRole | None,
        jobs: Jobs | None,
    ) -> None:
        """`role` defaults to OWNER when a `graph` is given, else OFF."""
        role = role or (GraphRole.OWNER if graph is not None else GraphRole.OFF)
        if role == GraphRole.OWNER and graph is None:
            raise ValueError('the graph owner needs a graph')
        if role == GraphRole.CLIENT and jobs is None:
            raise ValueError('a graph client needs a job queue to reach the graph owner')
        self._vectors = vectors
        self._graph = graph if role == GraphRole.OWNER else None
        self._role = role
        self._jobs = jobs

    @property
    def role(self) -> GraphRole:
        """This process's relation to the knowledge graph."""
        return self._role

    def queue(self, ids: Sequence[str]) -> None:
        """Queue extraction of stored chunks; run it at once when no queue is wired."""
        if self._role == GraphRole.OFF or not ids:
            return
        if self._jobs is not None:
            self._jobs.enqueue(JobName.INDEX_GRAPH, ids=list(ids))
        else:
            self.index(ids)

    def forget(self, ids: Sequence[str]) -> None:
        """Forget deleted chunks or episodes in the graph, whoever owns it."""
        if self._graph is not None:
            self._graph.forget_chunks(list(ids))
        elif self._role == GraphRole.CLIENT and ids and self._jobs is not None:
            self._jobs.enqueue(JobName.FORGET_MENTIONS, ids=list(ids))

    def index(self, ids: Sequence[str]) -> int:
        """Extract the given chunks into the graph (owner only); how many were read."""
        if self._graph is None:
            return 0
        chunks = [Chunk.from_payload(p.payload) for p in self._vectors.retrieve(MEMORIES, ids)]
        if not chunks:
            return 0
        refs = [
            ChunkText(id=c.id, scope=c.scope, text=c.text, at=c.created_at, speaker=_speaker(c))
            for c in chunks
        ]
        # the chunk -> entity links stay in the graph (GraphIndex.entities_of): copying them
        # into the payload would move every indexed chunk out of its HNSW segment once more
        self._graph.index_chunks(refs)
        return len(chunks)


def _speaker(chunk: Chunk) -> str | None:
    speaker = chunk.metadata.get('speaker')
    if isinstance(speaker, str) and speaker.strip():
        return speaker
    # "I"/"my" in a user's memory is that user, or the "Name:" who said it (without an
    # owner, the facts a capture found would reach no graph)
    found = chunk.speaker or chunk.user_id
    return found if found and found.strip() else None
