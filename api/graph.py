"""Knowledge-graph routes: `knowledge_graph_search` and one entity with its fact history."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from api.common import parse_json, require_read, services
from core.errors import InvalidInput, StoreUnavailable
from core.scopes import check_scope
from kg.models import KGSearchRequest, KGSearchResponse
from kg.service import KnowledgeGraphService

bp = Blueprint('graph', __name__, url_prefix='/v1')


def _kg() -> KnowledgeGraphService:
    kg = services().kg
    if kg is None:
        raise StoreUnavailable('the knowledge graph is disabled (KG_GRAPH_ENABLED=false)')
    return kg


@bp.post('/knowledge_graph_search')
def knowledge_graph_search() -> Response:
    """Entities, facts valid at `as_of` (validity window, provenance) and connecting paths."""
    req = parse_json(KGSearchRequest)
    require_read(req.scope)
    if services().kg is None:
        return jsonify(KGSearchResponse().model_dump(mode='json'))
    result = _kg().search(req, [req.scope])
    return jsonify(result.model_dump(mode='json'))


@bp.get('/kg/entities/<entity_id>')
def get_entity(entity_id: str) -> Response:
    """One entity of `?scope=`: aliases, current facts and the full history; 404 if unseen."""
    scope = request.args.get('scope')
    if not scope:
        raise InvalidInput('scope', 'query parameter is required')
    check_scope(scope)
    require_read(scope)
    detail = _kg().entity(entity_id, [scope])
    return jsonify(detail.model_dump(mode='json'))
