"""Strict JSON for request bodies and imported lines: what RFC 8259 allows, nested ≤ 32 deep.

Python's `json` accepts `NaN`, `Infinity` and `1e400` (as inf) and any nesting depth; stored
payloads are serialised again later (pydantic stops near 100 levels, strict clients reject NaN),
so both are refused where input enters, with a message that says why. `unstorable` finds the
values JSON allows but the vector store cannot keep as sent: a lone surrogate (`"\\ud800"`) is
not UTF-8 and fails the store's encoder, and an integer outside [-2**63, 2**64 - 1] comes back
as a rounded float.
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


MIN_INT = -(2**63)  # the store keeps integers as i64 or u64; beyond, it silently rounds to float
MAX_INT = 2**64 - 1


def unstorable(data: Any) -> tuple[list[str | int], str] | None:
    """(location, reason) of the first key or value the store cannot keep unchanged, or None."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, str):
            if not _utf8(value):
                return loc, 'contains a lone surrogate (\\ud800-\\udfff): not encodable text'
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            if not MIN_INT <= value <= MAX_INT:
                return loc, 'integer out of range: stored integers lie in [-2**63, 2**64 - 1]'
        elif isinstance(value, float):
            if not math.isfinite(value):
                return loc, 'NaN and Infinity are not JSON numbers'
        elif isinstance(value, dict):
            for key, child in reversed(value.items()):
                if isinstance(key, str) and not _utf8(key):
                    safe = key.encode('utf-8', 'backslashreplace').decode('utf-8')
                    return [*loc, safe], 'key contains a lone surrogate: not encodable text'
                stack.append((child, [*loc, key]))
        elif isinstance(value, list | tuple):
            stack.extend((child, [*loc, i]) for i, child in reversed(list(enumerate(value))))
    return None


def _utf8(text: str) -> bool:
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        return False
    return True


def _constant(token: str) -> Any:
    raise NotJson(f'{token} is not a JSON number')


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotJson(f'{text} is beyond the range of a number')
    return value
