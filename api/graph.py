"""Knowledge-graph routes: `knowledge_graph_search` and one entity with its fact history."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, Response, jsonify, request
from pydantic import BaseModel, ConfigDict, Field

from api.common import is_uuid, parse_args, parse_json, path_id, require_read, services
from api.documented import SCOPED, documented
from api.responses import EntityList
from core.errors import InvalidInput, StoreUnavailable
from core.scopes import ScopeId, check_scope
from kg.models import EntityDetail, KGSearchRequest, KGSearchResponse
from kg.question import read_question
from kg.service import KnowledgeGraphService

bp = Blueprint('graph', __name__, url_prefix='/v1')


def _kg() -> KnowledgeGraphService:
    kg = services().kg
    if kg is None:
        raise StoreUnavailable('the knowledge graph is disabled (KG_GRAPH_ENABLED=false)')
    return kg


class EntityArgs(BaseModel):
    """Query of `GET /v1/kg/entities/{entity_id}`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId


@bp.post('/knowledge_graph_search')
@documented(
    'Entities, facts valid at as_of, and paths',
    responses={200: KGSearchResponse},
    body=KGSearchRequest,
    errors=SCOPED,
    tag='graph',
    description='A question that speaks of its asker ("Where do I work?", "我住在哪里？") reads '
    '"I" as `user_id`; without one, as the only user with memories in the scope. In a scope of '
    'several users (or none), "I" stays unresolved: the answer holds what the other names in '
    'the question find, `asker` is null and `warnings` says to pass `user_id`.',
)
def knowledge_graph_search() -> Response:
    """Entities, facts valid at `as_of` (validity window, provenance) and connecting paths."""
    req = parse_json(KGSearchRequest)
    require_read(req.scope)
    if services().kg is None:
        return jsonify(KGSearchResponse().model_dump(mode='json'))
    asker, warnings = _asker(req)
    if asker != req.user_id:
        req = req.model_copy(update={'user_id': asker})
    result = _kg().search(req, [req.scope])
    result.asker, result.warnings = asker, warnings
    return jsonify(result.model_dump(mode='json'))


def _asker(req: KGSearchRequest) -> tuple[str | None, list[str]]:
    """Who "I" in the question is (the request's user_id, else the scope's only user) and,
    when no one is, a warning saying why: an answer about nobody must not look like "nothing
    is known"."""
    if not read_question(req.query, datetime.now(UTC)).first_person:
        return None, []
    if req.user_id is not None:
        return req.user_id, []
    users = [u.user_id for u in services().history.users(req.scope, 4).users]
    if len(users) == 1:
        return users[0], []
    if users:
        named = ', '.join(users[:3]) + (', ...' if len(users) > 3 else '')
        why = f'the scope has memories of several users ({named})'
    else:
        why = 'no memory of the scope has a user_id'
    return None, [f'"I" in the question is not resolved: {why}; pass user_id']


class EntitiesArgs(BaseModel):
    """`GET /v1/kg/entities` query: a scope, an optional name filter, a page size."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    q: str | None = Field(default=None, min_length=1, max_length=200)
    limit: int = Field(default=50, ge=1, le=500)


@bp.get('/kg/entities')
@documented(
    'Live entities of a scope, most mentioned first',
    responses={200: EntityList},
    query=EntitiesArgs,
    errors=(403,),
    tag='graph',
)
def list_entities() -> Response:
    """Live entities of a scope (name or alias containing `q`), most mentioned first."""
    args = parse_args(EntitiesArgs)
    require_read(args.scope)
    if services().kg is None:
        return jsonify(items=[], total=0)
    items, total = _kg().entities(args.scope, args.q, args.limit)
    return jsonify(items=[e.model_dump(mode='json') for e in items], total=total)


@bp.get('/kg/entities/<entity_id>')
@documented(
    'One entity: aliases, current facts and their history',
    responses={200: EntityDetail},
    query=EntityArgs,
    path_params={'entity_id': 'entity id from knowledge_graph_search'},
    errors=(403, 503),
    tag='graph',
)
def get_entity(entity_id: str) -> Response:
    """One entity of `?scope=`: aliases, current facts and the full history; 404 if unseen."""
    scope = request.args.get('scope')
    if not scope:
        raise InvalidInput('scope', 'query parameter is required')
    check_scope(scope)
    require_read(scope)
    path_id('entity_id', 'entity', entity_id, is_uuid, 'uuids')
    detail = _kg().entity(entity_id, [scope])
    return jsonify(detail.model_dump(mode='json'))
