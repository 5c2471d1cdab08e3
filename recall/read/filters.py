"""A search request's filters as a vector-store filter."""

from __future__ import annotations

from core.clock import to_epoch
from core.errors import InvalidInput
from recall.schemas import SearchFilters
from vectors.models import PointFilter, Range


def apply_search_filters(flt: PointFilter, filters: SearchFilters) -> None:
    """Narrow `flt` by a search request's `filters` (kinds, tiers, user, tags, pin, dates)."""
    if filters.kinds:
        flt.any_of['kind'] = [k.value for k in filters.kinds]
    if filters.tiers:
        flt.any_of['tier'] = [t.value for t in filters.tiers]
    if filters.user_id is not None:
        flt.any_of['user_id'] = [filters.user_id]
    if filters.tags:
        flt.any_of['tags'] = list(filters.tags)
    if filters.pinned is not None:
        flt.any_of['pinned'] = [filters.pinned]
    if filters.created_after or filters.created_before:
        if (
            filters.created_after
            and filters.created_before
            and filters.created_after > filters.created_before
        ):
            raise InvalidInput('filters.created_after', 'must not be after created_before')
        flt.ranges['created_at'] = Range(
            gte=to_epoch(filters.created_after) if filters.created_after else None,
            lte=to_epoch(filters.created_before) if filters.created_before else None,
        )
