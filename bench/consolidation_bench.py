"""Consolidation benchmark (embedded mode): sessions consolidated per second end to end, and the
lag from `POST /sessions/<key>/complete` to the episode being searchable, for 50-message sessions.

    python bench/consolidation_bench.py [--sessions 40] [--lag-samples 10] [--no-graph]

Throughput: all sessions are posted at once; the clock stops when every job of every chain
(episodic -> semantic -> dedup, and dreaming) has finished. Lag: one session at a time, polling
`memory_search` (kinds=episodic, the session's own scope) every 5 ms until the episode is the
top hit.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.app import create_app  # noqa: E402
from core.settings import Settings  # noqa: E402

TOKEN = 'bench-token-0123456789abcdef0123'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
PEOPLE = ['Alice Johnson', 'Bob Smith', 'Carol Diaz', 'Dan Wu', 'Eve Moreau']
PROJECTS = ['Project Falcon', 'Project Heron', 'Atlas Migration', 'Billing Revamp']
LINES = [
    '{p} said the {x} deadline moved to next Friday.',
    'We decided to run {x} on Postgres instead of MySQL.',
    '{p} prefers short written updates over meetings.',
    'The {x} staging deploy failed twice because of a missing secret.',
    'Can you summarise what {p} asked for in the {x} review?',
    '{p} will own the {x} rollout checklist.',
    'Latency on the {x} search endpoint is around 40 ms at p95.',
    'Remember that {p} is out of office until the 12th.',
    'Sure, I will draft the {x} release notes tonight.',
    'The team agreed to freeze {x} features after the demo.',
]


def make_session(rng: random.Random, n: int, marker: str) -> list[dict[str, Any]]:
    """`n` plausible messages; `marker` makes the session findable on its own."""
    messages = []
    for i in range(n):
        line = rng.choice(LINES).format(p=rng.choice(PEOPLE), x=rng.choice(PROJECTS))
        if i == 1:
            line = f'{rng.choice(PEOPLE)} prefers the codename {marker} for this work.'
        messages.append(
            {
                'role': 'user' if i % 2 == 0 else 'assistant',
                'content': line,
                'ts': f'2026-05-01T{9 + i // 60:02d}:{i % 60:02d}:00Z',
            }
        )
    return messages


def post(client: Any, key: str, scope: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = {'scope': scope, 'user_id': 'u1', 'messages': messages}
    response = client.post(f'/v1/sessions/{key}/complete', json=body, headers=AUTH)
    assert response.status_code == 202, response.get_json()
    return response.get_json()


def run(sessions: int, lag_samples: int, messages: int, graph: bool) -> dict[str, Any]:
    """Run both phases on a fresh data dir; returns the results."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(
            {},
            data_dir=Path(tmp),
            api_token=TOKEN,
            graph_enabled=graph,
            dreaming_debounce_seconds=3600,
        )
        app = create_app(settings)
        services = app.extensions['mnemos']
        client = app.test_client()
        try:
            # warm-up: model loads and first collection writes are not consolidation costs
            post(client, 'warm', 'agent:warm', make_session(rng, messages, 'warmup'))
            services.jobs.wait_idle(300)

            started = time.perf_counter()
            for i in range(sessions):
                post(client, f's{i}', f'agent:bench{i % 4}', make_session(rng, messages, f'm{i}'))
            accepted = time.perf_counter() - started
            assert services.jobs.wait_idle(1800), 'jobs did not drain'
            elapsed = time.perf_counter() - started

            lags: list[float] = []
            for i in range(lag_samples):
                # each sample in its own scope: the episode is found by any on-topic query
                scope = f'agent:lag{i}'
                t0 = time.perf_counter()
                accepted_lag = post(client, f'lag{i}', scope, make_session(rng, messages, 'x'))
                body = {
                    'query': 'project deadline and rollout',
                    'scope': scope,
                    'filters': {'kinds': ['episodic']},
                    'top_k': 1,
                }
                while True:
                    hits = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()
                    if hits['hits'] and hits['hits'][0]['id'] == accepted_lag['episode_id']:
                        break
                    if time.perf_counter() - t0 > 120:
                        raise AssertionError(f'episode {accepted_lag} never became searchable')
                    time.sleep(0.005)
                lags.append((time.perf_counter() - t0) * 1000)
                services.jobs.wait_idle(300)  # each lag sample starts on an idle service
        finally:
            services.close()
    lags.sort()
    return {
        'mode': 'embedded',
        'graph': graph,
        'messages_per_session': messages,
        'sessions': sessions,
        'worker_threads': settings.worker_threads,
        'accept_seconds': round(accepted, 3),
        'accept_per_second': round(sessions / accepted, 1),
        'end_to_end_seconds': round(elapsed, 3),
        'sessions_per_second': round(sessions / elapsed, 2),
        'lag_ms_p50': round(statistics.median(lags), 1),
        'lag_ms_p95': round(lags[min(len(lags) - 1, int(len(lags) * 0.95))], 1),
        'lag_ms_max': round(lags[-1], 1),
        'lag_samples': len(lags),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print a table, write bench/results/consolidation.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--sessions', type=int, default=40)
    parser.add_argument('--lag-samples', type=int, default=10)
    parser.add_argument('--messages', type=int, default=50)
    parser.add_argument('--no-graph', action='store_true', help='skip semantic/dedup (no Kuzu)')
    args = parser.parse_args(argv)
    results = [run(args.sessions, args.lag_samples, args.messages, graph=not args.no_graph)]
    if not args.no_graph:
        results.append(run(args.sessions, args.lag_samples, args.messages, graph=False))
    keys = [
        'graph',
        'sessions',
        'sessions_per_second',
        'end_to_end_seconds',
        'accept_per_second',
        'lag_ms_p50',
        'lag_ms_p95',
        'lag_ms_max',
    ]
    print(' | '.join(f'{k:>19}' for k in keys))
    for row in results:
        print(' | '.join(f'{row[k]!s:>19}' for k in keys))
    out = ROOT / 'bench' / 'results' / 'consolidation.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + '\n', encoding='utf-8')
    print(f'wrote {out.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
