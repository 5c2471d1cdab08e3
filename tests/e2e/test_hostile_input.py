"""Hostile input over HTTP: every bad value is a 4xx naming the field, never a 500, and one bad
item of a batch does not sink the others (issue 12, items 11, 12 and 14)."""

from __future__ import annotations

import json
import re

import pytest

SURROGATE = '"\\ud800"'  # the JSON escape of a lone surrogate, as a client sends it
DEEP_LIST = '[' * 1000 + ']' * 1000
DEEP_OBJECT = '{"a":' * 1000 + '1' + '}' * 1000


def post_raw(client, auth, path: str, body: str):  # type: ignore[no-untyped-def]
    return client.post(path, data=body, content_type='application/json', headers=auth)


@pytest.mark.parametrize(
    ('field', 'value', 'loc'),
    [
        ('metadata', f'{{"note": {SURROGATE}}}', ['metadata', 'note']),
        ('metadata', f'{{"list": [1, {SURROGATE}]}}', ['metadata', 'list', 1]),
        ('tags', f'["ok", {SURROGATE}]', ['tags', 1]),
        ('text', f'{SURROGATE}', ['text']),
    ],
)
def test_a_lone_surrogate_is_a_422_naming_the_field(client, auth, scope, field, value, loc):
    fields = {'scope': json.dumps(scope), 'text': '"a plain memory text"', field: value}
    body = '{' + ', '.join(f'"{k}": {v}' for k, v in fields.items()) + '}'
    response = post_raw(client, auth, '/v1/memories', body)
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.get_json()['details'][0]['loc'] == loc


def test_a_lone_surrogate_in_a_metadata_key_is_a_422(client, auth, scope):
    body = f'{{"scope": "{scope}", "text": "key test", "metadata": {{{SURROGATE}: 1}}}}'
    response = post_raw(client, auth, '/v1/memories', body)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'][0] == 'metadata'


def test_one_bad_item_in_a_batch_of_100_is_reported_and_the_other_99_are_stored(
    client, auth, scope
):
    items = [
        json.dumps({'scope': scope, 'text': f'batch memory number {i}', 'tags': [f't{i}']})
        for i in range(100)
    ]
    items[37] = f'{{"scope": "{scope}", "text": "the bad one", "metadata": {{"k": {SURROGATE}}}}}'
    response = post_raw(client, auth, '/v1/memories/batch', f'{{"items": [{", ".join(items)}]}}')
    assert response.status_code == 200
    results = response.get_json()['results']
    bad = results[37]
    assert bad['status'] == 'error'
    assert bad['error']['status'] == 422
    assert bad['error']['details'][0]['loc'] == ['items', 37, 'metadata', 'k']
    others = [r for i, r in enumerate(results) if i != 37]
    assert all(r['status'] == 'created' for r in others)
    listed = client.get(f'/v1/memories?scope={scope}&limit=500', headers=auth).get_json()
    assert len(listed['items']) == 99


@pytest.mark.parametrize('value', [2**64, -(2**63) - 1, 10**30])
def test_an_integer_the_store_would_round_is_a_422_not_silently_changed(client, auth, scope, value):
    body = f'{{"scope": "{scope}", "text": "big number", "metadata": {{"n": [{value}]}}}}'
    response = post_raw(client, auth, '/v1/memories', body)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['metadata', 'n', 0]


@pytest.mark.parametrize('value', [2**64 - 1, -(2**63), 12345678901234567890])
def test_integers_within_64_bits_are_stored_unchanged(client, auth, scope, value):
    body = f'{{"scope": "{scope}", "text": "fine number {value}", "metadata": {{"n": {value}}}}}'
    response = post_raw(client, auth, '/v1/memories', body)
    assert response.status_code == 201
    assert response.get_json()['memory']['metadata'] == {'n': value}


@pytest.mark.parametrize('raw', ['NaN', 'Infinity', '-Infinity'])
def test_nan_and_infinity_in_metadata_are_refused_never_stored(client, auth, scope, raw):
    body = f'{{"scope": "{scope}", "text": "odd", "metadata": {{"x": {raw}}}}}'
    response = post_raw(client, auth, '/v1/memories', body)
    assert response.status_code in (400, 422)
    assert response.get_json()['details'][0]['loc'] == ['body']


