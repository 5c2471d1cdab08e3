"""Forget in server mode waits for the jobs of its user that another process is running.

Real RedisBroker and Redis job store at 127.0.0.1:6379. The first test runs two job queues in
this process, each with its own broker as the API and a worker process have; the second runs
the API app and a `mnemos worker` (runtime.worker.serve, on a thread of this process so that
the test can hold its job) on the Qdrant stand-in of vector_server.py. Skipped when Redis is
unreachable, except with CI set, where it fails.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from core.clock import SystemClock
from core.jobs import JobName
from tests.conftest import ADMIN_TOKEN
from tests.e2e.http_calls import job_info
from tests.integration.redis_chain import REDIS_HOST, REDIS_PORT
from tests.waiting import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
T0, T1 = '2026-05-01T10:00:00Z', '2026-05-01T10:01:00Z'
# how long the test lets a held job run on after forget began: long enough that a forget which
# does not wait returns before the job writes (the assertions hold for any value)
HOLD_S = 1.0


def _queue(url: str, namespace: str, runner: Any) -> Any:
    import redis
    from dramatiq.brokers.redis import RedisBroker

    from jobs.queue import DramatiqJobQueue
    from jobs.store import RedisJobStore

    return DramatiqJobQueue(
        RedisBroker(url=url, namespace=namespace),
        RedisJobStore(redis.Redis.from_url(url), SystemClock(), namespace=namespace),
        runner,
        SystemClock(),
        threads=2,
        default_queues=None,
        expiry_interval=3600.0,
    )


def test_waiting_for_a_user_s_jobs_sees_those_running_in_another_process(redis_db: int) -> None:
    from jobs.queue import DEFAULT_QUEUE, GRAPH_QUEUE

    url = f'redis://{REDIS_HOST}:{REDIS_PORT}/{redis_db}'
    namespace = f'mnemos-forget-{uuid.uuid4().hex[:8]}'
    running, go = threading.Event(), threading.Event()
    written: list[str] = []

    def worker_runner(job: str, params: dict[str, Any]) -> Any:
        if job == JobName.EPISODIC:
            running.set()
            go.wait(60)
            written.append(params['user_id'])  # what the job writes after forget cancelled it
        return None

    api = _queue(url, namespace, lambda job, params: None)
    worker = _queue(url, namespace, worker_runner)
    try:
        api.start(queues=frozenset({GRAPH_QUEUE}))
        worker.start(queues=frozenset({DEFAULT_QUEUE}))
        job_id = api.enqueue(JobName.EPISODIC, scope='agent:a', user_id='ann')
        assert running.wait(60), 'the worker never ran the job'
        assert api.cancel('agent:a', 'ann') == 1
        info = api.get(job_id)
        assert info is not None and info.state == 'cancelled'
        threading.Timer(HOLD_S, go.set).start()
        was = api.wait_running('agent:a', 'ann', timeout=60)
        seen = list(written)  # what the job had written when the wait ended
        assert seen == ['ann'], 'the wait ended while the other process still ran the job'
        assert was
        assert not api.wait_running('agent:a', 'ann', timeout=60)
    finally:
        go.set()
        worker.close(grace_s=5)
        api.close(grace_s=5)


@pytest.fixture(scope='module')
def server(redis_db: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The API app (graph owner) and a worker on a thread, over Redis and the Qdrant stand-in."""
    import runtime.bootstrap
    from api.app import create_app
    from core.settings import Settings
    from runtime.worker import serve as serve_worker
    from tests.integration.vector_server import RemoteVectorStore, serve

    vector_server, vectors_url = serve()
    env = {
        'KG_REDIS_URL': f'redis://{REDIS_HOST}:{REDIS_PORT}/{redis_db}',
        'KG_QDRANT_URL': vectors_url,
        'KG_API_TOKEN': ADMIN_TOKEN,
        'KG_EMBEDDER': 'hash',
    }
    original = runtime.bootstrap.build_vector_store
    runtime.bootstrap.build_vector_store = lambda s: RemoteVectorStore(s.qdrant_url)  # type: ignore
    stop = threading.Event()
    thread: threading.Thread | None = None
    app = None
    try:
        app = create_app(Settings.load(env, data_dir=tmp_path_factory.mktemp('api')))
        worker_settings = Settings.load(env, data_dir=tmp_path_factory.mktemp('worker'))
        thread = threading.Thread(target=serve_worker, args=(worker_settings, 2, stop))
        thread.start()
        yield app
    finally:
        stop.set()
        if thread is not None:
            thread.join(60)
        if app is not None:
            app.extensions['mnemos'].close()
        runtime.bootstrap.build_vector_store = original
        vector_server.shutdown()


def test_forget_waits_for_the_session_job_a_worker_runs_and_leaves_nothing_of_it(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import consolidation.episodic as episodic
    import consolidation.forget as forget_module

    client = server.test_client()
    store = episodic._store
    running, go, stored = threading.Event(), threading.Event(), threading.Event()

    def held_store(ctx: Any, episode: Any) -> None:
        running.set()
        go.wait(120)
        try:
            store(ctx, episode)
        finally:
            stored.set()

    monkeypatch.setattr(episodic, '_store', held_store)
    # the stand-in vector store keeps nothing on disk: no rewrite to wait for
    monkeypatch.setattr(forget_module, '_compaction', lambda ctx: None)
    scope, user = 'agent:forget-server', 'u-forget'
    session = {
        'scope': scope,
        'user_id': user,
        'messages': [
            {'role': 'user', 'content': 'Bob moved to Berlin in 2024.', 'ts': T0},
            {'role': 'assistant', 'content': 'Berlin, noted.', 'ts': T1},
        ],
    }
    accepted = client.post('/v1/sessions/s1/complete', json=session, headers=AUTH)
    assert accepted.status_code == 202, accepted.get_json()
    job_id = accepted.get_json()['job_id']
    assert running.wait(120), 'the worker never ran the session job'
    answers: list[Any] = []
    forget = threading.Thread(
        target=lambda: answers.append(
            server.test_client().post('/v1/admin/forget', json={'user_id': user}, headers=AUTH)
        )
    )
    forget.start()
    wait_until(  # forget has cancelled it
        lambda: job_info(client, AUTH, job_id)['state'] == 'cancelled',
        lambda: job_info(client, AUTH, job_id),
        timeout=120,
        interval=0.01,
    )
    threading.Timer(HOLD_S, go.set).start()  # the job goes on: it stores its episode
    forget.join(300)
    assert answers and answers[0].status_code == 200, answers and answers[0].get_json()
    assert stored.wait(120)
    wait_until(  # the jobs the session queued
        lambda: not any(j['state'] in ('queued', 'running') for j in _jobs(client, scope)),
        lambda: _jobs(client, scope),
        timeout=120,
    )
    episodes = client.get(f'/v1/episodes?scope={scope}&user_id={user}', headers=AUTH).get_json()
    entities = client.get(f'/v1/kg/entities?scope={scope}', headers=AUTH).get_json()
    assert (episodes['episodes'], entities['total']) == ([], 0), (episodes, entities)


def _jobs(client: Any, scope: str) -> list[dict[str, Any]]:
    return list(client.get(f'/v1/jobs?scope={scope}', headers=AUTH).get_json()['jobs'])
