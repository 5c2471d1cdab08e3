"""Semantic memory (L2): graph extraction of an episode (`episodic.created` job).

Runs on the graph queue, i.e. in the process that owns Kuzu. Failures are logged and end the
chain quietly (GoClaw: non-fatal), so a bad extraction never blocks dreaming or later sessions.
Emits `entity.upserted`: the dedup job with the entity ids just written.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from consolidation.episodic import get_episode
from core.jobs import JobName

if TYPE_CHECKING:
    from consolidation.context import JobContext

log = logging.getLogger(__name__)


def entity_ids_of(result: Any) -> list[str]:
    """Entity ids from whatever `ingest_text` returns (a result model, a mapping or a list)."""
    if result is None:
        return []
    for name in ('entity_ids', 'upserted', 'entities'):
        value = result.get(name) if isinstance(result, dict) else getattr(result, name, None)
        if value is not None:
            return _ids(value)
    if isinstance(result, list | tuple | set):
        return _ids(result)
    return []


def _ids(values: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for value in values:
        ident = value if isinstance(value, str) else getattr(value, 'id', None)
        if isinstance(ident, str) and ident not in out:
            out.append(ident)
    return out


def extract_episode(services: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Ingest the episode's summary into its scope's graph, valid from the session's time."""
    if services.kg is None:
        return {'status': 'skipped', 'reason': 'graph disabled'}
    episode = get_episode(services, str(params['episode_id']))
    if episode is None:
        return {'status': 'skipped', 'reason': 'episode not found (expired or deleted)'}
    try:
        result = services.kg.ingest_text(
            episode.scope,
            episode.summary,
            episode.ended_at,
            speaker=episode.user_id,
            source_episode=episode.id,
        )
    except Exception as exc:
        log.warning('graph extraction of episode %s failed: %s', episode.id, exc, exc_info=True)
        return {'status': 'failed', 'error': f'{type(exc).__name__}: {exc}'}
    entity_ids = entity_ids_of(result)
    out: dict[str, Any] = {'status': 'extracted', 'entity_ids': entity_ids}
    if entity_ids:
        out['next'] = {
            'dedup': services.jobs.enqueue(
                JobName.DEDUP, scope=episode.scope, entity_ids=entity_ids
            )
        }
    return out
