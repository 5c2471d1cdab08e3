"""Consolidation over HTTP on the embedded broker: complete -> episodic -> semantic -> dedup,
five sessions -> dreaming, idempotent replays, jobs that survive a restart, and episode expiry."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from core.clock import ManualClock
from core.jobs import JobName
from core.settings import Settings
from runtime.bootstrap import build
from tests.conftest import ADMIN_TOKEN
from tests.e2e.http_calls import wait_job

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
CHAIN_TIMEOUT = 120.0


def settings_for(data_dir: Path, **overrides: Any) -> Settings:
    return Settings.load({}, data_dir=data_dir, api_token=ADMIN_TOKEN, **overrides)


@pytest.fixture(scope='module')
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory, clock: ManualClock) -> Iterator[Any]:
    """The real embedded service (Qdrant Edge, MiniLM, Kuzu + spaCy) with a manual clock."""
    settings = settings_for(tmp_path_factory.mktemp('sessions'))
    services = build(settings, clock=clock)
    application = create_app(settings, services=services)
    yield application
    services.close()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def session(scope: str, topic: str, n: int = 4, user_id: str | None = 'u1') -> dict[str, Any]:
    """A small, realistic session about `topic`."""
    messages = [
        {'role': 'system', 'content': 'You are a helpful assistant.', 'ts': '2026-03-02T09:00:00Z'},
        {
            'role': 'user',
            'content': f'Alice Johnson from Acme Corp is working on {topic}. '
            'She prefers green tea during long reviews.',
            'ts': '2026-03-02T09:01:00Z',
        },
        {
            'role': 'assistant',
            'content': f'Noted. {topic} uses Qdrant Edge for vectors and Kuzu for the graph.',
            'ts': '2026-03-02T09:02:00Z',
        },
    ]
    for i in range(n - 3):
        messages.append(
            {
                'role': 'user' if i % 2 else 'assistant',
                'content': f'We decided to ship {topic} milestone {i} before Friday.',
                'ts': f'2026-03-02T09:{10 + i:02d}:00Z',
            }
        )
    body: dict[str, Any] = {'scope': scope, 'messages': messages}
    if user_id:
        body['user_id'] = user_id
    return body


def complete(client: Any, key: str, body: dict[str, Any], headers: Any = None) -> dict[str, Any]:
    response = client.post(f'/v1/sessions/{key}/complete', json=body, headers=headers or AUTH)
    assert response.status_code == 202, response.get_json()
    assert response.headers['Location'].endswith(response.get_json()['job_id'])
    return response.get_json()


def search(client: Any, scope: str, query: str, kinds: list[str]) -> list[dict[str, Any]]:
    body = {'query': query, 'scope': scope, 'filters': {'kinds': kinds}}
    response = client.post('/v1/memory_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return response.get_json()['hits']


def episodes(client: Any, scope: str, **query: Any) -> list[dict[str, Any]]:
    params = '&'.join(f'{k}={v}' for k, v in {'scope': scope, **query}.items())
    response = client.get(f'/v1/episodes?{params}', headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return response.get_json()['episodes']


# ---- the chain ----------------------------------------------------------------------------


def test_a_completed_session_becomes_an_episode_graph_facts_and_a_dedup_pass(client, scope):
    accepted = complete(client, 'chat-1', session(scope, 'Project Falcon'))
    episodic = wait_job(client, AUTH, accepted['job_id'])
    assert episodic['state'] == 'done', episodic
    assert episodic['job'] == 'episodic'
    assert episodic['attempts'] == 1
    assert episodic['result']['status'] == 'created'
    assert episodic['result']['episode_id'] == accepted['episode_id']
    assert set(episodic) >= {
        'id',
        'job',
        'state',
        'attempts',
        'error',
        'result',
        'created_at',
        'updated_at',
    }

    semantic = wait_job(client, AUTH, episodic['result']['next']['semantic'])
    assert semantic['state'] == 'done' and semantic['result']['status'] == 'extracted', semantic
    assert semantic['result']['entity_ids']
    dedup = wait_job(client, AUTH, semantic['result']['next']['dedup'])
    assert dedup['state'] == 'done' and dedup['result']['status'] == 'merged', dedup
    dreaming = wait_job(client, AUTH, episodic['result']['next']['dreaming'])
    assert dreaming['result'] == {'status': 'skipped', 'reason': 'below_threshold', 'unpromoted': 1}

    [episode] = episodes(client, scope)
    assert episode['id'] == accepted['episode_id']
    assert episode['session_key'] == 'chat-1' and episode['user_id'] == 'u1'
    assert episode['summary_source'] == 'extractive'
    assert 'You are a helpful assistant' not in episode['summary']  # system prompt left out
    assert 0 < len(episode['abstract']) <= 200
    assert {'Alice Johnson', 'Acme Corp', 'Project Falcon', 'Qdrant Edge'} <= set(episode['topics'])
    assert episode['started_at'] == '2026-03-02T09:00:00Z'
    assert episode['promoted'] is False

    hits = search(client, scope, 'green tea during reviews', ['episodic'])
    assert [h['id'] for h in hits] == [accepted['episode_id']]
    assert hits[0]['kind'] == 'episodic'

    graph = client.post(
        '/v1/knowledge_graph_search',
        json={'query': 'Alice Johnson', 'scope': scope},
        headers=AUTH,
    )
    assert graph.status_code == 200, graph.get_json()
    assert 'Alice Johnson' in str(graph.get_json())


def test_the_same_session_twice_makes_one_episode(client, scope):
    body = session(scope, 'Project Heron')
    first = complete(client, 'chat-dup', body)
    second = complete(client, 'chat-dup', body)
    assert first['episode_id'] == second['episode_id']
    assert first['job_id'] != second['job_id']
    results = sorted(
        wait_job(client, AUTH, j)['result']['status'] for j in (first['job_id'], second['job_id'])
    )
    assert results == ['created', 'exists']
    assert len(episodes(client, scope)) == 1
    # a later compaction of the same session is a new episode
    complete_again = complete(client, 'chat-dup', {**body, 'compaction_count': 1})
    assert wait_job(client, AUTH, complete_again['job_id'])['result']['status'] == 'created'
    assert len(episodes(client, scope)) == 2


def test_a_given_summary_is_used_as_is(client, scope):
    body = {**session(scope, 'Project Ibis'), 'summary': 'Ibis moved to Rust. Dana leads it.'}
    job = wait_job(client, AUTH, complete(client, 'chat-sum', body)['job_id'])
    assert job['result']['summary_source'] == 'given'
    [episode] = episodes(client, scope)
    assert episode['summary'] == 'Ibis moved to Rust. Dana leads it.'
    assert episode['abstract'] == 'Ibis moved to Rust.'


def test_five_sessions_dream_into_one_promoted_memory_document(client, scope):
    topics = ['Project Osprey', 'Project Osprey', 'Project Kestrel', 'Project Osprey', 'Budget']
    accepted = [complete(client, f'dream-{i}', session(scope, t)) for i, t in enumerate(topics)]
    dreams = [
        wait_job(client, AUTH, wait_job(client, AUTH, a['job_id'])['result']['next']['dreaming'])
        for a in accepted
    ]
    promoted = [d['result'] for d in dreams if d['result']['status'] == 'promoted']
    assert len(promoted) == 1, [d['result'] for d in dreams]
    assert sorted(promoted[0]['episodes']) == sorted(a['episode_id'] for a in accepted)
    assert promoted[0]['path'].startswith('_system/dreaming/2026')
    assert promoted[0]['path'].endswith('-consolidated.md')
    skipped = {d['result']['reason'] for d in dreams if d['result']['status'] == 'skipped'}
    assert skipped <= {'below_threshold', 'debounced'}

    listed = episodes(client, scope, user_id='u1')
    assert len(listed) == 5 and all(e['promoted'] and e['promoted_at'] for e in listed)
    [dream] = search(client, scope, 'Alice prefers green tea', ['dream'])
    assert dream['id'] == promoted[0]['memory_id']
    assert dream['kind'] == 'dream'
    assert '## Preferences' in dream['text'] and 'green tea' in dream['text']
    assert 'Project Osprey came up in 3 sessions.' in dream['text']
    memory = client.get(f'/v1/memories/{dream["id"]}', headers=AUTH).get_json()
    assert memory['source'] == 'consolidation'
    assert sorted(memory['metadata']['episode_ids']) == sorted(a['episode_id'] for a in accepted)

    # a sixth episode within the debounce window does not dream again
    sixth = complete(client, 'dream-5', session(scope, 'Project Osprey'))
    again = wait_job(
        client, AUTH, wait_job(client, AUTH, sixth['job_id'])['result']['next']['dreaming']
    )
    assert again['result']['status'] == 'skipped'


def test_episodes_expire_after_their_ttl(client, app, scope, clock):
    accepted = complete(client, 'old-chat', session(scope, 'Project Wren'))
    wait_job(client, AUTH, accepted['job_id'])
    assert len(episodes(client, scope)) == 1
    services = app.extensions['mnemos']
    clock.advance(timedelta(days=services.settings.episode_ttl_days + 1))
    try:
        assert episodes(client, scope) == []  # no longer listed once past expires_at
        sweep = wait_job(client, AUTH, services.jobs.enqueue(JobName.EXPIRY))
        assert sweep['result']['episodes_expired'] >= 1
        assert services.episodes.get(accepted['episode_id']) is None
    finally:
        clock.set(clock.now() - timedelta(days=services.settings.episode_ttl_days + 1))


# ---- validation and access ----------------------------------------------------------------


@pytest.mark.parametrize(
    ('key', 'change', 'loc'),
    [
        ('bad key!', {}, ['session_key']),
        ('k' * 201, {}, ['session_key']),
        ('ok', {'messages': []}, ['messages']),
        ('ok', {'scope': 'nope'}, ['scope']),
        ('ok', {'user_id': 'has space'}, ['user_id']),
        ('ok', {'compaction_count': -1}, ['compaction_count']),
        ('ok', {'summary': '  '}, ['summary']),
        ('ok', {'extra': 1}, ['extra']),
        (
            'ok',
            {'messages': [{'role': 'user', 'content': 'x', 'ts': 'noon'}]},
            ['messages', 0, 'ts'],
        ),
        (
            'ok',
            {'messages': [{'role': 'robot', 'content': 'x', 'ts': '2026-01-01T00:00:00Z'}]},
            ['messages', 0, 'role'],
        ),
        (
            'ok',
            {'messages': [{'role': 'user', 'content': 'é' * 20_000, 'ts': '2026-01-01T00:00:00Z'}]},
            ['messages', 0, 'content'],
        ),
        (
            'ok',
            {'messages': [{'role': 'user', 'content': 'x', 'ts': '2026-01-01T00:00:00Z'}] * 2001},
            ['messages'],
        ),
    ],
)
def test_bad_sessions_get_a_json_422_naming_the_field(client, scope, key, change, loc):
    body = {**session(scope, 'Project Bad'), **change}
    response = client.post(f'/v1/sessions/{key}/complete', json=body, headers=AUTH)
    assert response.status_code == 422, response.get_json()
    error = response.get_json()
    assert error['error'] == 'invalid_request'
    assert loc in [d['loc'] for d in error['details']]


def test_a_non_json_body_is_a_400(client):
    response = client.post('/v1/sessions/k/complete', data='x', headers=AUTH)
    assert response.status_code == 400
    assert response.get_json()['error'] == 'malformed_request'


def test_agents_complete_sessions_only_in_scopes_they_may_write(client, scope):
    issued = client.post('/v1/tokens', json={'agent_id': 'sess-agent'}, headers=AUTH).get_json()
    agent = {'Authorization': f'Bearer {issued["token"]}'}
    other = client.post('/v1/sessions/k/complete', json=session(scope, 'X'), headers=agent)
    assert other.status_code == 403 and other.get_json()['error'] == 'forbidden'
    assert client.post('/v1/sessions/k/complete', json=session(scope, 'X')).status_code == 401

    own = complete(client, 'mine', session('agent:sess-agent', 'Project Own'), headers=agent)
    assert client.get(f'/v1/jobs/{own["job_id"]}', headers=agent).status_code == 200
    foreign = complete(client, 'theirs', session(scope, 'Project Theirs'))
    hidden = client.get(f'/v1/jobs/{foreign["job_id"]}', headers=agent)
    assert hidden.status_code == 404 and hidden.get_json()['error'] == 'not_found'
    assert client.get(f'/v1/episodes?scope={scope}', headers=agent).status_code == 403


def test_a_scopes_jobs_are_listed_newest_first_to_whoever_may_read_it(client, scope):
    first = complete(client, 'list-1', session(scope, 'Project Kestrel'))
    second = complete(client, 'list-2', session(scope, 'Project Plover'))
    listed = client.get(f'/v1/jobs?scope={scope}', headers=AUTH)
    assert listed.status_code == 200, listed.get_json()
    # a completed session's job enqueues follow-up jobs in the same scope, which may be accepted
    # before or after `second` on a loaded machine: the order asserted is the two sessions' own
    ids = [j['id'] for j in listed.get_json()['jobs']]
    assert [i for i in ids if i in (first['job_id'], second['job_id'])] == [
        second['job_id'],
        first['job_id'],
    ]
    everything = client.get('/v1/jobs?limit=200', headers=AUTH).get_json()['jobs']
    assert first['job_id'] in {j['id'] for j in everything}

    issued = client.post('/v1/tokens', json={'agent_id': 'jobs-agent'}, headers=AUTH).get_json()
    agent = {'Authorization': f'Bearer {issued["token"]}'}
    assert client.get(f'/v1/jobs?scope={scope}', headers=agent).status_code == 403
    own = client.get('/v1/jobs?scope=agent:jobs-agent', headers=agent)
    assert (own.status_code, own.get_json()['jobs']) == (200, [])
    for query, field in (('', 'scope'), (f'?scope={scope}&limit=0', 'limit')):
        bad = client.get(f'/v1/jobs{query}', headers=agent)
        assert bad.status_code == 422, bad.get_json()
        assert [field] in [d['loc'] for d in bad.get_json()['details']]


def test_unknown_jobs_are_json_404s(client):
    for ident in ('nope', '00000000-0000-0000-0000-000000000000'):
        response = client.get(f'/v1/jobs/{ident}', headers=AUTH)
        assert response.status_code == 404 and response.get_json()['error'] == 'not_found'


def test_episode_listing_validates_its_query(client):
    response = client.get('/v1/episodes?scope=agent:x&limit=0', headers=AUTH)
    assert response.status_code == 422
    assert ['limit'] in [d['loc'] for d in response.get_json()['details']]


# ---- durability ---------------------------------------------------------------------------


def test_jobs_accepted_before_a_restart_all_run_after_it(tmp_path: Path):
    settings = settings_for(tmp_path, graph_enabled=False)
    scope = 'agent:restart'
    # the first process accepts jobs and stops before any runs (consume_jobs=False)
    first = build(settings, consume_jobs=False)
    try:
        client = create_app(settings, services=first).test_client()
        accepted = [complete(client, f'r{i}', session(scope, f'Project R{i}')) for i in range(3)]
        assert {wait_state(client, a['job_id']) for a in accepted} == {'queued'}
    finally:
        first.close()

    second = build(settings)
    try:
        client = create_app(settings, services=second).test_client()
        done = [wait_job(client, AUTH, a['job_id']) for a in accepted]
        assert [d['state'] for d in done] == ['done'] * 3
        assert {e['id'] for e in episodes(client, scope)} == {a['episode_id'] for a in accepted}
        assert second.jobs.wait_idle(CHAIN_TIMEOUT)  # type: ignore[attr-defined]
    finally:
        second.close()


def wait_state(client: Any, job_id: str) -> str:
    return client.get(f'/v1/jobs/{job_id}', headers=AUTH).get_json()['state']
