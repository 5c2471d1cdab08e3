"""OpenAPI 3.1 built from the pydantic models, `GET /openapi.json` and the `/docs` page.

Each route declares its own entry where it is defined (`api.documented.documented`, next to the
blueprint's route); the document of an app is built from the routes it mounts, in their order.

The Swagger UI assets come from the `swagger-ui-bundle-v2` wheel, so `/docs` works offline.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, send_from_directory, url_for
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from api.documented import Body, Operation, Raw, documented, operations_of
from api.responses import ErrorBody
from api.ui import refuse_framing
from api.version import version

REF_TEMPLATE = '#/components/schemas/{model}'


ERROR_TEXT = {
    400: 'The body is not JSON, or not a JSON object',
    401: 'No bearer token, a malformed header, or an unknown or revoked token',
    403: 'The token may not read or write this scope, or the route needs the admin token',
    404: 'Nothing with this id in a scope the token may read',
    405: 'The path names another route that takes a different method',
    409: 'The request contradicts stored state',
    413: 'The body, or one text in it, exceeds the configured limit',
    422: 'A field is missing or invalid: `details[].loc` names each one',
    429: 'Too many unknown tokens from this address: retry after `Retry-After` seconds',
    503: 'A store is unavailable, or the knowledge graph is disabled',
    500: 'An unexpected error: the service log has its trace under the X-Request-Id',
}


def build_document(ops: Iterable[Operation], *, api_version: str | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `ops`; schemas come from `model_json_schema` via pydantic."""
    ops = list(ops)
    refs, schemas = _component_schemas(ops)
    paths: dict[str, dict[str, Any]] = {}
    for op in ops:
        paths.setdefault(op.path, {})[op.method] = _operation(op, refs, schemas)
    return {
        'openapi': '3.1.0',
        'info': {
            'title': 'Mnemos',
            'version': api_version or version(),
            'description': (
                'Graph-plus-vector memory for AI agents. Send `Authorization: Bearer <token>`: '
                'the admin token (`KG_API_TOKEN`) or an agent token from `POST /v1/tokens`. '
                'Every error is `{error, message, details: [{loc?, msg, type}]}`.'
            ),
            'license': {'name': 'Apache-2.0', 'identifier': 'Apache-2.0'},
        },
        'security': [{'bearer': []}],
        # the API's own groups first, then the service's plumbing (health, metrics, docs, ui)
        'tags': [{'name': t} for t in sorted(dict.fromkeys(op.tag for op in ops), key=_late)],
        'paths': paths,
        'components': {
            'schemas': schemas,
            'securitySchemes': {'bearer': {'type': 'http', 'scheme': 'bearer'}},
            'responses': {
                f'Error{status}': {
                    'description': text,
                    'headers': {'X-Request-Id': _REQUEST_ID_HEADER},
                    'content': {
                        'application/json': {'schema': _ref(refs, ErrorBody, 'serialization')}
                    },
                }
                for status, text in ERROR_TEXT.items()
            },
        },
    }


# a model and the mode it is read in -> its `$ref`
Refs = Mapping[tuple[Any, JsonSchemaMode], Mapping[str, Any]]


def _component_schemas(ops: list[Operation]) -> tuple[Refs, dict[str, Any]]:
    """Every model the operations send or answer, in one pass: the `$ref` of each (a model may
    be read in validation and serialization mode) and the shared schemas they point to."""
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(ErrorBody, 'serialization')]
    for op in ops:
        for body in op.responses.values():
            if not isinstance(body, Raw):
                pairs.append((body, 'serialization'))
        if op.body is not None and not isinstance(op.body, Raw):
            pairs.append((op.body, 'validation'))
        if op.query is not None:
            pairs.append((op.query, 'validation'))
    refs, top = models_json_schema(list(dict.fromkeys(pairs)), ref_template=REF_TEMPLATE)
    return refs, top.get('$defs', {})


def _ref(refs: Refs, model: type[BaseModel], mode: JsonSchemaMode) -> dict[str, Any]:
    return dict(refs[(model, mode)])


def _content(refs: Refs, body: Body, mode: JsonSchemaMode) -> dict[str, Any]:
    if isinstance(body, Raw):
        return {body.media_type: {'schema': dict(body.schema)}}
    return {'application/json': {'schema': _ref(refs, body, mode)}}


def _operation(op: Operation, refs: Refs, schemas: Mapping[str, Any]) -> dict[str, Any]:
    """The path item entry of one operation."""
    entry: dict[str, Any] = {
        'operationId': op.endpoint.replace('.', '_'),
        'summary': op.summary,
        'tags': [op.tag],
        'parameters': _parameters(op, _query_schema(op, refs, schemas)),
        'responses': _responses(op, refs),
    }
    if op.description:
        entry['description'] = op.description
    if op.body is not None:
        entry['requestBody'] = {'required': True, 'content': _content(refs, op.body, 'validation')}
    if not op.auth:
        entry['security'] = []
    return entry


