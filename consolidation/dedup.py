"""Entity dedup after each extraction (`entity.upserted` job); terminal and non-fatal."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from consolidation.context import JobContext

log = logging.getLogger(__name__)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode='json')
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value if isinstance(value, str | int | float | bool | type(None)) else str(value)


def merge_duplicates(services: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Merge duplicates among the just-upserted entities of one scope; flag ambiguous pairs."""
    if services.kg is None:
        return {'status': 'skipped', 'reason': 'graph disabled'}
    scope = str(params['scope'])
    entity_ids = [str(i) for i in params.get('entity_ids') or []]
    if not entity_ids:
        return {'status': 'skipped', 'reason': 'no entities'}
    try:
        result = services.kg.merge_duplicates(scope, entity_ids)
    except Exception as exc:
        log.warning('entity dedup in %s failed: %s', scope, exc, exc_info=True)
        return {'status': 'failed', 'error': f'{type(exc).__name__}: {exc}'}
    return {'status': 'merged', 'result': _jsonable(result)}
