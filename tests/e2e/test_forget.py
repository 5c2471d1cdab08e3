"""Deleting and forgetting reach the graph: a deleted memory's facts stop being current, and
forget-by-user / forget-by-scope remove vectors, graph facts and mentions, episodes and queued
jobs of that user or scope. Over HTTP on the real app with the graph on."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from tests.e2e.http_calls import JOB_DEADLINE_S, job_info
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TOKEN = 'forget-test-token-0123456789abcd'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
T0, T1 = '2026-05-01T10:00:00Z', '2026-05-01T10:01:00Z'


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('forget-data')
    application = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture
def scope() -> str:
    return f'agent:f{uuid.uuid4().hex[:10]}'


def write(client, **item):  # type: ignore[no-untyped-def]
    response = client.post('/v1/memories', json=item, headers=AUTH)
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def facts(client, scope: str, query: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'hops': 1}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['facts'])


def wait_for_fact(client, scope: str, query: str, obj: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    found = wait_until(  # graph extraction runs as a job
        lambda: [f for f in facts(client, scope, query) if f['object'] == obj],
        f'the graph never saw {query} -> {obj}',
    )
    return dict(found[0])


def wait_for_mentions(app, scope: str, query: str, ids: set[str]) -> None:  # type: ignore[no-untyped-def]
    wait_until(lambda: ids <= mentioned(app, scope, query), f'mentions of {ids} never recorded')


def mentioned(app, scope: str, query: str) -> set[str]:  # type: ignore[no-untyped-def]
    kg = app.extensions['mnemos'].kg
    return {p.id for p in kg.related_chunks(query, [scope], 1, 50)}


def test_deleting_a_memory_erases_the_facts_only_it_said_from_the_history(app, client, scope):
    bob = write(client, scope=scope, text='Bob moved to Berlin in 2024.')
    jazz = write(client, scope=scope, text='Bob likes jazz.')
    fact = wait_for_fact(client, scope, 'Bob', 'Berlin')
    assert fact['source_chunk'] == bob['id']
    wait_for_mentions(app, scope, 'Bob', {jazz['id']})
    [entity] = [
        e
        for e in client.post(
            '/v1/knowledge_graph_search', json={'query': 'Bob', 'scope': scope}, headers=AUTH
        ).get_json()['entities']
        if e['name'] == 'Bob'
    ]
    response = client.delete(f'/v1/memories/{bob["id"]}', headers=AUTH)
    assert response.status_code == 200
    assert [f for f in facts(client, scope, 'Bob') if f['object'] == 'Berlin'] == []
    assert bob['id'] not in mentioned(app, scope, 'Bob')
    # erased, not only retracted: the entity's history no longer holds the deleted sentence
    url = f'/v1/kg/entities/{entity["id"]}?scope={scope}'
    detail = client.get(url, headers=AUTH).get_json()
    assert detail['entity']['name'] == 'Bob'  # a live memory still names him
    history = detail['history']
    assert all(f['source_chunk'] != bob['id'] and 'Berlin' not in f['fact'] for f in history)


def test_a_fact_another_live_memory_also_says_stays_current(app, client, scope):
    first = write(client, scope=scope, text='Bob moved to Berlin in 2024.')
    wait_for_fact(client, scope, 'Bob', 'Berlin')
    second = write(client, scope=scope, text='In 2024 Bob moved to Berlin, he said.')
    wait_for_mentions(app, scope, 'Bob', {second['id']})
    client.delete(f'/v1/memories/{first["id"]}', headers=AUTH)
    assert [f['object'] for f in facts(client, scope, 'Bob')] == ['Berlin']
    client.delete(f'/v1/memories/{second["id"]}', headers=AUTH)
    assert facts(client, scope, 'Bob') == []


def test_forgetting_a_user_removes_their_memories_episodes_and_graph_facts(app, client, scope):
    other = f'{scope}x'
    ann = write(client, scope=scope, user_id='ann', text='Bob moved to Berlin in 2024.')
    kept = write(client, scope=scope, user_id='joe', text='Carol works at Initech.')
    elsewhere = write(client, scope=other, user_id='ann', text='Ann likes green tea.')
    wait_for_fact(client, scope, 'Bob', 'Berlin')
    wait_for_fact(client, scope, 'Carol', 'Initech')
    session = {
        'scope': scope,
        'user_id': 'ann',
        'messages': [
            {'role': 'user', 'content': 'I am planning a trip to Lisbon in May.', 'ts': T0},
            {'role': 'assistant', 'content': 'Lisbon in May is lovely.', 'ts': T1},
        ],
    }
    accepted = client.post('/v1/sessions/s-ann/complete', json=session, headers=AUTH)
    assert accepted.status_code == 202, accepted.get_json()
    wait_until(lambda: episodes(client, scope, 'ann'), 'the session never stored its episode')
    response = client.post(
        '/v1/admin/forget', json={'scope': scope, 'user_id': 'ann'}, headers=AUTH
    )
    assert response.status_code == 200, response.get_json()
    report = response.get_json()
    assert (report['memories'], report['episodes']) == (1, 1)
    assert report['graph_facts'] >= 1 and report['graph_entities'] >= 1
    assert client.get(f'/v1/memories/{ann["id"]}', headers=AUTH).status_code == 404
    assert episodes(client, scope, 'ann') == []
    assert [f for f in facts(client, scope, 'Bob') if f['object'] == 'Berlin'] == []
    assert ann['id'] not in mentioned(app, scope, 'Bob')
    # erased, not retracted: Bob and Berlin were named by Ann's memory alone
    for gone in ('Bob', 'Berlin'):
        listed = client.get(f'/v1/kg/entities?scope={scope}&q={gone}', headers=AUTH).get_json()
        assert listed['total'] == 0, listed
    # another user of the scope and the same user in another scope are untouched
    assert client.get(f'/v1/memories/{kept["id"]}', headers=AUTH).status_code == 200
    assert [f['object'] for f in facts(client, scope, 'Carol')] == ['Initech']
    assert client.get(f'/v1/memories/{elsewhere["id"]}', headers=AUTH).status_code == 200


def test_forgetting_a_scope_removes_everything_in_it(app, client, scope):
    for text in ('Bob moved to Berlin in 2024.', 'Carol works at Initech.'):
        write(client, scope=scope, text=text)
    wait_for_fact(client, scope, 'Bob', 'Berlin')
    wait_for_fact(client, scope, 'Carol', 'Initech')
    response = client.post('/v1/admin/forget', json={'scope': scope}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()['memories'] == 2
    listed = client.get(f'/v1/memories?scope={scope}', headers=AUTH).get_json()
    assert listed['items'] == []
    assert facts(client, scope, 'Bob') == [] and facts(client, scope, 'Carol') == []
    assert response.get_json()['graph_entities'] >= 4
    # erased, not retracted: no entity of the scope is left, history included
    found = client.post(
        '/v1/knowledge_graph_search', json={'query': 'Bob', 'scope': scope}, headers=AUTH
    )
    assert found.get_json()['entities'] == []
    listed = client.get(f'/v1/kg/entities?scope={scope}', headers=AUTH)
    assert listed.status_code == 200 and listed.get_json()['total'] == 0


@pytest.mark.parametrize('body', [{}, {'scope': 'not a scope'}, {'user_id': ''}, {'x': 1}])
def test_forget_needs_a_valid_scope_or_user(client, body):  # type: ignore[no-untyped-def]
    response = client.post('/v1/admin/forget', json=body, headers=AUTH)
    assert response.status_code == 422, response.get_json()


def test_only_the_admin_may_forget(client, scope):  # type: ignore[no-untyped-def]
    response = client.post('/v1/admin/forget', json={'scope': scope})
    assert response.status_code == 401


def episodes(client, scope: str, user_id: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    url = f'/v1/episodes?scope={scope}&user_id={user_id}'
    response = client.get(url, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['episodes'])


def test_a_session_still_queued_when_its_user_is_forgotten_never_becomes_an_episode(
    app, client, scope
):
    from consolidation.models import episode_id

    services = app.extensions['mnemos']
    words = 'Ann told us the locker code is marzipan-7781 and asked us to remember it.'
    session = {
        'scope': scope,
        'user_id': 'ann',
        'messages': [
            {'role': 'user', 'content': words, 'ts': T0},
            {'role': 'assistant', 'content': 'Noted, the locker code is saved.', 'ts': T1},
        ],
    }
    # earlier forgets' compactions first: the job below must meet the lock while it is held
    assert services.jobs.wait_idle(timeout=120)
    # the job cannot run yet: another live run holds its episode's lock for a few seconds
    held = 4.0
    ident = episode_id(scope, 's-late', 0)
    assert services.jobs.lock(f'episode:{ident}', services.clock.now(), held) == 0.0
    released_at = time.monotonic() + held
    accepted = client.post('/v1/sessions/s-late/complete', json=session, headers=AUTH)
    assert accepted.status_code == 202, accepted.get_json()
    job_id = accepted.get_json()['job_id']

    def retried() -> dict[str, Any] | None:  # its first attempt met the lock
        job = job_info(client, AUTH, job_id)
        return job if job['error'] is not None else None

    job = wait_until(retried, lambda: job_info(client, AUTH, job_id))
    assert job['state'] == 'queued', job

    response = client.post('/v1/admin/forget', json={'user_id': 'ann'}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()['jobs'] == 1

    # the lock ends; the broker delivers the retry, which must be skipped, not run
    time.sleep(max(0.0, released_at - time.monotonic()))
    services.jobs.broker.join('consolidation', timeout=int(JOB_DEADLINE_S * 1000))
    assert episodes(client, scope, 'ann') == []
    assert services.episodes.get(ident) is None
    job = client.get(f'/v1/jobs/{job_id}', headers=AUTH).get_json()
    assert job['state'] == 'cancelled', job
    # nothing stays pending (the forgets' compaction jobs end; the cancelled job is never replayed)
    assert services.jobs.wait_idle(timeout=120)
    data_dir = services.settings.data_dir
    on_disk = b''.join(f.read_bytes() for f in data_dir.glob('jobs.sqlite3*'))
    assert b'marzipan-7781' not in on_disk


def test_forget_waits_for_running_jobs_at_most_its_bound_in_all(
    app: Any, client: Any, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that never ends (its process hung, or on another host that died) holds a forget
    back for RUNNING_WAIT_S in all, not for each round of cancel-and-wait; forget then goes on
    and deletes."""
    import consolidation.forget as forget_module

    write(client, scope=scope, user_id='hung', text='Hank keeps the spare key under the mat.')
    jobs = app.extensions['mnemos'].consolidation.jobs
    waits: list[float] = []

    def never_ends(scope: Any, user_id: Any, timeout: float) -> bool:
        waits.append(timeout)
        time.sleep(timeout)  # the whole wait runs out: the job still runs
        return True

    monkeypatch.setattr(forget_module, 'RUNNING_WAIT_S', 0.3)
    monkeypatch.setattr(forget_module, '_compaction', lambda ctx: None)
    monkeypatch.setattr(jobs, 'wait_running', never_ends)
    answer = client.post('/v1/admin/forget', json={'user_id': 'hung'}, headers=AUTH)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()['memories'] == 1
    assert len(waits) == 1, waits  # one bounded wait, not one per round
