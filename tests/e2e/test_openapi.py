"""The OpenAPI document, the docs page, and the one error shape."""

from __future__ import annotations

import re

import jsonschema
import pytest
from schemathesis.specs.openapi.definitions import OPENAPI_31

from api.app import route_operations
from api.documented import operations_of
from api.responses import ErrorBody

SKIPPED_METHODS = {'HEAD', 'OPTIONS'}


def _openapi_path(rule: str) -> str:
    return re.sub(r'<(?:[a-z]+:)?([A-Za-z_]+)>', r'{\1}', rule)


def test_openapi_json_is_a_valid_openapi_3_1_document_without_a_token(client):
    response = client.get('/openapi.json')
    assert response.status_code == 200
    doc = response.get_json()
    assert doc['openapi'] == '3.1.0'
    jsonschema.Draft202012Validator(OPENAPI_31).validate(doc)
    for name, schema in doc['components']['schemas'].items():
        jsonschema.Draft202012Validator.check_schema(schema), name


def test_every_flask_route_is_documented_and_every_documented_route_exists(app, client):
    doc = client.get('/openapi.json').get_json()
    routed = {
        (_openapi_path(rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint != 'static'
        for method in rule.methods - SKIPPED_METHODS
    }
    documented = {(path, method) for path, item in doc['paths'].items() for method in item}
    assert routed - documented == set(), 'routes without @documented'
    assert documented - routed == set(), 'documented routes the app does not have'


def test_each_operation_names_its_flask_endpoint(app):
    by_endpoint = {
        (rule.endpoint, method.lower()): _openapi_path(rule.rule)
        for rule in app.url_map.iter_rules()
        for method in rule.methods - SKIPPED_METHODS
    }
    for op in operations_of(app):
        assert by_endpoint.get((op.endpoint, op.method)) == op.path, op.endpoint


def test_the_route_table_without_services_is_the_served_apps(app):
    # schemathesis' cases come from route_operations(), before any app is built
    assert route_operations() == operations_of(app)


def test_schemas_come_from_the_pydantic_models(client):
    doc = client.get('/openapi.json').get_json()
    schemas = doc['components']['schemas']
    search = schemas['SearchRequest']
    assert search['properties']['top_k']['maximum'] == 100
    assert search['additionalProperties'] is False
    op = doc['paths']['/v1/memory_search']['post']
    body = op['requestBody']['content']['application/json']['schema']
    assert body == {'$ref': '#/components/schemas/SearchRequest'}
    ok = op['responses']['200']['content']['application/json']['schema']
    assert ok == {'$ref': '#/components/schemas/SearchResponse'}
    assert op['responses']['422'] == {'$ref': '#/components/responses/Error422'}


def test_every_error_response_of_every_operation_is_the_error_body(client):
    doc = client.get('/openapi.json').get_json()
    shared = doc['components']['responses']
    for path, item in doc['paths'].items():
        for method, op in item.items():
            for status, response in op['responses'].items():
                if int(status) < 400 or (path, status) == ('/readyz', '503'):
                    continue  # /readyz answers 503 with its own body: the failed probes
                schema = shared[response['$ref'].rsplit('/', 1)[1]]['content']
                assert schema['application/json']['schema'] == {
                    '$ref': '#/components/schemas/ErrorBody'
                }, (method, path, status)


def test_query_parameters_are_documented_from_the_query_models(client):
    doc = client.get('/openapi.json').get_json()
    params = {p['name']: p for p in doc['paths']['/v1/memories']['get']['parameters']}
    assert params['limit']['in'] == 'query'
    assert params['limit']['schema']['maximum'] == 500
    assert params['scope']['required'] is False
    episodes = {p['name']: p for p in doc['paths']['/v1/episodes']['get']['parameters']}
    assert episodes['scope']['required'] is True


def test_public_routes_say_they_need_no_token_and_the_rest_need_bearer(client):
    doc = client.get('/openapi.json').get_json()
    assert doc['components']['securitySchemes']['bearer'] == {'type': 'http', 'scheme': 'bearer'}
    public = {
        path for path, item in doc['paths'].items() if item.get('get', {}).get('security') == []
    }
    assert public == {
        '/healthz',
        '/readyz',
        '/openapi.json',
        '/docs',
        '/docs/assets/{name}',
        '/ui',  # the inspector page (part B): it asks for the token itself
        '/ui/{name}',
    }


def test_the_docs_page_loads_only_assets_this_service_serves(client):
    page = client.get('/docs')
    assert page.status_code == 200
    assert page.mimetype == 'text/html'
    text = page.get_data(as_text=True)
    assert 'http://' not in text and 'https://' not in text and '//cdn' not in text
    assets = re.findall(r'(?:src|href)="([^"]+)"', text)
    assert len(assets) == 3
    for url in assets:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.data) > 100
    assert '"/openapi.json"' in text


def test_the_docs_page_serves_no_other_file_of_the_wheel(client):
    response = client.get('/docs/assets/index.html')
    assert response.status_code == 404
    assert response.get_json()['error'] == 'not_found'


def _assert_error_shape(response, status: int) -> list[dict]:
    assert response.status_code == status
    body = response.get_json()
    ErrorBody.model_validate(body)
    assert isinstance(body['details'], list) and body['details']
    for detail in body['details']:
        assert isinstance(detail['msg'], str) and isinstance(detail['type'], str)
    return body['details']


def test_a_missing_token_gets_details_as_a_list(client):
    details = _assert_error_shape(client.get('/v1/memory/stats'), 401)
    assert details[0]['type'] == 'unauthorized'
    assert 'loc' not in details[0]


def test_an_unknown_memory_gets_details_as_a_list_with_the_id(client, auth):
    ident = '6f1c1bde-0000-4000-8000-000000000000'
    details = _assert_error_shape(client.get(f'/v1/memories/{ident}', headers=auth), 404)
    assert details == [
        {'msg': f'memory {ident!r} not found', 'type': 'not_found', 'what': 'memory', 'id': ident}
    ]


def test_a_validation_error_gets_loc_msg_and_type_per_field(client, auth, scope):
    response = client.post('/v1/memory_search', json={'scope': scope, 'top_k': 0}, headers=auth)
    details = _assert_error_shape(response, 422)
    by_loc = {tuple(d['loc']): d for d in details}
    assert by_loc[('query',)]['type'] == 'missing'
    assert by_loc[('top_k',)]['type'] == 'greater_than_equal'


def test_a_forbidden_scope_gets_details_as_a_list(client, auth):
    token = client.post('/v1/tokens', json={'agent_id': 'openapi-a'}, headers=auth).get_json()
    agent = {'Authorization': f'Bearer {token["token"]}'}
    response = client.get('/v1/memory/stats?scope=agent:someone-else', headers=agent)
    details = _assert_error_shape(response, 403)
    assert details[0]['type'] == 'forbidden'


def test_an_unknown_route_and_a_wrong_method_get_the_same_shape(client, auth):
    _assert_error_shape(client.get('/v1/nothing-here', headers=auth), 404)
    wrong = client.get('/v1/memory_search', headers=auth)
    _assert_error_shape(wrong, 405)
    assert 'POST' in wrong.headers['Allow']


@pytest.mark.parametrize('body', ['not json', '[1, 2]'])
def test_a_body_that_is_not_a_json_object_gets_loc_body(client, auth, body):
    response = client.post('/v1/memories', data=body, content_type='application/json', headers=auth)
    details = _assert_error_shape(response, 400)
    assert details[0]['loc'] == ['body']


def test_an_unexpected_error_is_a_documented_500_without_the_exception_text(tmp_path):
    from api.app import create_app
    from tests.conftest import ADMIN_TOKEN, make_settings

    app = create_app(make_settings(tmp_path, graph_enabled=False, embedder='hash'))

    def boom() -> None:
        raise RuntimeError('internal detail that must not leak')

    app.add_url_rule('/boom', 'boom', boom)  # type: ignore[arg-type]
    try:
        client = app.test_client()
        response = client.get('/boom', headers={'Authorization': f'Bearer {ADMIN_TOKEN}'})
        doc = client.get('/openapi.json').get_json()
    finally:
        app.extensions['mnemos'].close()
    details = _assert_error_shape(response, 500)
    assert details[0]['type'] == 'internal_error'
    assert 'must not leak' not in response.get_data(as_text=True)
    assert response.headers['X-Request-Id']
    assert doc['paths']['/v1/memory_search']['post']['responses']['500'] == {
        '$ref': '#/components/responses/Error500'
    }
