"""Forget a user or a scope: the "right to be forgotten" across every store that holds them.

Memories and episodes are deleted from the vector store. In the graph their mentions are
dropped and, unlike a single delete (which retracts and keeps history), the facts only they
said and the entities nothing else names are erased for good: a retracted fact still holds the
sentence it was read from. Forgetting a scope erases its whole graph.

Jobs of the scope or user that have not finished are cancelled first, their params (session
transcripts) erased: an accepted session must not make an episode after its user is forgotten.
A job already past its last check when it is cancelled (mid-run) may still write; it ends
`cancelled` all the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from consolidation.episodic import ensure_episodes
from core.scopes import Identifier, ScopeId
from recall.models import EPISODES, MEMORIES
from vectors.models import PointFilter
from vectors.paging import scroll_pages

if TYPE_CHECKING:
    from consolidation.context import JobContext

_PAGE = 512


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


def _ids(ctx: JobContext, collection: str, flt: PointFilter) -> list[str]:
    return [p.id for page in scroll_pages(ctx.vectors, collection, flt, _PAGE) for p in page]


def forget(ctx: JobContext, req: ForgetIn) -> ForgetReport:
    """Cancel the unfinished jobs of `req`, delete its memories and episodes and forget them
    in the graph."""
    # first, so that no queued session turns into an episode after the deletes below
    jobs = ctx.jobs.cancel(req.scope, req.user_id)
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
    return ForgetReport(
        scope=req.scope,
        user_id=req.user_id,
        memories=len(memories),
        episodes=len(episodes),
        graph_sources=len(memories) + len(episodes),
        graph_facts=facts,
        graph_entities=entities,
        jobs=jobs,
    )
