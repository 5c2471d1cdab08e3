"""Forget a user or a scope: the "right to be forgotten" across every store that holds them.

Memories and episodes are deleted from the vector store. In the graph their mentions are
dropped and, unlike a single delete (which retracts and keeps history), the facts only they
said and the entities nothing else names are erased for good: a retracted fact still holds the
sentence it was read from. Forgetting a scope erases its whole graph.

Jobs of the scope or user that have not finished are cancelled first, their params (session
transcripts) erased: an accepted session must not make an episode after its user is forgotten.
A job already running when it is cancelled may still write (an episode, the graph facts of the
episode it queues): forget waits for the running ones to end, in whichever process runs them
(the job store records a job as running from its start to its end, cancelled or not, and a job
cancelled before it starts never starts), cancels what they queued, and only then deletes, so
nothing they wrote survives. The wait is bounded (RUNNING_WAIT_S in all); a process that died
running a job is not waited for.

Deleting is not erasing: the vector store flags a deleted point and keeps its payload and the
write that stored it on disk, and Kuzu keeps a deleted node's strings in its file. So forget
queues a compaction (`compaction_job` in its answer): every store this process owns is rewritten
with what it still holds (vectors/edge_compact.py, kg/kuzu_lifecycle.rewrite); the job store
zeroes what it deletes already (secure_delete). Once that job is `done`, no byte of the
forgotten text is left in any file under the data dir. On a Qdrant server the job can only ask
the server to vacuum (vectors/qdrant.py): docs/SERVER.md says what that leaves on its volume.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from consolidation.episodic import ensure_episodes
from core.jobs import JobName
from core.scopes import Identifier, ScopeId
from jobs.models import JobStatus
from recall.models import EPISODES, MEMORIES
from vectors.models import PointFilter
from vectors.paging import scroll_pages

if TYPE_CHECKING:
    from consolidation.context import JobContext

_PAGE = 512
# how long forget waits in all for the running jobs of its user (a session's summary, a graph
# extraction)
RUNNING_WAIT_S = 120.0
# each job queue's last compaction job (see _compaction)
_LAST_COMPACTION: dict[int, str] = {}
_ROUNDS = 5  # a job that ends may have queued another of the same user: cancelled in turn


class ForgetIn(BaseModel):
    """`POST /v1/admin/forget` body: a scope, a user (in every scope, or in `scope`), or both."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId | None = None
    user_id: Identifier | None = None

    @model_validator(mode='after')
    def _something(self) -> ForgetIn:
        if self.scope is None and self.user_id is None:
            raise ValueError('give a scope, a user_id or both')
        return self


class ForgetReport(BaseModel):
    """What was forgotten, per store."""

    scope: str | None
    user_id: str | None
    memories: int = Field(description='memories deleted from the vector store')
    episodes: int = Field(description='episodes deleted from the vector store')
    graph_sources: int = Field(description='memories and episodes unlinked in the graph')
    graph_facts: int | None = Field(
        description='graph facts erased (only they said them); null when another process owns '
        'the graph and forgets the sources from a queued job (facts are then retracted)'
    )
    graph_entities: int | None = Field(description='graph entities erased (nothing names them)')
    jobs: int = Field(description='queued or running jobs cancelled, their transcripts erased')
    compaction_job: str | None = Field(
        description='the job that rewrites the stores without the deleted bytes: once it is '
        'done (GET /v1/jobs/{id}), nothing forgotten is left in the data dir; null when no '
        'store of this process needs it'
    )


def _ids(ctx: JobContext, collection: str, flt: PointFilter) -> list[str]:
    return [p.id for page in scroll_pages(ctx.vectors, collection, flt, _PAGE) for p in page]


def forget(ctx: JobContext, req: ForgetIn) -> ForgetReport:
    """Cancel the unfinished jobs of `req`, delete its memories and episodes and forget them
    in the graph."""
    # first, so that no queued session turns into an episode after the deletes below
    jobs = ctx.jobs.cancel(req.scope, req.user_id)
    # one bound for all the rounds: a job that never ends (a hung process, or one on a host
    # that died) holds the forget back once
    deadline = time.monotonic() + RUNNING_WAIT_S
    for _ in range(_ROUNDS):
        left = deadline - time.monotonic()
        if left <= 0 or not ctx.jobs.wait_running(req.scope, req.user_id, left):
            break
        jobs += ctx.jobs.cancel(req.scope, req.user_id)
    flt = PointFilter(scopes=[req.scope] if req.scope else None)
    if req.user_id is not None:
        flt.any_of['user_id'] = [req.user_id]
    memories = _ids(ctx, MEMORIES, flt)
    ensure_episodes(ctx)
    episodes = _ids(ctx, EPISODES, flt)
    if episodes:
        ctx.vectors.delete(EPISODES, episodes)
    facts: int | None = None
    entities: int | None = None
    if ctx.kg is not None:
        ctx.writer.delete_many(memories, graph=False)
        whole = req.scope if req.user_id is None else None
        facts, entities = ctx.kg.erase_sources([*memories, *episodes], whole)
    else:
        ctx.writer.delete_many(memories)
        ctx.writer.forget_graph(episodes)
    compaction = _compaction(ctx) if ctx.compactors else None
    return ForgetReport(
        scope=req.scope,
        user_id=req.user_id,
        memories=len(memories),
        episodes=len(episodes),
        graph_sources=len(memories) + len(episodes),
        graph_facts=facts,
        graph_entities=entities,
        jobs=jobs,
        compaction_job=compaction,
    )


def _compaction(ctx: JobContext) -> str:
    """The compaction job that covers the deletes just made: the last one queued when it has
    not started yet (it rewrites the stores as they are when it runs), else a new one; forgets
    in a row then share one rewrite."""
    last = _LAST_COMPACTION.get(id(ctx.jobs))
    info = ctx.jobs.get(last) if last is not None else None
    if info is not None and info.state == JobStatus.QUEUED and info.job == JobName.COMPACT:
        return info.id
    job = _LAST_COMPACTION[id(ctx.jobs)] = ctx.jobs.enqueue(JobName.COMPACT)
    return job


def compact(ctx: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """The job forget queues: rewrite every store this process owns with what it still holds."""
    for rewrite in ctx.compactors:
        rewrite()
    return {'status': 'compacted', 'stores': len(ctx.compactors)}
