"""Editing a memory, its history (versions, merges, supersession) and a scope's users, over HTTP
on the real stores (Qdrant Edge, Kuzu, spaCy, the real embedder)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    application = create_app(make_settings(tmp_path_factory.mktemp('history')))
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {'Authorization': f'Bearer {token}'}


def write(client, scope: str, text: str, headers=AUTH, **fields):  # type: ignore[no-untyped-def]
    response = client.post(
        '/v1/memories', json={'scope': scope, 'text': text, **fields}, headers=headers
    )
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def patch(client, ident: str, body: Any, headers=AUTH):  # type: ignore[no-untyped-def]
    return client.patch(f'/v1/memories/{ident}', json=body, headers=headers)


def history(client, ident: str, headers=AUTH) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/memories/{ident}/history', headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def hit_ids(client, scope: str, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'top_k': 5, 'touch': False}
    response = client.post('/v1/memory_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return [h['id'] for h in response.get_json()['hits']]


def current_objects(client, scope: str, who: str) -> set[str]:  # type: ignore[no-untyped-def]
    body = {'query': who, 'scope': scope, 'hops': 1}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return {f['object'] for f in response.get_json()['facts'] if f['subject'] == who}


@pytest.fixture
def scope() -> str:
    return f'agent:h{uuid.uuid4().hex[:10]}'


def test_an_edited_text_keeps_its_id_and_search_finds_only_the_new_version(client, scope):
    made = write(client, scope, 'The team standup is at nine in the Aquarium room')
    ident = made['id']
    response = patch(
        client,
        ident,
        {'text': 'The team standup is at ten in the Zeppelin room', 'reason': 'moved'},
    )
    assert response.status_code == 200, response.get_json()
    assert (response.get_json()['id'], response.get_json()['text']) == (
        ident,
        'The team standup is at ten in the Zeppelin room',
    )
    assert (
        client.get(f'/v1/memories/{ident}', headers=AUTH)
        .get_json()['text']
        .endswith('Zeppelin room')
    )
    assert hit_ids(client, scope, 'Zeppelin') == [ident]
    # the old text is history: no search reaches it, not even through its own words
    assert hit_ids(client, scope, 'Aquarium') in ([], [ident])
    body = {'query': 'Aquarium', 'scope': scope, 'mode': 'bm25', 'touch': False}
    bm25 = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert bm25 == []
    listed = client.get(f'/v1/memories?scope={scope}', headers=AUTH).get_json()['items']
    assert [m['text'] for m in listed] == ['The team standup is at ten in the Zeppelin room']

    seen = history(client, ident)
    assert seen['version'] == 2
    [old] = seen['versions']
    assert (old['version'], old['text'], old['reason'], old['changed']) == (
        1,
        'The team standup is at nine in the Aquarium room',
        'moved',
        ['text'],
    )
    assert old['replaced_at'] is not None
    assert seen['current']['text'] == 'The team standup is at ten in the Zeppelin room'
    assert seen['current']['replaced_at'] is None
    assert seen['superseded'] is False and seen['superseded_by'] is None


def test_an_edited_text_is_extracted_again_and_the_old_fact_retracted(client, scope):
    made = write(client, scope, 'Dana works at Acme.', created_at='2024-01-01T10:00:00Z')
    wait_until(lambda: current_objects(client, scope, 'Dana') == {'Acme'}, 'Acme never extracted')
    response = patch(client, made['id'], {'text': 'Dana works at Globex.'})
    assert response.status_code == 200, response.get_json()
    wait_until(
        lambda: current_objects(client, scope, 'Dana') == {'Globex'},
        lambda: f'the graph still says {current_objects(client, scope, "Dana")}',
    )


def test_fields_other_than_text_change_in_place_and_each_edit_is_a_version(client, scope):
    ident = write(client, scope, 'Prefers short answers', kind='preference')['id']
    pinned = patch(client, ident, {'pinned': True, 'tags': ['style'], 'importance': 0.9})
    assert pinned.status_code == 200, pinned.get_json()
    out = pinned.get_json()
    assert (out['pinned'], out['tier'], out['tags'], out['importance']) == (
        True,
        'core',
        ['style'],
        0.9,
    )
    meta = patch(client, ident, {'metadata': {'source': 'settings page'}, 'pinned': False})
    assert (meta.get_json()['metadata'], meta.get_json()['tier']) == (
        {'source': 'settings page'},
        'working',
    )
    seen = history(client, ident)
    assert [v['changed'] for v in seen['versions']] == [
        ['importance', 'pinned', 'tags'],
        ['metadata', 'pinned'],
    ]
    assert [v['pinned'] for v in seen['versions']] == [False, True]
    assert seen['version'] == 3 and seen['current']['metadata'] == {'source': 'settings page'}
    # an edit that changes nothing records nothing
    assert patch(client, ident, {'pinned': False}).status_code == 200
    assert history(client, ident)['version'] == 3


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({}, ['body']),
        ({'reason': 'only a reason'}, ['body']),
        ({'text': ''}, ['text']),
        ({'text': '   '}, ['text']),
        ({'text': None}, ['text']),
        ({'metadata': None}, ['metadata']),
        ({'importance': 2}, ['importance']),
        ({'pinned': 'yes please'}, ['pinned']),
        ({'tags': 'not-a-list'}, ['tags']),
        ({'metadata': [1]}, ['metadata']),
        ({'colour': 'red'}, ['colour']),
        ({'text': 'my key is sk-ant-api03-' + 'a' * 90}, ['text']),
    ],
)
def test_bad_edits_are_422_naming_the_field_and_change_nothing(client, scope, body, field):
    ident = write(client, scope, 'Keeps the original text')['id']
    response = patch(client, ident, body)
    assert response.status_code == 422, response.get_json()
    locs = [d['loc'] for d in response.get_json()['details']]
    assert field in locs or (field == ['body'] and locs and locs[0] in (['body'], [])), locs
    assert client.get(f'/v1/memories/{ident}', headers=AUTH).get_json()['text'] == (
        'Keeps the original text'
    )
    assert history(client, ident)['versions'] == []


def test_an_oversized_text_is_413_naming_text(client, scope):
    ident = write(client, scope, 'Short and sweet')['id']
    response = patch(client, ident, {'text': 'x ' * 20_000})
    assert response.status_code == 413, response.get_json()
    assert response.get_json()['details'][0]['loc'] == ['text']
    assert history(client, ident)['versions'] == []


def test_unknown_ids_are_404(client):
    missing = str(uuid.uuid4())
    assert patch(client, missing, {'text': 'x'}).status_code == 404
    assert client.get(f'/v1/memories/{missing}/history', headers=AUTH).status_code == 404
    assert patch(client, 'not-a-uuid', {'text': 'x'}).status_code == 404
    assert client.get('/v1/memories/not-a-uuid/history', headers=AUTH).status_code == 404


def test_merges_into_a_memory_are_in_its_history(client, scope):
    first = write(client, scope, 'Ravi drinks oat milk', user_id='ravi')
    again = write(client, scope, 'ravi drinks oat milk!', user_id='ravi', source='tool')
    assert again['status'] == 'merged'
    seen = history(client, first['id'])
    assert seen['merge_count'] == 1
    [merge] = seen['merges']
    assert (merge['text'], merge['reason'], merge['source']) == (
        'ravi drinks oat milk!',
        'same text',
        'tool',
    )


def test_a_superseded_memory_says_by_which_and_the_new_one_lists_it(client, scope):
    old = write(client, scope, 'Alice likes coffee in the morning', kind='preference')
    new = write(client, scope, 'Alice no longer likes coffee in the morning', kind='preference')
    assert new['superseded'] == [old['id']]
    seen = history(client, old['id'])
    assert seen['superseded'] is True
    assert seen['superseded_by']['id'] == new['id']
    assert seen['superseded_by']['text'] == 'Alice no longer likes coffee in the morning'
    later = history(client, new['id'])
    assert [m['id'] for m in later['supersedes']] == [old['id']]
    assert later['superseded'] is False


def test_a_slot_supersession_says_which_slot_and_both_values(client, scope):
    old = write(client, scope, 'I live in Berlin', kind='fact', user_id='ann')
    new = write(client, scope, 'I moved to Paris', kind='fact', user_id='ann')
    assert new['superseded'] == [old['id']]
    by = history(client, old['id'])['superseded_by']
    assert by['id'] == new['id']
    assert by['reason'] == 'lives_in of ann: berlin -> paris (slot)'
    assert (by['details']['old_value'], by['details']['new_value']) == ('berlin', 'paris')
    [stale] = history(client, old['id'])['stale']
    assert (stale['slot'], stale['by']) == ('lives_in', new['id'])


def test_a_scopes_users_are_listed_most_memories_first(client, scope):
    for text, user in (('a one', 'alice'), ('a two', 'alice'), ('b one', 'bob'), ('none', None)):
        write(client, scope, f'{text} {uuid.uuid4().hex[:6]}', user_id=user)
    response = client.get(f'/v1/users?scope={scope}', headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {
        'scope': scope,
        'users': [{'user_id': 'alice', 'memories': 2}, {'user_id': 'bob', 'memories': 1}],
    }
    for query, field in (
        ('', 'scope'),
        (f'?scope={scope}&limit=0', 'limit'),
        ('?scope=x', 'scope'),
    ):
        bad = client.get(f'/v1/users{query}', headers=AUTH)
        assert bad.status_code == 422, bad.get_json()
        assert [field] in [d['loc'] for d in bad.get_json()['details']]


def test_agents_edit_their_own_scopes_and_team_members_only_read(client):
    def token(agent: str) -> str:
        response = client.post('/v1/tokens', json={'agent_id': agent}, headers=AUTH)
        assert response.status_code == 201, response.get_json()
        return str(response.get_json()['token'])

    tag = uuid.uuid4().hex[:6]
    lead, member, outsider = (token(f'{n}{tag}') for n in ('lead', 'member', 'out'))
    team = {'leader': f'lead{tag}', 'members': [f'member{tag}']}
    assert client.put(f'/v1/teams/t{tag}', json=team, headers=AUTH).status_code == 200
    scope = f'agent:lead{tag}'
    ident = write(
        client, scope, 'The release train leaves on Thursdays', bearer(lead), user_id='u1'
    )['id']

    assert patch(client, ident, {'tags': ['release']}, bearer(lead)).status_code == 200
    # a team member reads its leader's memory and history but never edits it
    refused = patch(client, ident, {'text': 'I overwrite the leader'}, bearer(member))
    assert refused.status_code == 403, refused.get_json()
    assert history(client, ident, bearer(member))['version'] == 2
    assert client.get(f'/v1/users?scope={scope}', headers=bearer(member)).status_code == 200
    # anyone else learns nothing, not even that it exists
    assert patch(client, ident, {'tags': []}, bearer(outsider)).status_code == 404
    assert client.get(f'/v1/memories/{ident}/history', headers=bearer(outsider)).status_code == 404
    assert client.get(f'/v1/users?scope={scope}', headers=bearer(outsider)).status_code == 403
    assert client.get(f'/v1/memories/{ident}', headers=AUTH).get_json()['tags'] == ['release']


def test_export_carries_the_history_and_a_redacted_export_redacts_it(client, scope):
    ident = write(client, scope, 'Call Priya on +1 415 555 0100')['id']
    assert patch(client, ident, {'text': 'Call Priya on Fridays'}).status_code == 200
    plain = client.get(f'/v1/admin/export?scope={scope}', headers=AUTH).get_data(as_text=True)
    assert '+1 415 555 0100' in plain
    redacted = client.get(f'/v1/admin/export?scope={scope}&redact=true', headers=AUTH)
    text = redacted.get_data(as_text=True)
    assert '555 0100' not in text and '[phone]' in text
    assert '"replaced_at"' in text
