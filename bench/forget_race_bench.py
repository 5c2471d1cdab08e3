"""Forget vs a running session job in server mode: what survives of the user, over N trials.

Server mode for real except the vector store: Redis at 127.0.0.1:6379 (broker and job store),
this process as the API and graph owner, and a `mnemos worker` subprocess
(tests/integration/worker_main.py: the worker entrypoint with the vector store pointed at the
Qdrant stand-in of tests/integration/vector_server.py, as the Redis chain test runs it; this
machine has no Qdrant server). Each trial completes a session of a new user in a new scope,
waits until the worker runs the session job (no hook holds it: the job runs at its own pace),
forgets the user, and once forget has answered and every job of the scope has ended, counts
what is left of the user: episodes, memories and graph entities in the scope. A trial where the
job had already ended before forget began is reported as such (no race). Writes
bench/results/forget_race_bench.json.

    python bench/forget_race_bench.py --trials 20
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import ROOT, print_table, write_json

sys.path.insert(0, str(ROOT))  # tests.integration: the worker entrypoint and the stand-in

REDIS = ('127.0.0.1', 6379)
LOCK_KEY = 'mnemos-bench:forget-race'
TIMEOUT_S = 300.0
PEOPLE = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank']
CITIES = ['Lisbon', 'Berlin', 'Oslo', 'Madrid', 'Vienna', 'Prague']


@contextmanager
def _redis_db() -> Iterator[int]:
    """A Redis database no other run is using (1-15), emptied before and after."""
    import redis

    for db in range(15, 0, -1):
        client = redis.Redis(host=REDIS[0], port=REDIS[1], db=db)
        if client.set(LOCK_KEY, str(os.getpid()), nx=True, ex=3600):
            client.flushdb()
            client.set(LOCK_KEY, str(os.getpid()), ex=3600)
            try:
                yield db
            finally:
                client.flushdb()
                client.close()
            return
    raise SystemExit('bench: no free Redis database (1-15)')


def _wait_ready(worker: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if 'mnemos worker: ready' in log.read_text(errors='replace'):
            return
        if worker.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f'bench: the worker did not start:\n{log.read_text(errors="replace")}')


@contextmanager
def _stack(embedder: str) -> Iterator[tuple[Any, dict[str, str]]]:
    """The stand-in vector server, the API app here and one `mnemos worker` process."""
    import runtime.bootstrap
    from api.app import create_app
    from core.settings import Settings
    from tests.integration.vector_server import RemoteVectorStore, serve

    work = Path(tempfile.mkdtemp(prefix='forget-race-'))
    token = secrets.token_hex(16)
    server, vectors_url = serve()
    original = runtime.bootstrap.build_vector_store
    runtime.bootstrap.build_vector_store = lambda s: RemoteVectorStore(s.qdrant_url)  # type: ignore
    worker: subprocess.Popen[bytes] | None = None
    app = None
    with _redis_db() as db:
        env = {
            'KG_REDIS_URL': f'redis://{REDIS[0]}:{REDIS[1]}/{db}',
            'KG_QDRANT_URL': vectors_url,
            'KG_API_TOKEN': token,
            'KG_EMBEDDER': embedder,
        }
        try:
            app = create_app(Settings.load(env, data_dir=work / 'api'))
            logging.getLogger('mnemos.access').setLevel(logging.WARNING)  # a line per poll
            log = work / 'worker.log'
            with log.open('wb') as out:
                worker = subprocess.Popen(
                    [sys.executable, '-m', 'tests.integration.worker_main'],
                    cwd=ROOT,
                    env={
                        **{k: v for k, v in os.environ.items() if not k.startswith('KG_')},
                        **env,
                        'KG_DATA_DIR': str(work / 'worker'),
                        'PYTHONPATH': str(ROOT),
                    },
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            _wait_ready(worker, log)
            yield app, {'Authorization': f'Bearer {token}'}
        finally:
            if worker is not None:
                worker.terminate()
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
            if app is not None:
                app.extensions['mnemos'].close()
            runtime.bootstrap.build_vector_store = original
            server.shutdown()


def _session(trial: int, user: str, scope: str, turns: int) -> dict[str, Any]:
    messages = []
    for i in range(turns):
        who, city = PEOPLE[(trial + i) % 6], CITIES[(trial * 7 + i) % 6]
        messages.append(
            {
                'role': 'user' if i % 2 == 0 else 'assistant',
                'content': f'{who} moved to {city} in {2010 + i} and works at Acme {trial}-{i}.',
                'ts': f'2026-05-01T10:{i:02d}:00Z',
            }
        )
    return {'scope': scope, 'user_id': user, 'messages': messages}


def _until(check: Any, what: str) -> Any:
    """Poll `check` until it returns something truthy; SystemExit after TIMEOUT_S."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.005)
    raise SystemExit(f'bench: {what} not within {TIMEOUT_S:.0f} s')


