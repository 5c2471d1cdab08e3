"""Bodies that Python's json would take but that are not JSON, or are nested too deep, get a
clear 4xx naming the problem (they used to be stored, or to fail with 500)."""

from __future__ import annotations

import json

import pytest

from core import jsonsafe

DEEP = '{"a":' * 600 + '1' + '}' * 600


@pytest.mark.parametrize(
    ('raw', 'reason'),
    [
        ('NaN', 'NaN is not a JSON number'),
        ('-Infinity', '-Infinity is not a JSON number'),
        ('1e400', '1e400 is beyond the range of a number'),
    ],
)
def test_a_number_json_does_not_allow_is_a_400_that_says_which(client, auth, scope, raw, reason):
    body = f'{{"scope": "{scope}", "text": "odd number", "metadata": {{"x": {raw}}}}}'
    response = client.post('/v1/memories', data=body, content_type='application/json', headers=auth)
    assert response.status_code == 400
    payload = response.get_json()
    assert payload['message'] == f'body is not valid JSON: {reason}'
    assert payload['details'][0]['loc'] == ['body']


def test_metadata_nested_600_deep_is_a_422_naming_where_not_a_500(client, auth, scope):
    body = f'{{"scope": "{scope}", "text": "deep", "metadata": {DEEP}}}'
    response = client.post('/v1/memories', data=body, content_type='application/json', headers=auth)
    assert response.status_code == 422
    [detail] = response.get_json()['details']
    assert detail['loc'] == ['metadata', *['a'] * 31]
    assert detail['msg'] == 'nested deeper than 32 levels'


def test_metadata_nested_a_few_levels_is_still_stored(client, auth, scope):
    metadata = {'a': {'b': [1, {'c': 2.5}]}}
    response = client.post(
        '/v1/memories', json={'scope': scope, 'text': 'shallow', 'metadata': metadata}, headers=auth
    )
    assert response.status_code == 201
    assert response.get_json()['memory']['metadata'] == metadata


def test_an_import_line_that_is_too_deep_or_not_json_is_reported_by_line(client, auth, scope):
    lines = [
        json.dumps({'scope': scope, 'text': 'imported fine'}),
        f'{{"scope": "{scope}", "text": "deep", "metadata": {DEEP}}}',
        f'{{"scope": "{scope}", "text": "nan", "metadata": {{"x": NaN}}}}',
    ]
    response = client.post(
        '/v1/admin/import',
        data='\n'.join(lines) + '\n',
        content_type='application/x-ndjson',
        headers=auth,
    )
    assert response.status_code == 200
    report = response.get_json()
    assert (report['read'], report['imported'], report['invalid']) == (3, 1, 2)
    by_line = {e['line']: e for e in report['errors']}
    assert by_line[2]['message'] == 'nested deeper than 32 levels'
    assert by_line[3] == {
        'line': 3,
        'error': 'invalid_json',
        'message': 'NaN is not a JSON number',
        'details': None,
    }


def test_a_snapshot_entry_with_metadata_nested_too_deep_is_skipped_with_a_reason(
    client, auth, scope
):
    markdown = f'<!-- mnemos:memory {DEEP} -->\nhello'
    response = client.post(
        '/v1/admin/hydrate', json={'scope': scope, 'markdown': markdown}, headers=auth
    )
    assert response.status_code == 200
    report = response.get_json()
    assert report['written'] == 0
    assert report['errors'][0]['message'] == 'metadata comment is nested deeper than 32 levels'


def test_strict_loads_keeps_ordinary_json_and_names_what_it_refuses():
    assert jsonsafe.loads('{"a": [1, 2.5, "x", null, true]}') == {'a': [1, 2.5, 'x', None, True]}
    for text, message in [
        ('[Infinity]', 'Infinity is not a JSON number'),
        ('{"a": 1', "Expecting ',' delimiter"),
        ('[' * 100_000, 'nested too deeply'),
    ]:
        with pytest.raises(jsonsafe.NotJson, match=message):
            jsonsafe.loads(text)


def test_too_deep_points_at_the_first_container_past_the_limit():
    assert jsonsafe.too_deep({'a': [{'b': 1}]}, limit=3) is None
    assert jsonsafe.too_deep({'a': [{'b': {}}]}, limit=3) == ['a', 0, 'b']


# ---- instants that cannot be stored as epoch seconds and read back ---------------------------

BEFORE_YEAR_1 = '0001-01-01T00:00:00+14:00'  # 0000-12-31T10:00Z
AFTER_9999 = '9999-12-31T23:59:59-12:00'  # 10000-01-01T11:59:59Z


@pytest.mark.parametrize('field', ['created_at', 'expires_at'])
@pytest.mark.parametrize('when', [BEFORE_YEAR_1, AFTER_9999])
def test_a_memory_time_outside_years_1_to_9999_in_utc_is_a_422_naming_it(
    client, auth, scope, field, when
):
    response = client.post(
        '/v1/memories', json={'scope': scope, 'text': 'edge of time', field: when}, headers=auth
    )
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == [field]
    listed = client.get(f'/v1/memories?scope={scope}', headers=auth)
    assert listed.status_code == 200 and listed.get_json()['items'] == []


@pytest.mark.parametrize('when', [BEFORE_YEAR_1, AFTER_9999])
def test_a_graph_as_of_outside_the_utc_range_is_a_422_naming_it(client, auth, scope, when):
    body = {'query': 'Alice', 'scope': scope, 'as_of': when}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['as_of']


def test_a_session_message_time_outside_the_utc_range_is_a_422_naming_it(client, auth, scope):
    message = {'role': 'user', 'content': 'I moved to Paris', 'ts': BEFORE_YEAR_1}
    response = client.post(
        '/v1/sessions/edge-1/complete', json={'scope': scope, 'messages': [message]}, headers=auth
    )
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['messages', 0, 'ts']


def test_imported_and_hydrated_times_outside_the_utc_range_are_refused_per_entry(
    client, auth, scope
):
    line = json.dumps({'scope': scope, 'text': 'imported edge', 'accessed_at': AFTER_9999})
    imported = client.post(
        '/v1/admin/import', data=line + '\n', content_type='application/x-ndjson', headers=auth
    ).get_json()
    assert (imported['imported'], imported['invalid']) == (0, 1)
    assert imported['errors'][0]['details'][0]['loc'] == ['accessed_at']
    markdown = f'<!-- mnemos:memory {{"created_at": "{BEFORE_YEAR_1}"}} -->\nhydrated edge'
    hydrated = client.post(
        '/v1/admin/hydrate', json={'scope': scope, 'markdown': markdown}, headers=auth
    ).get_json()
    assert (hydrated['written'], hydrated['invalid']) == (0, 1)
    listed = client.get(f'/v1/memories?scope={scope}', headers=auth)
    assert listed.status_code == 200 and listed.get_json()['items'] == []
