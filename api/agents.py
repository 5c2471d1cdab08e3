"""Agent tokens and teams: the admin issues tokens bound to an agent and defines teams."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from pydantic import BaseModel, ConfigDict, Field

from agents.ports import AgentDirectory, Team, TokenInfo
from api.common import is_token_id, parse_args, parse_json, path_id, principal, services
from api.documented import documented
from api.responses import Deleted, TeamOut, TokenCreated, TokenList, TokenRevoked, WhoAmI
from core.errors import Forbidden, InvalidInput, NotFound
from core.scopes import Identifier, ScopeId, agent_scope, is_identifier

bp = Blueprint('agents', __name__, url_prefix='/v1')


def _registry() -> AgentDirectory:
    return services().agents


def _require_admin() -> None:
    if not principal().admin:
        raise Forbidden('only the admin token may manage tokens and teams')


def _path_id(field: str, value: str) -> str:
    if not is_identifier(value):
        raise InvalidInput(field, 'ids match [A-Za-z0-9_.-]{1,128}')
    return value


class TokenIn(BaseModel):
    """`POST /v1/tokens` body."""

    model_config = ConfigDict(extra='forbid')

    agent_id: Identifier
    scopes: list[ScopeId] = Field(
        default_factory=list, max_length=64, description='extra writable scopes beyond its own'
    )


class TokenArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    agent_id: Identifier | None = None
    include_revoked: bool = False


class TeamIn(BaseModel):
    """`PUT /v1/teams/<team_id>` body: agent ids."""

    model_config = ConfigDict(extra='forbid')

    leader: Identifier
    members: list[Identifier] = Field(max_length=1000)


def _token_out(info: TokenInfo) -> dict[str, object]:
    own = agent_scope(info.agent_id)
    return {
        **info.model_dump(mode='json'),
        'writable': [own, f'{own}:*', *info.scopes],
        'read_fallback': [agent_scope(leader) for leader in _leaders(info.agent_id)],
    }


def _leaders(agent_id: str) -> list[str]:
    return [leader for leader in _registry().leaders_of(agent_id) if leader != agent_id]


def _team_out(team: Team) -> dict[str, object]:
    return {**team.model_dump(mode='json'), 'leader_scope': agent_scope(team.leader)}


@bp.post('/tokens')
@documented(
    'Issue an agent token (admin)',
    responses={201: TokenCreated},
    body=TokenIn,
    errors=(403,),
    tag='agents',
)
def create_token() -> tuple[Response, int]:
    """Issue a token bound to `agent:<agent_id>`; the secret is shown only in this response."""
    _require_admin()
    body = parse_json(TokenIn)
    info, secret = _registry().issue_token(body.agent_id, body.scopes)
    return jsonify({'token': secret, **_token_out(info)}), 201


@bp.get('/tokens')
@documented(
    'Registered tokens, never secrets (admin)',
    responses={200: TokenList},
    query=TokenArgs,
    errors=(403,),
    tag='agents',
)
def list_tokens() -> Response:
    """Registered tokens (never their secrets), optionally of one agent."""
    _require_admin()
    args = parse_args(TokenArgs)
    found = _registry().tokens(args.agent_id, include_revoked=args.include_revoked)
    return jsonify(items=[_token_out(info) for info in found])


@bp.delete('/tokens/<token_id>')
@documented(
    'Revoke a token (admin)',
    responses={200: TokenRevoked},
    path_params={'token_id': 'token_id from POST /v1/tokens'},
    errors=(403,),
    tag='agents',
)
def revoke_token(token_id: str) -> Response:
    """Revoke a token; it gets 401 from then on."""
    _require_admin()
    path_id('token_id', 'token', token_id, is_token_id, 'tok_ and 16 hex digits')
    info = _registry().revoke_token(token_id)
    return jsonify(info.model_dump(mode='json'))


@bp.get('/whoami')
@documented(
    'Who the token stands for: admin, or an agent and its scopes',
    responses={200: WhoAmI},
    tag='agents',
)
def whoami() -> Response:
    """Who the bearer token stands for: admin, or an agent with its own and granted scopes
    (tools in front of the API check a token and find its default scope with this)."""
    caller = principal()
    own = agent_scope(caller.agent_id) if caller.agent_id is not None else None
    writable = ['*'] if caller.admin else [s for s in (own, *caller.extra_scopes) if s]
    if own is not None:
        writable.insert(1, f'{own}:*')
    return jsonify(
        name=caller.name,
        admin=caller.admin,
        agent_id=caller.agent_id,
        scope=own,
        writable=writable,
        read_fallback=list(caller.leader_scopes),
    )


@bp.put('/teams/<team_id>')
@documented(
    'Create or replace a team (admin)',
    responses={200: TeamOut},
    body=TeamIn,
    path_params={'team_id': 'team id, [A-Za-z0-9_.-]{1,128}'},
    errors=(403,),
    tag='agents',
)
def put_team(team_id: str) -> Response:
    """Create or replace a team; members read the leader's memory as fallback."""
    _require_admin()
    _path_id('team_id', team_id)
    body = parse_json(TeamIn)
    team = _registry().put_team(team_id, body.leader, body.members)
    return jsonify(_team_out(team))


@bp.get('/teams/<team_id>')
@documented(
    'A team (admin, leader, members)',
    responses={200: TeamOut},
    path_params={'team_id': 'team id'},
    errors=(422,),
    tag='agents',
)
def get_team(team_id: str) -> Response:
    """A team; readable by the admin, its leader and its members."""
    _path_id('team_id', team_id)
    team = _registry().get_team(team_id)
    caller = principal()
    if not caller.admin and caller.agent_id not in (team.leader, *team.members):
        # an outsider learns nothing, not even that the team exists
        raise NotFound('team', team_id)
    return jsonify(_team_out(team))


@bp.delete('/teams/<team_id>')
@documented(
    'Delete a team (admin)',
    responses={200: Deleted},
    path_params={'team_id': 'team id'},
    errors=(403, 422),
    tag='agents',
)
def delete_team(team_id: str) -> Response:
    """Delete a team; its members lose the fallback at once."""
    _require_admin()
    _path_id('team_id', team_id)
    _registry().delete_team(team_id)
    return jsonify(deleted=team_id)
