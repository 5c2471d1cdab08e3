"""Job handlers by name, in one explicit table: plain functions of (context, params).

Actors and queues dispatch here through `run`; nothing registers itself on import.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from consolidation import dedup, dreaming, episodic, expiry, forget, semantic
from consolidation.context import JobContext
from core.jobs import JobName

log = logging.getLogger(__name__)

Handler = Callable[[JobContext, dict[str, Any]], Any]


def index_graph(ctx: JobContext, params: dict[str, Any]) -> int:
    """Extract written chunks into the knowledge graph."""
    return ctx.writer.index_graph(params['ids'])


def forget_mentions(ctx: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Drop the graph mentions of chunks deleted by a process that does not own the graph."""
    if ctx.kg is None:
        return {'status': 'skipped', 'reason': 'graph disabled'}
    ids = [str(i) for i in params.get('ids') or []]
    ctx.kg.forget_chunks(ids)
    return {'status': 'forgotten', 'ids': len(ids)}


HANDLERS: Mapping[JobName, Handler] = {
    JobName.INDEX_GRAPH: index_graph,
    JobName.FORGET_MENTIONS: forget_mentions,
    JobName.EPISODIC: episodic.summarize_session,
    JobName.SEMANTIC: semantic.extract_episode,
    JobName.DEDUP: dedup.merge_duplicates,
    JobName.DREAMING: dreaming.dream,
    JobName.EXPIRY: expiry.sweep,
    JobName.COMPACT: forget.compact,
}


def run(ctx: JobContext, name: str, params: dict[str, Any]) -> Any:
    """Run job `name` now, in this thread."""
    try:
        handler = HANDLERS[JobName(name)]
    except ValueError:
        raise LookupError(f'no handler for job {name!r}') from None
    return handler(ctx, params)
