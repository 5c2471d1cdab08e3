"""Scale benchmark: one store growing toward 1M chunks over many scopes, measured step by step.

python bench/scale_bench.py --total 1000000 --steps 10          # ~1M over 901 scopes (hours)
python bench/scale_bench.py --total 200000 --steps 2 --no-graph  # a partial run
python bench/scale_bench.py --total 500000 --steps 5 --env KG_EMBEDDER=hash  # store side only

Starts `mnemos serve` as a user would (fresh KG_DATA_DIR) and grows it in `--steps` equal steps
toward `--total` chunks: one big scope (`agent:big`) receives `--big` / `--total` of every step,
and the rest fills small scopes of `--small` chunks each (`agent:s0000`, `agent:s0001`, ...), so
at 1M the store holds one 100k-chunk scope and 900 scopes of 1k, as a deployment of many agents
with one heavy user would. Texts are LoCoMo turns cycled with a ` #<n>` suffix (unique), written
through `POST /v1/memories/batch` in batches of 500.

After each step the benchmark waits until the service is idle, then sends `--queries` LoCoMo
questions to the big scope and as many to small scopes (a different small scope per question),
with `touch: false` so the store does not change, and records ingest rate, client p50/p95 per
scope size, RSS and the data dir's size on disk. With `--restart` (the default) it then stops the
service and starts it again on the same data dir, and records the seconds to healthy and to the
first answer (a big-scope search): what an operator waits after a restart at that size. The
next step writes into the restarted service. The JSON is rewritten after every step, so a
run stopped early keeps the steps it finished (`bench/results/scale_bench.json`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    Service,
    iso,
    locomo_questions,
    numbered_turns,
    percentile,
    print_table,
    rss_mb,
    start_service,
    wait_idle,
    write_json,
)

BIG = 'agent:big'
BATCH = 500


def small_scope(n: int) -> str:
    """The n-th small scope's name."""
    return f'agent:s{n:04d}'


def plan(total: int, big: int, small: int, steps: int) -> list[list[tuple[str, int]]]:
    """Per step, (scope, chunks to add) pairs: the big scope grows by big/steps a step, small
    scopes are filled one after another to `small` chunks each."""
    per_step = total // steps
    big_per_step = big // steps
    out: list[list[tuple[str, int]]] = []
    scope_n, filled = 0, 0
    for _ in range(steps):
        adds = [(BIG, big_per_step)]
        left = per_step - big_per_step
        while left > 0:
            take = min(small - filled, left)
            adds.append((small_scope(scope_n), take))
            left -= take
            filled += take
            if filled == small:
                scope_n, filled = scope_n + 1, 0
        out.append(adds)
    return out


def items_for(adds: list[tuple[str, int]], start: int) -> list[dict[str, Any]]:
    """Memory items for one step, ids unique across the run (suffix ` #n` from `start`)."""
    scopes = [scope for scope, count in adds for _ in range(count)]
    return [
        {
            'scope': scope,
            'text': f'{turn.text} #{n}',
            'created_at': iso(turn.at),
            'metadata': {'dia_id': turn.dia_id},
        }
        for scope, (n, turn) in zip(scopes, numbered_turns(len(scopes), start), strict=True)
    ]


def search(service: Service, scope: str, query: str) -> float:
    """Client round trip ms of one default search in `scope` that leaves the store unchanged."""
    started = time.perf_counter()
    service.post('/v1/memory_search', {'query': query, 'scope': scope, 'top_k': 10, 'touch': False})
    return (time.perf_counter() - started) * 1000.0


