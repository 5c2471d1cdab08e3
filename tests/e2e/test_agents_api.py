"""Agent tokens and teams over HTTP: scopes per token, team-leader fallback, the read-only 403."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.settings import Settings

pytestmark = pytest.mark.slow

ADMIN = 'agents-api-admin-token-012345678'


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A fresh app per module: the fallback tests need an empty `global` scope."""
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('agents')
    application = create_app(
        Settings.load({}, data_dir=data_dir, api_token=ADMIN, graph_enabled=False)
    )
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {'Authorization': f'Bearer {token}'}


ADMIN_AUTH = bearer(ADMIN)


def new_token(client, agent_id: str, scopes: list[str] | None = None) -> dict:  # type: ignore[no-untyped-def]
    body: dict[str, object] = {'agent_id': agent_id}
    if scopes is not None:
        body['scopes'] = scopes
    response = client.post('/v1/tokens', json=body, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def write(client, token: str, scope: str, text: str):  # type: ignore[no-untyped-def]
    return client.post('/v1/memories', json={'scope': scope, 'text': text}, headers=bearer(token))


def search(client, token: str, scope: str, query: str):  # type: ignore[no-untyped-def]
    return client.post(
        '/v1/memory_search', json={'query': query, 'scope': scope}, headers=bearer(token)
    )


# ---- tokens -------------------------------------------------------------------------------


def test_the_admin_issues_a_token_bound_to_the_agent(client):
    body = new_token(client, 'alice', ['team:blue'])
    assert body['agent_id'] == 'alice'
    assert body['token'].startswith('mnm_')
    assert body['token_id'].startswith('tok_')
    assert body['writable'] == ['agent:alice', 'agent:alice:*', 'team:blue']
    listed = client.get('/v1/tokens?agent_id=alice', headers=ADMIN_AUTH).get_json()['items']
    assert body['token_id'] in [t['token_id'] for t in listed]
    assert all('token' not in t for t in listed)


def test_only_the_admin_may_issue_tokens(client):
    agent = new_token(client, 'mallory')['token']
    response = client.post('/v1/tokens', json={'agent_id': 'mallory2'}, headers=bearer(agent))
    assert response.status_code == 403
    assert response.get_json()['error'] == 'forbidden'
    assert client.post('/v1/tokens', json={'agent_id': 'x'}).status_code == 401
    assert client.delete('/v1/tokens/tok_x', headers=bearer(agent)).status_code == 403


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'agent_id': 'has space'}, ['agent_id']),
        ({'agent_id': 'ok', 'scopes': ['global', 'nope']}, ['scopes', 1]),
        ({'agent_id': 'ok', 'extra': 1}, ['extra']),
        ({}, ['agent_id']),
    ],
)
def test_bad_token_requests_name_the_field_and_issue_nothing(client, body, field):
    before = client.get('/v1/tokens', headers=ADMIN_AUTH).get_json()['items']
    response = client.post('/v1/tokens', json=body, headers=ADMIN_AUTH)
    assert response.status_code == 422
    assert field in [d['loc'] for d in response.get_json()['details']]
    assert client.get('/v1/tokens', headers=ADMIN_AUTH).get_json()['items'] == before


def test_an_agent_token_writes_its_own_scopes_and_gets_403_elsewhere(client):
    token = new_token(client, 'bob', ['team:red'])['token']
    assert write(client, token, 'agent:bob', 'Bob keeps notes in plain text').status_code == 201
    assert write(client, token, 'agent:bob:slack', 'Bob answers on Slack').status_code == 201
    assert write(client, token, 'team:red', 'The red team ships on Fridays').status_code == 201
    for scope in ('agent:carol', 'agent:carol:slack', 'team:blue', 'global'):
        response = write(client, token, scope, 'not mine to write')
        assert response.status_code == 403, scope
        assert response.get_json()['error'] == 'forbidden'
    assert search(client, token, 'agent:carol', 'notes').status_code == 403
    assert client.get('/v1/memory/stats', headers=bearer(token)).status_code == 403
    assert search(client, token, 'agent:bob', 'plain text notes').status_code == 200


def test_a_revoked_token_gets_401(client):
    issued = new_token(client, 'dave')
    assert search(client, issued['token'], 'agent:dave', 'anything').status_code == 200
    response = client.delete(f'/v1/tokens/{issued["token_id"]}', headers=ADMIN_AUTH)
    assert response.status_code == 200
    assert response.get_json()['revoked_at'] is not None
    refused = search(client, issued['token'], 'agent:dave', 'anything')
    assert refused.status_code == 401
    assert refused.get_json()['error'] == 'unauthorized'
    again = client.delete(f'/v1/tokens/{issued["token_id"]}', headers=ADMIN_AUTH)
    assert again.status_code == 404


