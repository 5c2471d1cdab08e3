"""An accepted job survives the death of the process running it (issue 12 item 8).

kill -9 while a session's episodic job runs leaves the job `running` in the outbox and its
120 s lock behind. Here that state is laid down as a killed process leaves it; the restarted
service must replay the job, take the dead owner's lock over and finish the job: it used to
meet the lock, give up after ~5 s of retries and end `failed` with no episode made.
(tests/integration/test_crash.py does the same with a real kill -9.)
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from consolidation.models import episode_id
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.e2e.http_calls import wait_job

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
SCOPE = 'agent:crashy'
# the wait for the replayed job: generous for a busy 2-core machine; a job that is done returns
WAIT_S = 120.0


def _dead_owner() -> str:
    proc = subprocess.Popen([sys.executable, '-c', 'pass'])
    proc.wait()
    return f'{socket.gethostname()}:{proc.pid}:00000000.1'


def _session_params(key: str) -> dict[str, object]:
    lines = [
        'We planned the Lisbon offsite for the platform team.',
        'Alice books the venue near the river by Friday.',
        'Bob prepares the budget sheet for the offsite.',
    ]
    messages = [
        {'role': 'user', 'content': text, 'ts': f'2026-03-02T09:0{i}:00Z'}
        for i, text in enumerate(lines)
    ]
    return {
        'scope': SCOPE,
        'user_id': None,
        'session_key': key,
        'compaction_count': 0,
        'messages': messages,
        'summary': None,
    }


def _leave_as_a_killed_process_would(
    data_dir: Path, job_id: str, key: str, owner: str | None = None, seconds: float = 120
) -> None:
    now = time.time()
    db = sqlite3.connect(data_dir / 'jobs.sqlite3', isolation_level=None)
    db.execute(
        'INSERT INTO jobs (id, job, queue, params, scope, state, attempts, worker, created_at,'
        " updated_at) VALUES (?, 'episodic', 'consolidation', ?, ?, 'running', 1, ?, ?, ?)",
        (job_id, json.dumps(_session_params(key)), SCOPE, 'dead:1', now, now),
    )
    ident = episode_id(SCOPE, key, 0)
    db.execute('INSERT INTO leases (key, until) VALUES (?, ?)', (f'episode:{ident}', now + seconds))
    columns = {row[1] for row in db.execute('PRAGMA table_info(leases)')}
    if 'owner' in columns:
        db.execute(
            'UPDATE leases SET key = ?, owner = ? WHERE key = ?',
            (f'lock:episode:{ident}', owner or _dead_owner(), f'episode:{ident}'),
        )
    db.close()


def _restart_and_wait(tmp_path: Path, owner: str | None, seconds: float) -> tuple[dict, list]:
    from api.app import create_app

    data_dir = tmp_path / 'data'
    settings = make_settings(data_dir, graph_enabled=False)
    first = create_app(settings)  # makes the stores, then "dies" (closed before the job exists)
    first.extensions['mnemos'].close()

    job_id = '6f1c3c53-0000-4000-8000-00000000c4a5'
    _leave_as_a_killed_process_would(data_dir, job_id, 'offsite-1', owner, seconds)

    app = create_app(settings)
    try:
        client = app.test_client()
        job = wait_job(client, AUTH, job_id, WAIT_S)
        episodes = client.get(f'/v1/episodes?scope={SCOPE}', headers=AUTH).get_json()
        return job, episodes['episodes']
    finally:
        app.extensions['mnemos'].close()


def test_a_session_job_running_when_the_process_died_completes_after_restart(tmp_path):
    # the dead owner's lock outlasts the wait for the job by far: a job that ends `done` took
    # the lock over instead of waiting it out (a check on the clock instead failed on busy boxes)
    job, episodes = _restart_and_wait(tmp_path, None, 10 * WAIT_S)
    assert job['state'] == 'done', job
    assert job['result']['episode_id'] == episode_id(SCOPE, 'offsite-1', 0)
    assert [e['session_key'] for e in episodes] == ['offsite-1']


def test_a_job_meeting_a_live_holders_lock_waits_for_it_instead_of_failing(tmp_path):
    from jobs.store import process_owner

    # this process is alive: its lock must be respected until it ends, 8 s from now (the
    # retries used to give up after ~5 s and mark the job failed)
    job, episodes = _restart_and_wait(tmp_path, process_owner(), 8)
    assert job['state'] == 'done', job
    assert [e['session_key'] for e in episodes] == ['offsite-1']
