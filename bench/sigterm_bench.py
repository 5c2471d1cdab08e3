"""SIGTERM while the graph extraction runs: exit status and time to exit, over N trials.

Each trial starts `mnemos serve` (graph on, one extraction worker) on a fresh data dir, writes a
batch whose graph job keeps the extraction busy, sends SIGTERM at a random moment of that job
and records the exit status (0 wanted; 139 is a segfault) and the seconds until the process
ended. The last trial starts the service again on the same data dir and checks that the
unfinished graph job is replayed: every memory of the batch ends up linked in the graph.

    python bench/sigterm_bench.py --trials 10
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import time
from typing import Any

from _common import descendants, print_table, start_service, write_json

BATCH = 120


def _batch(trial: int) -> list[dict[str, Any]]:
    people = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank']
    cities = ['Lisbon', 'Berlin', 'Oslo', 'Madrid', 'Vienna', 'Prague']
    return [
        {
            'scope': 'agent:sig',
            'text': f'{people[i % 6]} {trial}-{i} moved to {cities[i % 5]} and works at Acme {i}.',
        }
        for i in range(BATCH)
    ]


def trial(number: int, replay: bool) -> dict[str, Any]:
    env = {'KG_EXTRACT_WORKERS': '1'}
    service = start_service(graph=True, env=env)
    try:
        service.post('/v1/memories/batch', {'items': _batch(number)})
        deadline = time.monotonic() + 60
        while not descendants(service.pid):  # the extraction worker took the batch
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        time.sleep(random.uniform(0.0, 1.5))  # any moment of the extraction
        sent = time.monotonic()
        service.process.send_signal(signal.SIGTERM)
        try:
            code = service.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            service.process.kill()
            code = service.process.wait()
        took = time.monotonic() - sent
        row: dict[str, Any] = {'trial': number, 'exit': code, 'seconds': round(took, 2)}
        if replay:
            row['replayed'] = _replayed(service)
        return row
    finally:
        service.stop()


def _replayed(service: Any) -> bool:
    """Start again on the same data dir: the outbox replays the unfinished jobs, which end,
    and the graph then holds the batch's people."""
    again = start_service(graph=True, env={'KG_DATA_DIR': str(service.data_dir)})
    try:
        said = again.log_tail(400)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if _pending(again) == 0:
                break
            time.sleep(0.5)
        people = again.get('/v1/kg/entities?scope=agent:sig&q=Alice')
        # unfinished jobs are replayed ('replayed N accepted jobs' in the log) and end
        print('the next start:', 'replayed' in said and 'replayed jobs' or 'nothing to replay')
        return _pending(again) == 0 and people.get('total', 0) > 0
    finally:
        again.stop()


def _pending(service: Any) -> int:
    for line in service.text('/metrics').splitlines():
        if line.startswith('mnemos_jobs_pending '):
            return int(float(line.split()[1]))
    return -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--trials', type=int, default=10)
    args = parser.parse_args()
    rows = [trial(i, replay=i == args.trials - 1) for i in range(args.trials)]
    print_table(
        ['trial', 'exit', 'seconds', 'replayed'],
        [[r['trial'], r['exit'], r['seconds'], r.get('replayed', '')] for r in rows],
    )
    clean = sum(1 for r in rows if r['exit'] == 0 and r['seconds'] <= 10)
    print(f'clean exits within 10 s: {clean}/{len(rows)}')
    write_json('sigterm_bench', {'trials': rows, 'clean': clean})


if __name__ == '__main__':
    main()
