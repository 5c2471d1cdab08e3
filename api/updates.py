"""Edit a memory, read its history, and list a scope's users."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from pydantic import BaseModel, ConfigDict, Field

from api.common import parse_args, parse_json, require_read, services
from api.documented import MEMORY_ID, SCOPED, documented
from api.memory import _memory, _out
from core.scopes import ScopeId
from recall.history import MemoryHistory, UserList
from recall.schemas import ChunkOut
from recall.write.updates import MemoryPatch

bp = Blueprint('updates', __name__, url_prefix='/v1')


@bp.patch('/memories/<ident>')
@documented(
    "Edit a memory's text, tags, importance, pin or metadata",
    responses={200: ChunkOut},
    body=MemoryPatch,
    path_params=MEMORY_ID,
    errors=SCOPED,
    description='The id stays. The replaced state is kept as a version (GET .../history); '
    'searches read only the current one. A new text is embedded and extracted into the '
    'graph again, and the facts only the old text said are retracted.',
)
def update_memory(ident: str) -> Response:
    """Change a memory's text, tags, importance, pin or metadata; the old state is kept."""
    _memory(ident, write=True)
    patch = parse_json(MemoryPatch)
    return jsonify(_out(services().editor.edit(ident, patch)))


@bp.get('/memories/<ident>/history')
@documented(
    "A memory's versions, merges and supersession",
    responses={200: MemoryHistory},
    path_params=MEMORY_ID,
)
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
@documented(
    'Users with memories in a scope',
    responses={200: UserList},
    query=UsersArgs,
    errors=SCOPED,
)
def list_users() -> Response:
    """The users with memories in a scope, most memories first."""
    args = parse_args(UsersArgs)
    require_read(args.scope)
    return jsonify(services().history.users(args.scope, args.limit).model_dump(mode='json'))
