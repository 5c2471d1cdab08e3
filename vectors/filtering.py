"""Evaluate a PointFilter against a payload in Python, for hits that did not come from the store's
own filtered query (the graph channel) and for in-memory twins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vectors.models import PointFilter

Matcher = Callable[[dict[str, Any]], bool]


def values_at(payload: dict[str, Any], key: str) -> list[Any]:
    """The values at `key`, a Qdrant path: `a.b` reads a nested object, `a[].b` the `b` of each
    element of the list `a`."""
    if '.' not in key and not key.endswith('[]'):
        # a top-level key, as almost every filter names: a search checks ~60 payloads
        value = payload.get(key)
        if value is None:
            return []
        return [x for x in value if x is not None] if isinstance(value, list) else [value]
    found: list[Any] = [payload]
    for part in key.split('.'):
        each = part.endswith('[]')
        step = [v.get(part[:-2] if each else part) for v in found if isinstance(v, dict)]
        if each:  # as Qdrant: `a[]` reads the elements of a list, nothing of anything else
            step = [x for v in step if isinstance(v, list) for x in v]
        found = [x for v in step for x in (v if isinstance(v, list) else [v]) if x is not None]
    return found


def _same(a: Any, b: Any) -> bool:
    # Python has True == 1; Qdrant keeps bool and integer payloads apart
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _any_in(values: list[Any], wanted: list[Any]) -> bool:
    return any(_same(v, w) for v in values for w in wanted)


def _in_range(value: Any, rng: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if rng.gte is not None and value < rng.gte:
        return False
    return rng.lte is None or value <= rng.lte


def matches(payload: dict[str, Any], flt: PointFilter) -> bool:
    """True when `payload` satisfies every condition of `flt` (Qdrant semantics)."""
    if flt.scopes is not None and payload.get('scope') not in flt.scopes:
        return False
    for key, wanted in flt.any_of.items():
        if not _any_in(values_at(payload, key), list(wanted)):
            return False
    for key, banned in flt.none_of.items():
        if _any_in(values_at(payload, key), list(banned)):
            return False
    # a list field is in range when any of its elements is, as in Qdrant
    return all(
        any(_in_range(v, rng) for v in values_at(payload, key)) for key, rng in flt.ranges.items()
    )


def matcher(flt: PointFilter) -> Matcher:
    """`matches` against `flt` as a function of the payload, the filter worked out once: a
    search checks ~60 neighbours' payloads against its filter (~0.4 us each against ~4)."""
    keys = [*flt.any_of, *flt.none_of]
    if flt.ranges or any('.' in k or k.endswith('[]') for k in keys):
        return lambda payload: matches(payload, flt)  # paths and ranges: the general reading
    scopes = flt.scopes
    wanted = [(key, *_split(values)) for key, values in flt.any_of.items()]
    banned = [(key, *_split(values)) for key, values in flt.none_of.items()]

    def check(payload: dict[str, Any]) -> bool:
        if scopes is not None and payload.get('scope') not in scopes:
            return False
        for key, plain, flags in wanted:
            if not _holds(payload.get(key), plain, flags):
                return False
        return not any(_holds(payload.get(key), plain, flags) for key, plain, flags in banned)

    return check


def _split(values: list[Any]) -> tuple[tuple[Any, ...], tuple[bool, ...]]:
    """A condition's values apart from its booleans (Qdrant keeps bool and integer apart)."""
    return (
        tuple(v for v in values if not isinstance(v, bool)),
        tuple(v for v in values if isinstance(v, bool)),
    )


def _holds(value: Any, plain: tuple[Any, ...], flags: tuple[bool, ...]) -> bool:
    """Whether a top-level value (or an element of a list value) is one of `plain` or `flags`,
    as `_any_in` over `values_at` reads it."""
    if value is None:
        return False
    for v in value if isinstance(value, list) else (value,):
        if v is not None and (v in flags if isinstance(v, bool) else v in plain):
            return True
    return False


def facet_key(value: Any) -> str:
    """A facet value as the string key every store reports it under (booleans as true/false)."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)
