"""Knowledge-graph routes over HTTP: writes feed the graph, search answers as of a date."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.settings import Settings
from tests.e2e.http_calls import JOB_DEADLINE_S
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TOKEN = 'graph-api-token-0123456789abcdef'
AUTH = {'Authorization': f'Bearer {TOKEN}'}


@pytest.fixture(scope='module')
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('graph-data')
    app = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield app.test_client()
    app.extensions['mnemos'].close()


@pytest.fixture(scope='module')
def scope(client) -> str:  # type: ignore[no-untyped-def]
    """A scope with Alice's two jobs and Bob's one, written through the memory API."""
    name = f'agent:g{uuid.uuid4().hex[:10]}'
    for text, at in (
        ('Alice works at Acme.', '2023-03-01T10:00:00Z'),
        ('Bob works at Initech.', '2023-03-01T10:00:00Z'),
        ('Alice joined Globex.', '2025-02-01T10:00:00Z'),
    ):
        body = {'scope': name, 'text': text, 'created_at': at}
        response = client.post('/v1/memories', json=body, headers=AUTH)
        assert response.status_code in (200, 201), response.get_json()
    expected = {('Alice', 'Acme'), ('Alice', 'Globex'), ('Bob', 'Initech')}
    wait_until(  # graph extraction runs as jobs, in any order
        lambda: _extracted(client, name) == expected,
        lambda: f'the graph never saw the writes: {_extracted(client, name)}',
        JOB_DEADLINE_S,
    )
    return name


def _extracted(client, scope: str) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(subject, object) of every fact ever recorded about Alice and Bob, whatever its window."""
    found = set()
    for who in ('Alice', 'Bob'):
        for entity in search(client, query=who, scope=scope, hops=1)['entities']:
            if entity['name'] != who:
                continue
            url = f'/v1/kg/entities/{entity["id"]}?scope={scope}'
            response = client.get(url, headers=AUTH)
            if response.status_code != 200:
                # a job running meanwhile (extraction, dedup) may have merged the entity the
                # search named: the caller polls again
                continue
            history = response.get_json()['history']
            found |= {(f['subject'], f['object']) for f in history if f['subject'] == who}
    return found


def search(client, **body):  # type: ignore[no-untyped-def]
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_search_answers_as_of_a_date(client, scope):  # type: ignore[no-untyped-def]
    then = search(client, query='Alice', scope=scope, as_of='2024-01-01T00:00:00Z', hops=1)
    assert [(f['subject'], f['predicate'], f['object']) for f in then['facts']] == [
        ('Alice', 'works_at', 'Acme')
    ]
    fact = then['facts'][0]
    assert fact['valid_from'].startswith('2023-03-01') and fact['valid_to'].startswith('2025-02')
    assert fact['source_chunk'] and fact['current'] is True
    now = search(client, query='Alice', scope=scope, hops=1)
    assert [f['object'] for f in now['facts']] == ['Globex']
    bob = search(client, query='Bob', scope=scope, hops=1)
    assert [(f['object'], f['valid_to']) for f in bob['facts']] == [('Initech', None)]


def test_entity_detail_has_current_facts_and_history(client, scope):  # type: ignore[no-untyped-def]
    alice = search(client, query='Alice', scope=scope)['entities'][0]
    response = client.get(f'/v1/kg/entities/{alice["id"]}?scope={scope}', headers=AUTH)
    assert response.status_code == 200
    body = response.get_json()
    assert body['entity']['name'] == 'Alice'
    assert [f['object'] for f in body['current']] == ['Globex']
    assert [f['object'] for f in body['history']] == ['Acme', 'Globex']


def test_unknown_entities_and_scopes(client, scope):  # type: ignore[no-untyped-def]
    missing = client.get(f'/v1/kg/entities/nope?scope={scope}', headers=AUTH)
    assert missing.status_code == 404 and missing.get_json()['error'] == 'not_found'
    no_scope = client.get('/v1/kg/entities/nope', headers=AUTH)
    assert no_scope.status_code == 422 and no_scope.get_json()['details'][0]['loc'] == ['scope']
    empty = search(client, query='Alice', scope='agent:nobody-here')
    assert empty['entities'] == [] and empty['facts'] == [] and empty['paths'] == []


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'query': 'Alice', 'scope': 'agent:x', 'as_of': 'last tuesday-ish'}, 'as_of'),
        ({'query': 'Alice', 'scope': 'agent:x', 'hops': 4}, 'hops'),
        ({'query': 'Alice', 'scope': 'agent:x', 'hops': 0}, 'hops'),
        ({'query': 'x' * 2001, 'scope': 'agent:x'}, 'query'),
        ({'query': 'Alice', 'scope': 'not a scope'}, 'scope'),
        ({'scope': 'agent:x'}, 'query'),
    ],
)
def test_bad_input_names_the_field(client, body, field):  # type: ignore[no-untyped-def]
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 422
    payload = response.get_json()
    assert payload['error'] == 'invalid_request'
    assert [d['loc'] for d in payload['details']] == [[field]]


def test_a_body_that_is_not_json_is_a_400(client):  # type: ignore[no-untyped-def]
    response = client.post(
        '/v1/knowledge_graph_search', data='query=x', headers=AUTH | {'Content-Type': 'text/plain'}
    )
    assert response.status_code == 400


def test_search_needs_a_token(client):  # type: ignore[no-untyped-def]
    response = client.post('/v1/knowledge_graph_search', json={'query': 'x', 'scope': 'global'})
    assert response.status_code == 401


def test_metadata_speaker_resolves_first_person_and_dates_use_created_at(client):  # type: ignore[no-untyped-def]
    scope = f'agent:s{uuid.uuid4().hex[:10]}'
    body = {
        'scope': scope,
        'text': 'I moved to Paris last March.',
        'created_at': '2023-05-08T13:56:00Z',
        'metadata': {'speaker': 'Dana'},
    }
    assert client.post('/v1/memories', json=body, headers=AUTH).status_code == 201
    facts = wait_until(
        lambda: search(client, query='Where does Dana live?', scope=scope, hops=1)['facts'],
        'the graph never saw where Dana lives',
        JOB_DEADLINE_S,
    )
    assert [(f['subject'], f['predicate'], f['object']) for f in facts] == [
        ('Dana', 'lives_in', 'Paris')
    ]
    assert facts[0]['valid_from'].startswith('2023-03-01')