# ---- teams --------------------------------------------------------------------------------


def test_the_admin_defines_a_team_that_its_members_can_read(client):
    member = new_token(client, 'm-read')['token']
    outsider = new_token(client, 'outsider')['token']
    put = client.put(
        '/v1/teams/readers', json={'leader': 'l-read', 'members': ['m-read']}, headers=ADMIN_AUTH
    )
    assert put.status_code == 200
    assert put.get_json()['members'] == ['m-read']
    assert put.get_json()['leader_scope'] == 'agent:l-read'
    assert client.get('/v1/teams/readers', headers=bearer(member)).status_code == 200
    assert client.get('/v1/teams/readers', headers=bearer(outsider)).status_code == 404
    assert client.get('/v1/teams/nobody', headers=ADMIN_AUTH).status_code == 404


@pytest.mark.parametrize(
    ('team', 'body', 'field'),
    [
        ('bad team', {'leader': 'l', 'members': []}, ['team_id']),
        ('t', {'leader': 'bad leader', 'members': []}, ['leader']),
        ('t', {'leader': 'l', 'members': ['ok', 'n o']}, ['members', 1]),
        ('t', {'leader': 'l', 'members': ['l']}, ['members', '0']),
        ('t', {'leader': 'l'}, ['members']),
    ],
)
def test_bad_team_requests_name_the_field_and_store_nothing(client, team, body, field):
    response = client.put(f'/v1/teams/{team}', json=body, headers=ADMIN_AUTH)
    assert response.status_code == 422, response.get_json()
    assert field in [d['loc'] for d in response.get_json()['details']]
    assert client.get('/v1/teams/t', headers=ADMIN_AUTH).status_code == 404


def test_only_the_admin_may_change_teams(client):
    agent = new_token(client, 'sneaky')['token']
    body = {'leader': 'sneaky', 'members': ['victim']}
    assert client.put('/v1/teams/x', json=body, headers=bearer(agent)).status_code == 403
    assert client.get('/v1/teams/x', headers=ADMIN_AUTH).status_code == 404


def test_a_member_without_a_hit_is_served_the_leaders_memory_and_the_receipt_says_so(client):
    leader = new_token(client, 'lead')['token']
    member = new_token(client, 'member')['token']
    fact = 'The staging database password rotates every Monday'
    assert write(client, leader, 'agent:lead', fact).status_code == 201
    before = search(client, member, 'agent:member', 'when does the staging password rotate')
    assert before.get_json()['hits'] == []
    put = client.put(
        '/v1/teams/ops', json={'leader': 'lead', 'members': ['member']}, headers=ADMIN_AUTH
    )
    assert put.status_code == 200

    response = search(client, member, 'agent:member', 'when does the staging password rotate')
    assert response.status_code == 200
    body = response.get_json()
    assert [h['text'] for h in body['hits']][:1] == [fact]
    assert body['hits'][0]['scope'] == 'agent:lead'
    assert body['receipt']['fallback'] == 'team_leader'
    assert 'agent:lead' in body['receipt']['scopes']

    # the member may also read the leader's scope directly, but never write it
    assert search(client, member, 'agent:lead', 'staging password').status_code == 200
    refused = write(client, member, 'agent:lead', 'I overwrite the leader')
    assert refused.status_code == 403
    assert refused.get_json()['message'] == 'memory is read-only for team members'


def test_the_members_own_hit_wins_over_the_leaders(client):
    leader = new_token(client, 'lead2')['token']
    member = new_token(client, 'member2')['token']
    client.put(
        '/v1/teams/own', json={'leader': 'lead2', 'members': ['member2']}, headers=ADMIN_AUTH
    )
    write(client, leader, 'agent:lead2', 'The build server lives in Frankfurt')
    write(client, member, 'agent:member2', 'My build server lives in Oslo')
    body = search(client, member, 'agent:member2', 'where is the build server').get_json()
    assert body['hits'][0]['scope'] == 'agent:member2'
    assert body['receipt']['fallback'] is None


def test_leaving_a_team_ends_the_fallback_at_once(client):
    leader = new_token(client, 'lead3')['token']
    member = new_token(client, 'member3')['token']
    write(client, leader, 'agent:lead3', 'Invoices are approved by the finance lead')
    client.put('/v1/teams/t3', json={'leader': 'lead3', 'members': ['member3']}, headers=ADMIN_AUTH)
    assert search(client, member, 'agent:member3', 'who approves invoices').get_json()['hits']
    client.put('/v1/teams/t3', json={'leader': 'lead3', 'members': []}, headers=ADMIN_AUTH)
    assert search(client, member, 'agent:member3', 'who approves invoices').get_json()['hits'] == []
    assert search(client, member, 'agent:lead3', 'invoices').status_code == 403
