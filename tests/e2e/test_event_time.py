"""The message's time over HTTP: writes, batches and capture take it, supersession orders by it
(an older-dated fact written later is stored as past), the graph dates relative phrases against
it, and a bad one (future, unparseable, before 1900) is a 422 naming the field that changes
nothing stored."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from tests.e2e.http_calls import JOB_DEADLINE_S
from tests.waiting import wait_until

TOKEN = 'event-time-token-0123456789abcde'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
FUTURE = (datetime.now(UTC) + timedelta(days=2)).isoformat()


@pytest.fixture(scope='module')
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('event-time')
    app = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield app.test_client()
    app.extensions['mnemos'].close()


@pytest.fixture
def scope() -> str:
    return f'agent:ev{uuid.uuid4().hex[:10]}'


def post(client: Any, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = client.post(path, json=body, headers=AUTH)
    return response.status_code, dict(response.get_json())


def listed(client: Any, scope: str) -> list[dict[str, Any]]:
    response = client.get(f'/v1/memories?scope={scope}', headers=AUTH)
    assert response.status_code == 200
    return list(response.get_json()['items'])


def read(client: Any, ident: str) -> dict[str, Any]:
    response = client.get(f'/v1/memories/{ident}', headers=AUTH)
    assert response.status_code == 200
    return dict(response.get_json())


BEFORE_1900, UNPARSEABLE = '1899-12-31T23:00:00Z', 'last tuesday'


@pytest.mark.parametrize(
    ('path', 'when'),
    [
        ('/v1/memories', FUTURE),
        ('/v1/memories', BEFORE_1900),
        ('/v1/memories/capture', FUTURE),
        ('/v1/memories/capture', BEFORE_1900),
        ('/v1/memories/capture', UNPARSEABLE),
    ],
    ids=[
        'write-future',
        'write-before-1900',
        'capture-future',
        'capture-before-1900',
        'capture-unparseable',
    ],
)
def test_a_bad_event_time_is_a_422_naming_it_and_changes_nothing_stored(client, scope, path, when):  # type: ignore[no-untyped-def]
    good = {'scope': scope, 'text': 'I live in Berlin', 'created_at': '2024-01-02T03:04:05Z'}
    status, home = post(client, path, good)
    assert status in (200, 201), home
    home = home['stored'][0] if 'stored' in home else home
    assert read(client, home['id'])['created_at'].startswith('2024-01-02T03:04:05')
    body = {'scope': scope, 'text': 'I moved to Paris', 'created_at': when}
    status, answer = post(client, path, body)
    assert status == 422, answer
    assert answer['details'][0]['loc'][-1] == 'created_at', answer
    assert [m['id'] for m in listed(client, scope)] == [home['id']]
    assert read(client, home['id'])['superseded_by'] is None


@pytest.mark.parametrize('when', [FUTURE, BEFORE_1900], ids=['future', 'before-1900'])
def test_a_bad_event_time_in_a_batch_fails_its_item_alone(client, scope, when):  # type: ignore[no-untyped-def]
    items = [
        {'scope': scope, 'text': 'I live in Berlin', 'kind': 'fact'},
        {'scope': scope, 'text': 'I moved to Paris', 'kind': 'fact', 'created_at': when},
    ]
    status, answer = post(client, '/v1/memories/batch', {'items': items})
    assert status == 200, answer
    good, bad = answer['results']
    assert good['status'] == 'created' and good['superseded'] == []
    assert bad['status'] == 'error' and bad['error']['status'] == 422
    assert bad['error']['details'][0]['loc'][-1] == 'created_at', bad
    assert [m['text'] for m in listed(client, scope)] == ['I live in Berlin']


def test_capture_stores_the_message_time(client, scope):  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': 'I live in Lisbon', 'created_at': '2024-05-09T14:45:00Z'}
    status, answer = post(client, '/v1/memories/capture', body)
    assert status == 200, answer
    [stored] = answer['stored']
    assert read(client, stored['id'])['created_at'].startswith('2024-05-09T14:45:00')


def test_an_older_dated_fact_written_later_is_stored_as_past(client, scope):  # type: ignore[no-untyped-def]
    newer = {'scope': scope, 'text': 'I live in Berlin', 'kind': 'fact', 'user_id': 'ann'}
    status, berlin = post(client, '/v1/memories', {**newer, 'created_at': '2026-03-01T10:00:00Z'})
    assert status == 201
    older = {**newer, 'text': 'I live in Paris', 'created_at': '2024-01-01T10:00:00Z'}
    status, paris = post(client, '/v1/memories', older)
    assert status == 201, paris
    assert paris['superseded'] == [] and paris['superseded_by'] == berlin['id']
    assert read(client, berlin['id'])['superseded_by'] is None
    record = read(client, paris['id'])['supersession']
    assert (record['slot'], record['old_value'], record['new_value'], record['rule']) == (
        'lives_in',
        'paris',
        'berlin',
        'older_event',
    )
    later = {**newer, 'text': 'I moved to Rome', 'created_at': '2026-06-01T10:00:00Z'}
    status, rome = post(client, '/v1/memories', later)
    assert rome['superseded'] == [berlin['id']]


def test_a_past_tense_fact_never_replaces_the_current_one(client, scope):  # type: ignore[no-untyped-def]
    base = {'scope': scope, 'kind': 'fact', 'user_id': 'ann'}
    status, globex = post(client, '/v1/memories', {**base, 'text': 'I work at Globex'})
    status, acme = post(
        client, '/v1/memories', {**base, 'text': 'I worked at Acme as an analyst in 2023'}
    )
    assert status == 201 and acme['superseded'] == []
    assert read(client, globex['id'])['superseded_by'] is None
    assert read(client, acme['id'])['superseded_by'] == globex['id']


def graph_homes(client: Any, scope: str, as_of: str) -> list[str]:
    body = {'query': 'Ann', 'scope': scope, 'as_of': as_of, 'hops': 1}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    facts = response.get_json()['facts']
    return [f['object'] for f in facts if f['subject'] == 'Ann' and f['predicate'] == 'lives_in']


def test_capture_dates_the_graph_by_the_message_time(client, scope):  # type: ignore[no-untyped-def]
    # "last month" of a message sent in February 2026 is January 2026, not a month before today
    body = {
        'scope': scope,
        'text': 'Ann: I moved to Berlin last month',
        'created_at': '2026-02-15T09:00:00Z',
    }
    status, answer = post(client, '/v1/memories/capture', body)
    assert status == 200 and answer['stored'], answer
    at = '2026-01-20T00:00:00Z'
    wait_until(  # graph extraction runs as jobs
        lambda: graph_homes(client, scope, at) == ['Berlin'],
        lambda: f'Ann lived in {graph_homes(client, scope, at)} on {at}, not in Berlin',
        JOB_DEADLINE_S,
    )
    assert graph_homes(client, scope, '2025-12-20T00:00:00Z') == []


def test_a_restated_fact_keeps_its_latest_time_so_an_older_dated_fact_does_not_hide_it(
    client, scope
):  # type: ignore[no-untyped-def]
    base = {'scope': scope, 'kind': 'fact', 'user_id': 'ann', 'text': 'I live in Paris'}
    status, paris = post(client, '/v1/memories', {**base, 'created_at': '2025-03-02T10:00:00Z'})
    assert status == 201, paris
    # the same fact, told again with an earlier event time: one memory, stated on both days
    status, again = post(client, '/v1/memories', {**base, 'created_at': '2025-03-01T10:00:00Z'})
    assert again['status'] == 'merged' and again['id'] == paris['id'], again
    older = {**base, 'text': 'I live in Berlin', 'created_at': '2025-03-01T10:00:00Z'}
    status, berlin = post(client, '/v1/memories', older)
    assert status == 201, berlin
    assert berlin['superseded'] == [] and berlin['superseded_by'] == paris['id'], berlin
    assert read(client, paris['id'])['superseded_by'] is None
    assert read(client, berlin['id'])['supersession']['rule'] == 'older_event'


@pytest.mark.parametrize(
    ('again', 'current'),
    [('2025-03-03T10:00:00Z', 'paris'), ('2025-03-02T09:00:00Z', 'berlin')],
    ids=['said-again-last', 'said-again-before-the-move'],
)
def test_a_fact_said_again_after_its_replacement_is_current_again(client, scope, again, current):  # type: ignore[no-untyped-def]
    base = {'scope': scope, 'kind': 'fact', 'user_id': 'ann'}
    day = {'created_at': '2025-03-01T10:00:00Z'}
    status, paris = post(client, '/v1/memories', {**base, **day, 'text': 'I live in Paris'})
    moved = {**base, 'text': 'I moved to Berlin', 'created_at': '2025-03-02T10:00:00Z'}
    status, berlin = post(client, '/v1/memories', moved)
    assert berlin['superseded'] == [paris['id']], berlin
    status, merged = post(
        client, '/v1/memories', {**base, 'text': 'I live in Paris', 'created_at': again}
    )
    assert merged['status'] == 'merged' and merged['id'] == paris['id'], merged
    ids = {'paris': paris['id'], 'berlin': berlin['id']}
    [past] = [name for name in ids if name != current]
    assert read(client, ids[current])['superseded_by'] is None
    assert read(client, ids[past])['superseded_by'] == ids[current]
