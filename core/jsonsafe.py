"""Strict JSON for request bodies and imported lines: what RFC 8259 allows, nested ≤ 32 deep.

Python's `json` accepts `NaN`, `Infinity` and `1e400` (as inf) and any nesting depth; stored
payloads are serialised again later (pydantic stops near 100 levels, strict clients reject NaN),
so both are refused where input enters, with a message that says why.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32


class NotJson(ValueError):
    """The text is not strict JSON; the message says why."""


def loads(text: str | bytes) -> Any:
    """`json.loads` without NaN/Infinity/out-of-range floats; NotJson (a ValueError) if bad."""
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_finite)
    except RecursionError:
        raise NotJson('nested too deeply') from None
    except NotJson:
        raise
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, too many int digits
        raise NotJson(getattr(exc, 'msg', None) or str(exc)) from None


def too_deep(data: Any, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The location of the first container nested deeper than `limit`, or None."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, dict | list):
            if len(loc) >= limit:
                return loc
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((child, [*loc, key]) for key, child in items)
    return None


def _constant(token: str) -> Any:
    raise NotJson(f'{token} is not a JSON number')


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotJson(f'{text} is beyond the range of a number')
    return value