def disk_mb(path: Path) -> float:
    """Disk space the files under `path` take, in MB (allocated blocks, as `du`: the WAL and
    segment files are preallocated sparse files whose apparent size is ~3x that)."""
    return sum(p.stat().st_blocks * 512 for p in path.rglob('*') if p.is_file()) / 1e6


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Grow the store step by step; the result so far is written after every step."""
    questions = locomo_questions()
    env = dict(kv.split('=', 1) for kv in args.env)
    steps = plan(args.total, args.big, args.small, args.steps)
    result: dict[str, Any] = {
        'command': ' '.join(['python', 'bench/scale_bench.py', *sys.argv[1:]]),
        'graph': args.graph,
        'total': args.total,
        'big': args.big,
        'small': args.small,
        'env': env,
        'steps': [],
    }
    service = start_service(graph=args.graph, env=env)
    data_home = service.work_dir  # holds the data dir every restarted service opens
    stored, asked = 0, 0
    small_scopes: list[str] = []
    failed = True
    try:
        for step, adds in enumerate(steps, start=1):
            items = items_for(adds, stored)
            started = time.perf_counter()
            for i in range(0, len(items), BATCH):
                service.post('/v1/memories/batch', {'items': items[i : i + BATCH]})
            ingest_s = time.perf_counter() - started
            stored += len(items)
            small_scopes.extend(s for s, _ in adds if s != BIG and s not in small_scopes)
            waited = wait_idle(service.pid, timeout=1800)
            # idle is not done: jobs that failed and wait for a retry leave the process idle too
            # (the twelfth 1M run's last step went idle after 35 s where others took ~275 s)
            pending = jobs_pending(service)
            full = small_scopes[:-1] or small_scopes  # the last may be partial
            qs = [questions[(asked + i) % len(questions)] for i in range(2 * args.queries)]
            asked += len(qs)
            for q in qs[:5]:
                search(service, BIG, q)  # warm-up
            big_ms = [search(service, BIG, q) for q in qs[: args.queries]]
            small_ms = [
                search(service, full[i % len(full)], q) for i, q in enumerate(qs[args.queries :])
            ]
            row = {
                'step': step,
                'stored': stored,
                'scopes': 1 + len(small_scopes),
                'big_scope_chunks': args.big // args.steps * step,
                'ingest_chunks_per_s': round(len(items) / ingest_s, 1),
                'idle_wait_s': round(waited, 1),
                'jobs_pending_at_idle': pending,
                'log_errors': log_errors(service),
                'big_p50_ms': round(percentile(big_ms, 50), 2),
                'big_p95_ms': round(percentile(big_ms, 95), 2),
                'small_p50_ms': round(percentile(small_ms, 50), 2),
                'small_p95_ms': round(percentile(small_ms, 95), 2),
                'rss_mb': round(rss_mb(service.pid), 1),
                'disk_mb': round(disk_mb(service.data_dir), 1),
            }
            if pending or row['log_errors']:
                print(f'step {step}: {pending} jobs pending at idle, {row["log_errors"]} errors '
                      'logged; the log is kept', file=sys.stderr)  # fmt: skip
            if args.restart:
                keep = bool(pending or row['log_errors'])
                service, again = restart(service, data_home, env, args.graph, qs[0], keep)
                row.update({f'restart_{k}': v for k, v in again.items()})
            result['steps'].append(row)
            write_json('scale_bench', result)
            print(row, flush=True)
        failed = False
    finally:
        service.stop(keep_log=failed, keep_data=failed)
        if failed:  # what the service left, for a post-mortem (e.g. does the graph open?)
            print(f'data kept for a post-mortem: {service.data_dir}', file=sys.stderr)
        else:
            shutil.rmtree(data_home, ignore_errors=True)
    return result


def jobs_pending(service: Service) -> int:
    """Accepted jobs not finished yet, from the service's `/metrics`."""
    for line in service.text('/metrics').splitlines():
        if line.startswith('mnemos_jobs_pending'):
            return int(float(line.split()[-1]))
    return 0


def log_errors(service: Service) -> int:
    """Lines of the service's log at ERROR level or starting a traceback."""
    try:
        text = service.log_path.read_text(errors='replace')
    except OSError:
        return 0
    return sum(1 for line in text.splitlines() if ' ERROR ' in line or 'Traceback' in line)


def restart(
    service: Service,
    data_home: Path,
    env: dict[str, str],
    graph: bool,
    query: str,
    keep_log: bool = False,
) -> tuple[Service, dict[str, float]]:
    """Stop the service (keeping its log in bench/results with `keep_log`), start it on the
    same data dir: seconds to healthy and to the first answer of a big-scope search, and the
    RSS right after that answer."""
    data_dir = service.data_dir
    service.stop(keep_data=True, keep_log=keep_log)
    if service.work_dir != data_home:
        shutil.rmtree(service.work_dir, ignore_errors=True)  # a restarted one's log only
    started = time.perf_counter()
    again = start_service(graph=graph, env={**env, 'KG_DATA_DIR': str(data_dir)})
    healthy = time.perf_counter() - started
    again.data_dir = data_dir  # its own work dir holds only its log
    search(again, BIG, query)
    return again, {
        'healthy_s': round(healthy, 2),
        'first_answer_s': round(time.perf_counter() - started, 2),
        'rss_mb': round(rss_mb(again.pid), 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse flags, run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--total', type=int, default=1_000_000)
    parser.add_argument(
        '--big', type=int, default=100_000, help='chunks in the big scope at the end'
    )
    parser.add_argument('--small', type=int, default=1_000, help='chunks per small scope')
    parser.add_argument('--steps', type=int, default=10)
    parser.add_argument('--queries', type=int, default=100, help='per scope size and step')
    parser.add_argument('--graph', action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        '--restart',
        action=argparse.BooleanOptionalAction,
        default=True,
        help='after each step, restart the service on its data and time the first answer',
    )
    parser.add_argument(
        '--env',
        action='append',
        default=[],
        help='KEY=VALUE for the service, e.g. KG_EMBEDDER=hash to grow the store faster than '
        'the model embeds (store-side costs only: its searches rank by hash vectors)',
    )
    args = parser.parse_args(argv)
    if any('=' not in kv for kv in args.env):
        parser.error('--env takes KEY=VALUE')
    if not 0 < args.big < args.total or args.small <= 0 or args.steps <= 0:
        parser.error('need 0 < --big < --total, --small > 0, --steps > 0')
    result = run(args)
    keys = [k for k in result['steps'][0]] if result['steps'] else []
    print_table(keys, [[r[k] for k in keys] for r in result['steps']])
    return 0


if __name__ == '__main__':
    sys.exit(main())
