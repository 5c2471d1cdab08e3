"""Edit a memory, read its history, and list a scope's users."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from pydantic import BaseModel, ConfigDict, Field

from api.common import parse_args, parse_json, require_read, services
from api.memory import _memory, _out
from core.scopes import ScopeId
from recall.write.updates import MemoryPatch

bp = Blueprint('updates', __name__, url_prefix='/v1')


@bp.patch('/memories/<ident>')
def update_memory(ident: str) -> Response:
    """Change a memory's text, tags, importance, pin or metadata; the old state is kept."""
    _memory(ident, write=True)
    patch = parse_json(MemoryPatch)
    return jsonify(_out(services().editor.edit(ident, patch)))


@bp.get('/memories/<ident>/history')
def memory_history(ident: str) -> Response:
    """A memory's versions, the writes merged into it and its supersession."""
    chunk = _memory(ident)
    return jsonify(services().history.history(chunk).model_dump(mode='json'))


class UsersArgs(BaseModel):
    """Query of `GET /v1/users`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    limit: int = Field(default=100, ge=1, le=1000)


@bp.get('/users')
def list_users() -> Response:
    """The users with memories in a scope, most memories first."""
    args = parse_args(UsersArgs)
    require_read(args.scope)
    return jsonify(services().history.users(args.scope, args.limit).model_dump(mode='json'))
