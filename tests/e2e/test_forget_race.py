"""Forget vs a session job that is already running: forget waits for it and cancels what it
queued, so neither its episode nor the graph facts of that episode survive. Real app, graph on;
the job is held just before it stores its episode until forget has cancelled it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TOKEN = 'forget-race-token-0123456789abcd'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
T0, T1 = '2026-05-01T10:00:00Z', '2026-05-01T10:01:00Z'
TRIALS = 20


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('race-data')
    application = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield application
    application.extensions['mnemos'].close()


def _job(client: Any, job_id: str) -> dict[str, Any]:
    return dict(client.get(f'/v1/jobs/{job_id}', headers=AUTH).get_json())


def _wait_cancelled(client: Any, job_id: str, answers: list[Any]) -> None:
    wait_until(
        lambda: _job(client, job_id)['state'] == 'cancelled',
        lambda: (_job(client, job_id), answers),
        120,
        0.01,
    )


def test_forget_during_a_running_session_job_leaves_no_episode_and_no_fact(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import consolidation.episodic as episodic
    import consolidation.forget as forget_module

    services = app.extensions['mnemos']
    client = app.test_client()
    store = episodic._store
    running, go = threading.Event(), threading.Event()

    def held_store(ctx: Any, episode: Any) -> None:
        running.set()
        go.wait()
        store(ctx, episode)

    monkeypatch.setattr(episodic, '_store', held_store)
    # the rewrites after each forget are test_forget_erases.py's: here they would only slow
    # every trial's graph writes down
    monkeypatch.setattr(forget_module, '_compaction', lambda ctx: None)
    survivors = []
    for trial in range(TRIALS):
        scope, user = f'agent:race{trial}', f'u{trial}'
        running.clear()
        go.clear()
        session = {
            'scope': scope,
            'user_id': user,
            'messages': [
                {'role': 'user', 'content': 'Bob moved to Berlin in 2024.', 'ts': T0},
                {'role': 'assistant', 'content': 'Berlin, noted.', 'ts': T1},
            ],
        }
        accepted = client.post(f'/v1/sessions/s{trial}/complete', json=session, headers=AUTH)
        assert accepted.status_code == 202, accepted.get_json()
        job_id = accepted.get_json()['job_id']
        assert running.wait(120), 'the session job never ran'
        answers: list[Any] = []
        body = {'user_id': user}
        forget = threading.Thread(
            target=lambda out=answers, body=body: out.append(
                app.test_client().post('/v1/admin/forget', json=body, headers=AUTH)
            )
        )
        forget.start()
        try:
            _wait_cancelled(client, job_id, answers)  # forget has cancelled it
        finally:
            go.set()  # the job goes on from where it was: it stores its episode
        forget.join()
        assert answers[0].status_code == 200, answers[0].get_json()
        survivors += _left(client, trial)  # forget waited for the job: nothing now
    assert services.jobs.wait_idle(timeout=300)
    for trial in range(TRIALS):
        survivors += _left(client, trial)  # nor once every job it queued has ended
    assert survivors == []


def _left(client: Any, trial: int) -> list[Any]:
    scope, user = f'agent:race{trial}', f'u{trial}'
    episodes = client.get(f'/v1/episodes?scope={scope}&user_id={user}', headers=AUTH).get_json()
    entities = client.get(f'/v1/kg/entities?scope={scope}', headers=AUTH).get_json()
    if episodes['episodes'] or entities['total']:
        return [(trial, episodes['episodes'], entities)]
    return []
