"""Server mode for real: RedisBroker at 127.0.0.1:6379, this process as the API and graph owner,
and a `mnemos worker` subprocess. Proves that the chain runs across processes, that job states are
visible across them, and that only the API process ever opens Kuzu (the graph-owner rule).

No Qdrant server exists here, so both processes share vectors through the stand-in of
`vector_server.py`; everything else (broker, queues, actors, job store, worker entrypoint) is the
production path. Skipped when Redis is unreachable, except with CI set, where it fails.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ADMIN_TOKEN
from tests.e2e.http_calls import wait_job
from tests.integration.redis_chain import Stack, server_stack
from tests.waiting import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}


@pytest.fixture(scope='module')
def stack(redis_db: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Qdrant stand-in, the API process (here) and one worker subprocess on a real RedisBroker."""
    with server_stack(redis_db, tmp_path_factory.mktemp('redis-chain'), ADMIN_TOKEN) as running:
        yield running


def _session(scope: str, topic: str, n: int) -> dict[str, Any]:
    return {
        'scope': scope,
        'user_id': 'u1',
        'messages': [
            {
                'role': 'user',
                'content': f'Alice Johnson from Acme Corp leads {topic}. '
                'She prefers green tea during reviews.',
                'ts': '2026-04-01T10:00:00Z',
            },
            {
                'role': 'assistant',
                'content': f'{topic} runs on Qdrant Edge and Kuzu.',
                'ts': '2026-04-01T10:01:00Z',
            },
            {
                'role': 'user',
                'content': f'We decided to release {topic} build {n} in May.',
                'ts': '2026-04-01T10:02:00Z',
            },
        ],
    }


def test_the_chain_runs_across_the_api_and_a_worker_process_on_redis(stack: Stack) -> None:
    client = stack.app.test_client()
    worker_pid = stack.worker.pid
    here = f'{socket.gethostname()}:{os.getpid()}'
    there = f'{socket.gethostname()}:{worker_pid}'
    scope = 'agent:redis-chain'
    topics = ['Project Lark', 'Project Lark', 'Project Finch', 'Project Lark', 'Project Lark']
    accepted = []
    for i, topic in enumerate(topics):
        response = client.post(
            f'/v1/sessions/s{i}/complete', json=_session(scope, topic, i), headers=AUTH
        )
        assert response.status_code == 202, response.get_json()
        accepted.append(response.get_json())

    dreams = []
    for item in accepted:
        episodic = wait_job(client, AUTH, item['job_id'])
        assert episodic['state'] == 'done', episodic
        assert episodic['result']['status'] == 'created'
        # consolidation jobs ran in the worker process; their state is read here through Redis
        assert episodic['worker'] == there
        semantic = wait_job(client, AUTH, episodic['result']['next']['semantic'])
        assert semantic['state'] == 'done' and semantic['result']['status'] == 'extracted'
        assert semantic['worker'] == here  # graph jobs run in the graph owner, this process
        if semantic['result'].get('next'):
            dedup = wait_job(client, AUTH, semantic['result']['next']['dedup'])
            assert dedup['state'] == 'done' and dedup['worker'] == here
        dreams.append(wait_job(client, AUTH, episodic['result']['next']['dreaming']))

    assert all(d['worker'] == there for d in dreams)
    promoted = [d['result'] for d in dreams if d['result']['status'] == 'promoted']
    assert len(promoted) == 1, [d['result'] for d in dreams]

    # the episodes and the dream memory the worker wrote are searchable from the API process
    body = {'query': 'green tea reviews', 'scope': scope, 'filters': {'kinds': ['episodic']}}
    hits = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert {h['id'] for h in hits} == {a['episode_id'] for a in accepted}
    body['filters'] = {'kinds': ['dream']}
    [dream] = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert dream['id'] == promoted[0]['memory_id'] and 'green tea' in dream['text']

    # the worker handed the dream memory's graph indexing to the graph owner, whose queue runs
    # it after the dream job is done: poll until it lands (it never does if nothing handed it)
    def graph() -> Any:
        body = {'query': 'Alice Johnson', 'scope': scope}
        response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
        assert response.status_code == 200
        return response.get_json()

    wait_until(lambda: 'Alice Johnson' in str(graph()), graph)

    # the graph-owner rule: only the API process ever opened Kuzu
    assert (stack.api_dir / 'graph.kuzu').exists()
    assert not (stack.worker_dir / 'graph.kuzu').exists()
    assert stack.worker.poll() is None