@pytest.mark.parametrize(
    ('field', 'value'),
    [('scope', 'agent:bob\n'), ('scope', 'global\n'), ('user_id', 'alice\n')],
)
def test_ids_and_scopes_ending_in_a_newline_are_a_422(client, auth, scope, field, value):
    body = {'scope': scope, 'text': 'newline test', field: value}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == [field]


def test_a_session_key_ending_in_a_newline_is_a_422(client, auth, scope):
    body = {'scope': scope, 'messages': [{'role': 'user', 'content': 'hello there'}]}
    response = client.post('/v1/sessions/s1%0A/complete', json=body, headers=auth)
    assert response.status_code == 422


def _json_routes(app) -> list[str]:  # type: ignore[no-untyped-def]
    paths = []
    for rule in app.url_map.iter_rules():
        if not rule.methods & {'POST', 'PUT', 'PATCH'} or rule.rule.startswith('/static'):
            continue
        paths.append(re.sub(r'<[^>]+>', 'x1', rule.rule))
    return sorted(set(paths))


@pytest.mark.parametrize('body', [DEEP_LIST, DEEP_OBJECT], ids=['list', 'object'])
def test_json_nested_1000_deep_is_a_400_on_every_json_route(app, client, auth, body):
    routes = _json_routes(app)
    assert '/v1/memories' in routes and '/v1/admin/import' in routes
    statuses = {}
    for path in routes:
        response = post_raw(client, auth, path, body)
        statuses[path] = response.status_code
        assert response.is_json, path
    # the NDJSON import reports per line (its own test below); every other route refuses
    assert statuses.pop('/v1/admin/import') == 200
    assert {p: s for p, s in statuses.items() if s not in (400, 404, 405)} == {}


def test_an_import_nested_1000_deep_reports_the_line_where_it_stopped(client, auth, scope):
    lines = [
        json.dumps({'scope': scope, 'text': 'first imported line'}),
        f'{{"scope": "{scope}", "text": "deep", "metadata": {DEEP_OBJECT}}}',
        json.dumps({'scope': scope, 'text': 'third imported line'}),
    ]
    response = client.post(
        '/v1/admin/import',
        data='\n'.join(lines) + '\n',
        content_type='application/x-ndjson',
        headers=auth,
    )
    assert response.status_code == 200
    report = response.get_json()
    assert (report['read'], report['imported'], report['invalid']) == (3, 2, 1)
    assert report['errors'][0]['line'] == 2


@pytest.mark.parametrize(
    ('method', 'path'),
    [
        ('PUT', '/v1/memories'),
        ('DELETE', '/v1/memory_search'),
        ('PATCH', '/v1/admin/import'),
        ('GET', '/v1/memories/batch'),
    ],
)
def test_no_token_and_a_wrong_method_is_a_401_not_a_405(client, method, path):
    response = client.open(path, method=method)
    assert response.status_code == 401
    assert response.get_json()['error'] == 'unauthorized'


def test_a_wrong_method_with_a_token_is_still_a_405(client, auth):
    response = client.put('/v1/memories', headers=auth)
    assert response.status_code == 405
    assert 'POST' in response.headers['Allow']


def test_a_wrong_method_on_a_public_route_is_a_405_without_a_token(client):
    assert client.post('/healthz').status_code == 405


def test_a_document_over_the_size_cap_is_a_413_naming_markdown(client, auth, scope):
    markdown = '# Big\n\n' + ('A line of the large document about the offsite.\n\n' * 6000)
    assert len(markdown.encode()) > 256 * 1024
    response = client.post(
        '/v1/documents',
        json={'scope': scope, 'path': 'big.md', 'markdown': markdown},
        headers=auth,
    )
    assert response.status_code == 413
    body = response.get_json()
    assert body['error'] == 'payload_too_large'
    assert body['details'][0]['loc'] == ['markdown']


def test_a_document_under_the_cap_is_indexed_in_steps(client, auth, scope):
    sections = [
        f'## Item {i}\n\n'
        + ' '.join(f'Alice planned part {j} of item {i} with Bob in Lisbon.' for j in range(14))
        for i in range(40)
    ]
    markdown = '# Plan\n\n' + '\n\n'.join(sections)
    response = client.post(
        '/v1/documents',
        json={'scope': scope, 'path': 'plan.md', 'markdown': markdown},
        headers=auth,
    )
    assert response.status_code == 200
    report = response.get_json()
    assert report['embedded'] == report['chunks'] > 32  # more than one step
