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
import secrets
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import ROOT, print_table, write_json

sys.path.insert(0, str(ROOT))  # tests.integration: the Redis server stack the chain test runs

from tests.integration.redis_chain import free_redis_db, server_stack  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

LOCK_KEY = 'mnemos-bench:forget-race'
TIMEOUT_S = 300.0
PEOPLE = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank']
CITIES = ['Lisbon', 'Berlin', 'Oslo', 'Madrid', 'Vienna', 'Prague']


@contextmanager
def _stack(embedder: str) -> Iterator[tuple[Any, dict[str, str]]]:
    """The stand-in vector server, the API app here and one `mnemos worker` process."""
    token = secrets.token_hex(16)
    work = Path(tempfile.mkdtemp(prefix='forget-race-'))
    with (
        free_redis_db(LOCK_KEY, ttl_s=3600) as db,
        server_stack(db, work, token, KG_EMBEDDER=embedder) as stack,
    ):
        logging.getLogger('mnemos.access').setLevel(logging.WARNING)  # a line per poll
        yield stack.app, {'Authorization': f'Bearer {token}'}


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

    # polled often, to see the job start before it ends
    at_forget = wait_until(started, 'the session job starting', TIMEOUT_S, interval=0.005)
    began = time.monotonic()
    answer = client.post('/v1/admin/forget', json={'user_id': user}, headers=auth)
    took = time.monotonic() - began
    assert answer.status_code == 200, answer.get_json()

    def settled() -> bool:
        jobs = client.get(f'/v1/jobs?scope={scope}', headers=auth).get_json()['jobs']
        return not any(j['state'] in ('queued', 'running') for j in jobs)

    wait_until(settled, f'the jobs of {scope} ending', TIMEOUT_S)
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