def _left(client: Any, auth: dict[str, str], scope: str, user: str) -> dict[str, int]:
    query = f'scope={scope}&user_id={user}'
    episodes = client.get(f'/v1/episodes?{query}', headers=auth).get_json()['count']
    memories = len(client.get(f'/v1/memories?scope={scope}', headers=auth).get_json()['items'])
    entities = client.get(f'/v1/kg/entities?scope={scope}', headers=auth).get_json()['total']
    return {'episodes': episodes, 'memories': memories, 'entities': entities}


def trial(app: Any, auth: dict[str, str], number: int, turns: int) -> dict[str, Any]:
    """One race: the user's session job runs in the worker when forget begins."""
    client = app.test_client()
    scope, user = f'agent:race{number}', f'u-race-{number}'
    accepted = client.post(
        f'/v1/sessions/s{number}/complete', json=_session(number, user, scope, turns), headers=auth
    )
    assert accepted.status_code == 202, accepted.get_json()
    job_id = accepted.get_json()['job_id']

    def started() -> str | None:
        state = str(client.get(f'/v1/jobs/{job_id}', headers=auth).get_json()['state'])
        return None if state == 'queued' else state

    at_forget = _until(started, 'the session job starting')
    began = time.monotonic()
    answer = client.post('/v1/admin/forget', json={'user_id': user}, headers=auth)
    took = time.monotonic() - began
    assert answer.status_code == 200, answer.get_json()

    def settled() -> bool:
        jobs = client.get(f'/v1/jobs?scope={scope}', headers=auth).get_json()['jobs']
        return not any(j['state'] in ('queued', 'running') for j in jobs)

    _until(settled, f'the jobs of {scope} ending')
    left = _left(client, auth, scope, user)
    final = client.get(f'/v1/jobs/{job_id}', headers=auth).get_json()['state']
    return {
        'trial': number,
        'job_at_forget': at_forget,
        'job_final': final,
        'forget_s': round(took, 2),
        **left,
        'survivors': sum(left.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--trials', type=int, default=20)
    parser.add_argument('--turns', type=int, default=12, help='messages per session')
    parser.add_argument('--embedder', default='hash', help='KG_EMBEDDER of both processes')
    args = parser.parse_args()
    rows = []
    with _stack(args.embedder) as (app, auth):
        for number in range(args.trials):
            rows.append(trial(app, auth, number, args.turns))
            print(rows[-1], flush=True)
    keys = ['trial', 'job_at_forget', 'job_final', 'forget_s', 'episodes', 'memories', 'entities']
    print_table(keys, [[r[k] for k in keys] for r in rows])
    raced = sum(r['job_at_forget'] == 'running' for r in rows)
    # the rest ended before forget's cancel reached them: forget deletes what they wrote
    cancelled = sum(r['job_final'] == 'cancelled' for r in rows)
    survivors = sum(r['survivors'] > 0 for r in rows)
    print(
        f'{args.trials} trials: the job running when forget began in {raced}, still running '
        f'when forget cancelled it in {cancelled}; trials with survivors: {survivors}'
    )
    write_json(
        'forget_race_bench',
        {
            'trials': args.trials,
            'turns': args.turns,
            'raced': raced,
            'cancelled_running': cancelled,
            'with_survivors': survivors,
            'rows': rows,
        },
    )


if __name__ == '__main__':
    main()
