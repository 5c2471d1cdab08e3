"""kill -9 of the real service (issue 12): every acknowledged write reads back and every accepted
(202) session job completes after a restart, with the kill at a random point of a batch write and
while a session job runs. Bounded to about a minute (three starts of `mnemos serve`)."""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.http_calls import JOB_DEADLINE_S
from tests.integration.test_service_process import TOKEN, free_port, wait_healthy
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SEED = int(os.environ.get('MNEMOS_CRASH_SEED', random.randrange(1_000_000)))
SCOPE = 'agent:crash'


class Served:
    """One `mnemos serve` process on a data dir that outlives it."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            'KG_DATA_DIR': str(data_dir),
            'KG_API_TOKEN': TOKEN,
            'KG_PORT': str(self.port),
            'KG_EXTRACT_WORKERS': '0',
        }
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'api.cli', 'serve'],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_healthy(self.proc, self.port)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f'http://127.0.0.1:{self.port}{path}',
            data=data,
            method=method,
            headers={'Authorization': f'Bearer {TOKEN}', 'Content-Type': 'application/json'},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b'null')

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no atexit, no store close, no flush
        self.proc.wait()


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    print(f'crash test seed {SEED} (MNEMOS_CRASH_SEED to replay)')
    yield tmp_path / 'data'


def _write_batches(served: Served, acked: dict[str, str], stop: threading.Event) -> None:
    n = 0
    while not stop.is_set():
        items = [
            {'scope': SCOPE, 'text': f'Crash note {n + i}: Alice filed report {n + i} in Oslo.'}
            for i in range(25)
        ]
        n += len(items)
        try:
            status, body = served.call('POST', '/v1/memories/batch', {'items': items})
        except (OSError, http.client.HTTPException):
            # the process died mid-request, or between the answer's headers and its body (an
            # IncompleteRead): not acknowledged either way
            return
        if status != 200:
            return
        for item, result in zip(items, body['results'], strict=True):
            if result['status'] in ('created', 'merged'):
                acked[result['id']] = item['text']


def _session(key: str, n: int) -> dict[str, Any]:
    messages = [
        {
            'role': 'user' if i % 2 == 0 else 'assistant',
            'content': f'In session {key} we discussed step {i}: Bob moves the Oslo review '
            f'to week {i % 52} and Alice books room {i}.',
            'ts': f'2026-03-02T{9 + i // 60:02d}:{i % 60:02d}:00Z',
        }
        for i in range(n)
    ]
    return {'scope': SCOPE, 'messages': messages}


def _wait_done(served: Served, job_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The jobs' states once each has ended (done or failed)."""

    def states() -> dict[str, dict[str, Any]]:
        return {j: served.call('GET', f'/v1/jobs/{j}')[1] for j in job_ids}

    def ended() -> dict[str, dict[str, Any]] | None:
        now = states()
        return now if all(s['state'] in ('done', 'failed') for s in now.values()) else None

    # three sessions of 400 messages replayed on a busy 2-core machine
    return wait_until(ended, lambda: f'accepted jobs never ended: {states()}', JOB_DEADLINE_S)


def test_acknowledged_writes_and_accepted_jobs_survive_kill_9(data_dir: Path) -> None:
    rng = random.Random(SEED)
    started = time.monotonic()

    # 1. kill -9 at a random point of a stream of batch writes
    served = Served(data_dir)
    acked: dict[str, str] = {}
    stop = threading.Event()
    writer = threading.Thread(target=_write_batches, args=(served, acked, stop))
    writer.start()
    # the kill lands at a random point of the stream, once a batch was acknowledged (a busy
    # machine may take seconds for the first)
    wait_until(lambda: acked, 'no batch was acknowledged before the kill')
    time.sleep(rng.uniform(0.0, 3.0))
    served.kill()
    stop.set()
    writer.join(timeout=30)
    assert acked, 'no batch was acknowledged before the kill'

    # 2. restart; accept sessions and kill -9 while the first one's job runs
    served = Served(data_dir)
    accepted: list[str] = []
    for k in range(3):
        status, body = served.call(
            'POST', f'/v1/sessions/crash-{k}/complete', _session(str(k), 400)
        )
        assert status == 202, body
        accepted.append(body['job_id'])
    deadline = time.monotonic() + rng.uniform(0.0, 3.0)
    seen = 'queued'
    while time.monotonic() < deadline:
        seen = served.call('GET', f'/v1/jobs/{accepted[0]}')[1]['state']
        if seen == 'running':
            time.sleep(rng.uniform(0.0, 0.2))
            break
        time.sleep(0.01)
    served.kill()

    # 3. restart: every acknowledged write reads back, every accepted job completes
    served = Served(data_dir)
    try:
        missing = []
        for ident, text in acked.items():
            status, body = served.call('GET', f'/v1/memories/{ident}')
            if status != 200 or body['text'] != text:
                missing.append((ident, status))
        assert missing == [], f'{len(missing)} of {len(acked)} acknowledged writes lost'
        states = _wait_done(served, accepted)
        assert {j: s['state'] for j, s in states.items()} == dict.fromkeys(accepted, 'done'), states
        status, body = served.call('GET', f'/v1/episodes?scope={SCOPE}')
        keys = sorted(e['session_key'] for e in body['episodes'])
        assert keys == ['crash-0', 'crash-1', 'crash-2']
    finally:
        served.kill()
    print(
        f'{len(acked)} acknowledged writes and {len(accepted)} accepted jobs survived two kills '
        f'(the first job {seen} at the kill) in {time.monotonic() - started:.1f} s'
    )
