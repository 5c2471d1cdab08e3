"""Served A/B on a kept store: `memory_search` latency under two service settings, alternated.

python bench/service_bench.py --sizes 100000 --keep-data /tmp/store100k     # once, ~30 min
python bench/served_ab.py --store /tmp/store100k \\
    --arm serial KG_SEARCH_OVERLAP_THREADS=0 --arm overlap KG_SEARCH_OVERLAP_THREADS=2

Each round serves a fresh copy of `--store` once per arm (`mnemos serve`, as service_bench's
restart phase does), sends 5 warm-up questions and then `--queries` LoCoMo questions (the same
ones for every arm, none of them repeated within a run, so the query embedding is never cached;
searches touch as the default request does, which is why every run gets its own copy), and
records the HTTP round trip and the receipt's stages. Arms alternate within each round so that a
machine getting faster or slower shifts both. Reported per arm: p50/p95 over all rounds, the
server's own total, and stage medians. Output: bench/results/served_ab.json.

A kept store must have been made by this code's schema (service_bench --keep-data). To compare
code versions, give an arm `PYTHONPATH=<another checkout>`: its modules shadow this checkout's
(the venv installs the project in editable mode, found after PYTHONPATH). A version whose store
schema differs serves a store of its own, kept by its own service_bench: `STORE=<dir>` on an
arm replaces `--store` for that arm (both grown alike: the same turns, the same batches):

python bench/served_ab.py --store /tmp/kept_new --no-graph --rounds 4 \\
    --arm old PYTHONPATH=/tmp/old STORE=/tmp/kept_old --arm new
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    locomo_questions,
    median,
    percentile,
    print_table,
    stage_medians,
    start_service,
    write_json,
)
from bench.service_bench import search_latency  # noqa: E402


def _arm(spec: list[str]) -> tuple[str, dict[str, str]]:
    name, *pairs = spec
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition('=')
        if not sep or not (key.startswith('KG_') or key in ('PYTHONPATH', 'STORE')):
            raise SystemExit(
                f'--arm {name}: {pair!r} is not KG_NAME=value, PYTHONPATH=dir or STORE=dir'
            )
        if key == 'STORE' and not (Path(value) / 'vectors').is_dir():
            raise SystemExit(f'--arm {name}: STORE={value} has no vectors/ folder')
        env[key] = value
    return name, env


def run(
    store: Path, arms: list[tuple[str, dict[str, str]]], rounds: int, n_queries: int, graph: bool
) -> dict[str, Any]:
    """Serve a copy of `store` per arm and round, alternating arms; latency per arm."""
    questions = locomo_questions()
    client: dict[str, list[float]] = {name: [] for name, _ in arms}
    receipts: dict[str, list[dict[str, float]]] = {name: [] for name, _ in arms}
    for n in range(rounds):
        # each round asks new questions: an embedding cached by an earlier round cannot answer
        asked = [questions[(n * n_queries + i) % len(questions)] for i in range(n_queries)]
        order = arms if n % 2 == 0 else list(reversed(arms))
        for name, env in order:
            work = Path(tempfile.mkdtemp(prefix='mnemos-ab-'))
            try:
                served = {k: v for k, v in env.items() if k != 'STORE'}
                shutil.copytree(Path(env.get('STORE', store)), work / 'data')
                service = start_service(
                    graph=graph, env={**served, 'KG_DATA_DIR': str(work / 'data')}
                )
                try:
                    times, stages, _ = search_latency(service, asked, graph)
                finally:
                    service.stop()
            finally:
                shutil.rmtree(work, ignore_errors=True)
            client[name].extend(times)
            receipts[name].extend(stages)
            print(
                f'round {n + 1}/{rounds} {name}: p50 {percentile(times, 50):.1f} ms, '
                f'p95 {percentile(times, 95):.1f} ms',
                flush=True,
            )
    return {
        'store': str(store),
        'rounds': rounds,
        'queries_per_round': n_queries,
        'arms': {
            name: {
                'env': env,
                'queries': len(client[name]),
                'search_p50_ms': round(percentile(client[name], 50), 2),
                'search_p95_ms': round(percentile(client[name], 95), 2),
                'search_p99_ms': round(percentile(client[name], 99), 2),
                'server_total_p50_ms': round(median([r['total'] for r in receipts[name]]), 2),
                'stage_median_ms': stage_medians(receipts[name]),
            }
            for name, env in arms
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Parse flags, run, print, write bench/results/served_ab.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--store', type=Path, required=True, help='a data dir service_bench kept')
    parser.add_argument(
        '--arm',
        nargs='+',
        action='append',
        required=True,
        metavar='NAME [KG_X=v ...]',
        help='an arm: its name, then the KG_* settings (or PYTHONPATH) it serves with; repeat',
    )
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--queries', type=int, default=150, help='questions per arm and round')
    parser.add_argument('--graph', action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument('--out', default='served_ab', help='bench/results/<out>.json')
    args = parser.parse_args(argv)
    if not (args.store / 'vectors').is_dir():
        parser.error(f'--store {args.store}: no vectors/ folder; keep one with service_bench')
    if args.rounds <= 0 or args.queries <= 0:
        parser.error('--rounds and --queries must be positive')
    arms = [_arm(spec) for spec in args.arm]
    started = time.perf_counter()
    result = run(args.store, arms, args.rounds, args.queries, args.graph)
    rows = [
        [
            name,
            arm['queries'],
            arm['search_p50_ms'],
            arm['search_p95_ms'],
            arm['server_total_p50_ms'],
            ', '.join(f'{k} {v}' for k, v in arm['stage_median_ms'].items()),
        ]
        for name, arm in result['arms'].items()
    ]
    print()
    print_table(['arm', 'queries', 'p50 ms', 'p95 ms', 'server p50', 'stage medians ms'], rows)
    result['command'] = ' '.join(['python', 'bench/served_ab.py', *sys.argv[1:]])
    result['wall_s'] = round(time.perf_counter() - started, 1)
    path = write_json(args.out, result)
    print(f'\nwrote {path.relative_to(ROOT)} ({result["wall_s"]:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
