"""Evaluate a PointFilter against a payload in Python, for hits that did not come from the store's
own filtered query (the graph channel) and for in-memory twins."""

from __future__ import annotations

from typing import Any

from recall.models import PointFilter


def _values(payload: dict[str, Any], key: str) -> list[Any]:
    value = payload.get(key)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def matches(payload: dict[str, Any], flt: PointFilter) -> bool:
    """True when `payload` satisfies every condition of `flt` (Qdrant semantics)."""
    if flt.scopes is not None and payload.get('scope') not in flt.scopes:
        return False
    for key, wanted in flt.any_of.items():
        if not any(v in wanted for v in _values(payload, key)):
            return False
    for key, banned in flt.none_of.items():
        if any(v in banned for v in _values(payload, key)):
            return False
    for key, rng in flt.ranges.items():
        value = payload.get(key)
        if not isinstance(value, int | float):
            return False
        if rng.gte is not None and value < rng.gte:
            return False
        if rng.lte is not None and value > rng.lte:
            return False
    return True
