"""Load benchmark: many concurrent clients against one served process, loopback only.

python bench/load_bench.py                                  # 50 clients, 60 s, ~2,000 memories
python bench/load_bench.py --clients 10 --seconds 15 --memories 500     # a quick check
python bench/load_bench.py --env KG_QUERY_BATCH_MS=0 --out load_bench_nobatch   # batching off
python bench/load_bench.py --no-touch --out load_bench_notouch   # what access bookkeeping costs

Starts `mnemos serve` as a user would (bench/_common.start_service: fresh data dir, random
token, 127.0.0.1 only), loads `--memories` LoCoMo turns in batches of 500, waits until the
service is idle, then runs `--clients` threads for `--seconds`, each with its own keep-alive
connection, each request drawn at random: `--search-share` `POST /v1/memory_search` (a LoCoMo
question with a unique ` (n)` suffix so every query is embedded, unless --repeat-queries;
default request: top_k 10, `touch` as the service defaults) and the rest single
`POST /v1/memories` writes of new turns. Bounded: a fixed duration, a fixed number of clients,
nothing but loopback.

Reported: requests/s, latency p50/p95/p99 (all, searches, writes), errors, the service's CPU
time per request (all its threads, from /proc), the backlog the load left (seconds until the
service and its workers are idle again, and the CPU that took, per request of the load: graph
jobs that fell behind are part of what the load cost) and the median of each search receipt stage
(wall ms inside the service, so under load it includes waiting for the GIL and the cores).
The client threads run on the same machine and take CPU from the service: say so when quoting.
JSON to bench/results/<--out>.json.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    ApiError,
    Service,
    cpu_seconds,
    iso,
    load_locomo,
    numbered_turns,
    percentile,
    print_table,
    rss_mb,
    start_service,
    tree_cpu_seconds,
    wait_idle,
    write_json,
)

SCOPE = 'agent:load'
BATCH = 500
BACKLOG_QUIET_S = 3.0  # idle this long after the load: its backlog is done


class _Client(threading.Thread):
    """One client: its own connection, requests until the deadline, latencies recorded."""

    def __init__(
        self,
        base: Service,
        seed: int,
        deadline: float,
        share: float,
        questions: list[str],
        turns: list[Any],
        counter: Any,
        unique: bool,
        touch: bool = True,
    ) -> None:
        super().__init__(daemon=True)
        self.unique = unique
        self.touch = touch
        # a Service per client: same process and token, a connection of its own
        self.conn = Service(
            base.process, base.port, base.token, base.work_dir, base.data_dir, base.log_path, True
        )
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.share = share
        self.questions = questions
        self.turns = turns
        self.counter = counter
        self.search_ms: list[float] = []
        self.write_ms: list[float] = []
        self.stages: list[dict[str, float]] = []
        self.errors: list[str] = []

    def run(self) -> None:
        while time.monotonic() < self.deadline:
            searching = self.rng.random() < self.share
            started = time.perf_counter()
            try:
                if searching:
                    query = self.rng.choice(self.questions)
                    if self.unique:
                        # a new text each time: the embedding cache cannot answer it
                        query = f'{query} ({next(self.counter)})'
                    body: dict[str, Any] = {'query': query, 'scope': SCOPE}
                    if not self.touch:
                        body['touch'] = False
                    answer = self.conn.post('/v1/memory_search', body)
                    self.stages.append(answer['receipt']['latency_ms'])
                else:
                    n = next(self.counter)
                    turn = self.turns[n % len(self.turns)]
                    item = {'scope': SCOPE, 'text': f'{turn.text} ~{n}', 'created_at': iso(turn.at)}
                    self.conn.post('/v1/memories', item)
            except (ApiError, OSError) as exc:
                self.errors.append(str(exc)[:200])
                continue
            elapsed = (time.perf_counter() - started) * 1000.0
            (self.search_ms if searching else self.write_ms).append(elapsed)


def _load(service: Service, count: int) -> None:
    items = [
        {'scope': SCOPE, 'text': f'{t.text} #{n}', 'created_at': iso(t.at)}
        for n, t in numbered_turns(count)
    ]
    for i in range(0, len(items), BATCH):
        service.post('/v1/memories/batch', {'items': items[i : i + BATCH]})


def _summary(values: list[float]) -> dict[str, float]:
    return {
        'count': len(values),
        'p50_ms': round(percentile(values, 50), 1),
        'p95_ms': round(percentile(values, 95), 1),
        'p99_ms': round(percentile(values, 99), 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    import itertools

    conversations = load_locomo()
    turns = [t for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions]
    env = dict(kv.split('=', 1) for kv in args.env)
    service = start_service(graph=not args.no_graph, env=env)
    try:
        started = time.perf_counter()
        _load(service, args.memories)
        load_s = time.perf_counter() - started
        wait_idle(service.pid, timeout=600)
        rss_before = rss_mb(service.pid)
        counter = itertools.count(args.memories)
        deadline = time.monotonic() + args.seconds
        clients = [
            _Client(
                service,
                n,
                deadline,
                args.search_share,
                questions,
                turns,
                counter,
                not args.repeat_queries,
                not args.no_touch,
            )
            for n in range(args.clients)
        ]
        # on stderr, so a profiler can be attached to the service for the load phase only
        print(f'load phase: {args.clients} clients, pid {service.pid}', file=sys.stderr, flush=True)
        cpu0, wall0 = cpu_seconds(service.pid), time.perf_counter()
        tree0, own0 = tree_cpu_seconds(service.pid), time.process_time()
        for client in clients:
            client.start()
        for client in clients:
            client.join(timeout=args.seconds + 120)
        wall = time.perf_counter() - wall0
        cpu = cpu_seconds(service.pid) - cpu0
        # the spaCy workers and these client threads share the same cores
        workers = tree_cpu_seconds(service.pid) - tree0 - cpu
        own = time.process_time() - own0
        rss_after = rss_mb(service.pid)
        for client in clients:
            if client.conn._conn is not None:
                client.conn._conn.close()
        # work the load left behind (graph jobs of its writes not done yet) is part of its cost:
        # a setting that lets the jobs fall behind must not look cheaper for it
        tree1 = tree_cpu_seconds(service.pid)
        waited = wait_idle(service.pid, min_wait=0.0, quiet=BACKLOG_QUIET_S)
        backlog_s = max(0.0, waited - BACKLOG_QUIET_S)
        backlog_cpu = tree_cpu_seconds(service.pid) - tree1
    finally:
        service.stop()
    searches = [ms for c in clients for ms in c.search_ms]
    writes = [ms for c in clients for ms in c.write_ms]
    errors = [e for c in clients for e in c.errors]
    stages: dict[str, list[float]] = {}
    for c in clients:
        for receipt in c.stages:
            for name, ms in receipt.items():
                stages.setdefault(name, []).append(ms)
    done = len(searches) + len(writes)
    return {
        'clients': args.clients,
        'seconds': round(wall, 1),
        'memories_loaded': args.memories,
        'load_seconds': round(load_s, 1),
        'graph_extraction': not args.no_graph,
        'env': env,
        'unique_queries': not args.repeat_queries,
        'requests_per_s': round(done / wall, 1),
        'errors': len(errors),
        'error_samples': errors[:5],
        'all': _summary(searches + writes),
        'search': _summary(searches),
        'write': _summary(writes),
        'service_cpu_ms_per_request': round(cpu * 1000.0 / max(done, 1), 2),
        'service_cpu_share_of_2_cores': round(cpu / wall / 2, 2),
        'workers_cpu_ms_per_request': round(workers * 1000.0 / max(done, 1), 2),
        'client_cpu_ms_per_request': round(own * 1000.0 / max(done, 1), 2),
        'machine_cpu_share_of_2_cores': round((cpu + workers + own) / wall / 2, 2),
        'backlog_s': round(backlog_s, 1),
        'backlog_cpu_ms_per_request': round(backlog_cpu * 1000.0 / max(done, 1), 2),
        'search_stage_median_ms': {k: round(statistics.median(v), 2) for k, v in stages.items()},
        'rss_mb': {'before': round(rss_before, 1), 'after': round(rss_after, 1)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', type=int, default=50)
    parser.add_argument('--seconds', type=float, default=60.0)
    parser.add_argument('--memories', type=int, default=2000)
    parser.add_argument('--search-share', type=float, default=0.8)
    parser.add_argument('--no-graph', action='store_true', help='KG_GRAPH_ENABLED=false')
    parser.add_argument(
        '--repeat-queries',
        action='store_true',
        help='send LoCoMo questions as they are (repeats hit the embedding cache); by default '
        'each search gets a unique suffix so every query is embedded',
    )
    parser.add_argument(
        '--no-touch',
        action='store_true',
        help='searches send `touch: false` (no access bookkeeping), to price what it costs',
    )
    parser.add_argument('--env', action='append', default=[], help='KEY=VALUE for the service')
    parser.add_argument('--out', default='load_bench')
    args = parser.parse_args()
    if not 1 <= args.clients <= 200 or not 1 <= args.seconds <= 600:
        raise SystemExit('load_bench: 1-200 clients and 1-600 seconds (bounded on purpose)')
    result = run(args)
    rows = [
        [kind, result[kind]['count'], result[kind]['p50_ms'], result[kind]['p95_ms'],
         result[kind]['p99_ms']]
        for kind in ('all', 'search', 'write')
    ]  # fmt: skip
    print_table(['requests', 'count', 'p50 ms', 'p95 ms', 'p99 ms'], rows)
    print(
        f'{result["requests_per_s"]} requests/s over {result["seconds"]} s, '
        f'{result["clients"]} clients, {result["errors"]} errors; service CPU '
        f'{result["service_cpu_ms_per_request"]} ms per request '
        f'({result["service_cpu_share_of_2_cores"]:.0%} of 2 cores), spaCy workers '
        f'{result["workers_cpu_ms_per_request"]} ms, clients {result["client_cpu_ms_per_request"]} '
        f'ms (machine {result["machine_cpu_share_of_2_cores"]:.0%} of 2 cores); '
        f'RSS {result["rss_mb"]}'
    )
    print(
        f'backlog after the load (graph jobs still to run): {result["backlog_s"]} s, '
        f'{result["backlog_cpu_ms_per_request"]} ms CPU per request'
    )
    print('search stages (median wall ms in the service):', result['search_stage_median_ms'])
    print('written', write_json(args.out, result))


if __name__ == '__main__':
    main()
