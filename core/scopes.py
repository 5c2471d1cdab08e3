"""Scope syntax and the read order of scopes (own, global, team leader)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from core.errors import InvalidScope

ID_PATTERN = r'[A-Za-z0-9_.-]{1,128}'
_SCOPE_RE = re.compile(rf'^(?:global|agent:{ID_PATTERN}(?::{ID_PATTERN})?|team:{ID_PATTERN})\Z')
_ID_RE = re.compile(rf'^{ID_PATTERN}\Z')
GLOBAL = 'global'


def is_scope(value: str) -> bool:
    """True when `value` is a well-formed scope string."""
    return bool(_SCOPE_RE.match(value))


def is_identifier(value: str) -> bool:
    """True when `value` is a well-formed agent/team/user id."""
    return bool(_ID_RE.match(value))


def check_scope(value: str) -> str:
    """Return `value` unchanged or raise InvalidScope."""
    if not isinstance(value, str) or not is_scope(value):
        raise InvalidScope(str(value))
    return value


def _validate_scope(value: str) -> str:
    if not is_scope(value):
        # a ValueError lets pydantic report the field location itself
        raise ValueError('not a scope: use agent:<id>, agent:<id>:<channel>, team:<id> or global')
    return value


def _validate_identifier(value: str) -> str:
    if not is_identifier(value):
        raise ValueError('ids match [A-Za-z0-9_.-]{1,128}')
    return value


ScopeId = Annotated[str, AfterValidator(_validate_scope)]
Identifier = Annotated[str, AfterValidator(_validate_identifier)]


def agent_of(scope: str) -> str | None:
    """The agent id of an `agent:` scope (channel scopes included), else None."""
    if scope.startswith('agent:'):
        return scope.split(':')[1]
    return None


def agent_scope(agent_id: str, channel: str | None = None) -> str:
    """`agent:<id>` or `agent:<id>:<channel>`."""
    return f'agent:{agent_id}' if not channel else f'agent:{agent_id}:{channel}'
