"""Extract the whole knowledge graph again from the memories and episodes the vector store holds.

The graph is derived: every fact in it was read from a memory or an episode summary. When its
database had to be started empty (Kuzu crashed on the file, kg/kuzu_lifecycle.py), the service
queues the same jobs a write queues, for everything stored: `index_graph` for the memories, a
page at a time, and `semantic` for each episode. The facts' validity does not depend on the
order they are read in (kg/temporal.py closes a fact that arrives late where the next begins),
and a rebuild that is cut short and queued again from the start counts nothing twice: the graph
skips a chunk or an episode it already links (KnowledgeGraphService.index_chunks).
"""

from __future__ import annotations

import logging

from consolidation.context import JobContext
from core.jobs import JobName
from recall.models import EPISODES, MEMORIES
from vectors.models import PointFilter
from vectors.paging import scroll_pages

log = logging.getLogger(__name__)

PAGE = 1024  # points read per scroll
PER_JOB = 64  # memories per index_graph job, as a bulk write queues them


def queue_graph_rebuild(ctx: JobContext, page: int = PAGE, per_job: int = PER_JOB) -> int:
    """Queue the graph extraction of every stored memory and episode; returns how many."""
    every = PointFilter(scopes=None)
    # a document version still staged is not shown yet: its index queues it when it shows it
    shown = PointFilter(scopes=None, none_of={'staged': [True]})
    queued = 0
    for points in scroll_pages(ctx.vectors, MEMORIES, shown, page):
        ids = [p.id for p in points]
        for start in range(0, len(ids), per_job):
            ctx.jobs.enqueue(JobName.INDEX_GRAPH, ids=ids[start : start + per_job])
        queued += len(ids)
    for points in scroll_pages(ctx.vectors, EPISODES, every, page):
        for point in points:
            scope = point.payload.get('scope')
            ctx.jobs.enqueue(JobName.SEMANTIC, scope=scope, episode_id=point.id)
        queued += len(points)
    log.warning('queued the graph extraction of %d memories and episodes', queued)
    return queued