def _responses(op: Operation, refs: Refs) -> dict[str, Any]:
    """An operation's answers by status, then its errors (shared `Error<status>` entries)."""
    responses: dict[str, Any] = {}
    for status, body in sorted(op.responses.items()):
        description = body.description if isinstance(body, Raw) else _first_line(body)
        responses[str(status)] = {
            'description': description,
            'content': _content(refs, body, 'serialization'),
        }
        if status == 202:
            responses[str(status)]['headers'] = {
                'Location': {'schema': {'type': 'string'}, 'description': 'the job status URL'}
            }
    for status in op.error_statuses():
        responses[str(status)] = {'$ref': f'#/components/responses/Error{status}'}
    for spec in responses.values():
        if '$ref' not in spec:
            spec['headers'] = {**spec.get('headers', {}), 'X-Request-Id': _REQUEST_ID_HEADER}
    return responses


_REQUEST_ID_HEADER = {
    'description': 'the request id: the one sent in X-Request-Id when valid, else a new one',
    'schema': {'type': 'string'},
}


def _late(tag: str) -> bool:
    return tag == 'service'


def _first_line(model: type[BaseModel]) -> str:
    return (model.__doc__ or model.__name__).strip().splitlines()[0]


def _query_schema(
    op: Operation, refs: Mapping[Any, Mapping[str, Any]], schemas: Mapping[str, Any]
) -> Mapping[str, Any]:
    if op.query is None:
        return {}
    return schemas[refs[(op.query, 'validation')]['$ref'].rsplit('/', 1)[1]]


def _parameters(op: Operation, model: Mapping[str, Any]) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            'name': name,
            'in': 'path',
            'required': True,
            'description': text,
            'schema': {'type': 'string', 'minLength': 1},
        }
        for name, text in op.path_params.items()
    ]
    if model:
        required = set(model.get('required', ()))
        for name, schema in model.get('properties', {}).items():
            param: dict[str, Any] = {
                'name': name,
                'in': 'query',
                'required': name in required,
                'schema': {k: v for k, v in schema.items() if k not in ('title', 'description')},
            }
            if 'description' in schema:
                param['description'] = schema['description']
            params.append(param)
    params.append(
        {
            'name': 'X-Request-Id',
            'in': 'header',
            'required': False,
            'description': (
                'your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; '
                'anything else is replaced by a new id'
            ),
            'schema': {'type': 'string'},
        }
    )
    return params


# ---- serving ----------------------------------------------------------------------------------

bp = Blueprint('openapi', __name__)

#: the Swagger UI files /docs needs; nothing else of the wheel is served
ASSETS = frozenset({'swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'})
PUBLIC_ENDPOINTS = frozenset({'openapi.openapi_json', 'openapi.docs', 'openapi.docs_asset'})

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Mnemos API</title>
<link rel="icon" href="{icon}">
<link rel="stylesheet" href="{css}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{js}"></script>
<script>
window.ui = SwaggerUIBundle({{
  url: "{spec}", dom_id: "#swagger-ui", deepLinking: true, persistAuthorization: false,
  tryItOutEnabled: true
}});
</script>
</body>
</html>
"""


@cache
def _assets_dir() -> str:
    from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

    return str(swagger_ui_path)


def document_of_app() -> dict[str, Any]:
    """The document of the running app (built once per app)."""
    doc = current_app.extensions.get('mnemos.openapi')
    if doc is None:
        doc = current_app.extensions['mnemos.openapi'] = build_document(operations_of(current_app))
    return doc


@bp.get('/openapi.json')
@documented(
    'This OpenAPI 3.1 document',
    responses={200: Raw('application/json', 'OpenAPI 3.1', {'type': 'object'})},
    auth=False,
    tag='service',
)
def openapi_json() -> Response:
    """The OpenAPI 3.1 document."""
    return jsonify(document_of_app())


@bp.get('/docs')
@documented(
    'Interactive API docs (Swagger UI, works offline)',
    responses={200: Raw('text/html', 'Swagger UI page')},
    auth=False,
    tag='service',
)
def docs() -> Response:
    """Swagger UI over /openapi.json, with assets served from this process."""

    def asset(name: str) -> str:
        return html.escape(url_for('openapi.docs_asset', name=name))

    page = _PAGE.format(
        icon=asset('favicon-32x32.png'),
        css=asset('swagger-ui.css'),
        js=asset('swagger-ui-bundle.js'),
        spec=html.escape(url_for('openapi.openapi_json')),
    )
    # the token typed into Authorize stays in the page's memory: never in localStorage
    return refuse_framing(Response(page, mimetype='text/html'))


@bp.get('/docs/assets/<name>')
@documented(
    'A Swagger UI asset of /docs',
    responses={200: Raw('*/*', 'CSS, JavaScript or an icon')},
    path_params={'name': 'swagger-ui.css, swagger-ui-bundle.js or favicon-32x32.png'},
    auth=False,
    tag='service',
)
def docs_asset(name: str) -> Response:
    """One Swagger UI file from the installed wheel."""
    if name not in ASSETS:
        from core.errors import NotFound

        raise NotFound('asset', name)
    return refuse_framing(send_from_directory(_assets_dir(), name, max_age=86_400))
