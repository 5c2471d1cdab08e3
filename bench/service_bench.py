"""Service benchmark: ingest throughput and `memory_search` latency / RSS at growing store sizes.

python bench/service_bench.py --sizes 1000,10000 --no-graph       # quick, ~2 min
nohup python bench/service_bench.py --no-graph > bench.log &     # 1k, 10k, 100k: ~10+ min

Starts `mnemos serve` as a user would (fresh KG_DATA_DIR, random KG_API_TOKEN, and
KG_GRAPH_ENABLED=false with --no-graph) and grows one store (one scope) through
`POST /v1/memories/batch` in batches of 500: LoCoMo turns cycled with a ` #<n>` suffix so every
text is unique. The raw embedder (`make_embedder('minilm').inner.embed`, no cache) runs over the
same texts in the same batches in this process, so ingest is compared with the model's own speed
on this machine in this run.

After each growth the benchmark waits until the service is idle (>= 5 s, then until its CPU use,
its spaCy worker processes included, stays under 5 % of a core for 5 s) so graph extraction and
the background HNSW build have run, then sends `--queries`
LoCoMo questions to `POST /v1/memory_search` (hybrid, top_k 10, the one scope). Each size uses
questions no earlier size asked, so the service's embedding cache never answers a query: latency
includes the query embedding. Client latency is the HTTP round trip measured here.

Last, the service is stopped and started again on the same data dir: the time from process
start to healthy, the first search's round trip, then latency and RSS as a restart finds them.
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
    children_rss_mb,
    iso,
    locomo_questions,
    major_faults,
    median,
    numbered_turns,
    percentile,
    print_table,
    rss_mb,
    stage_medians,
    start_service,
    wait_idle,
    write_json,
)

SCOPE = 'agent:bench'
BATCH = 500
WARMUP_QUERIES = 5
TARGETS = {
    'ingest_vs_raw_embed': 1.5,  # ingest time / raw embedder time over the same texts
    'search_p50_ms': 20.0,  # at the largest size, HTTP round trip incl. query embedding
    'search_p95_ms': 50.0,
    'rss_mb': 1024.0,  # issue 15: 1.0 GB at 100k with the graph on
    # process start to the first search's answer, on the store the largest size left
    'restart_first_answer_s': 2.0,
}


def corpus(count: int, start: int) -> list[dict[str, Any]]:
    """`count` memory items from LoCoMo turns, cycled; item n gets the suffix ` #n`."""
    return [
        {
            'scope': SCOPE,
            'text': f'{turn.text} #{n}',
            'created_at': iso(turn.at),
            'metadata': {'dia_id': turn.dia_id, 'n': n},
        }
        for n, turn in numbered_turns(count, start)
    ]


def memory(pid: int) -> dict[str, float]:
    """The service's RSS, split into heap and mapped files (Edge segments: page cache the
    kernel can take back), and its spaCy worker processes' RSS, which rss_mb does not count."""
    return {
        'rss_mb': round(rss_mb(pid), 1),
        'rss_anon_mb': round(rss_mb(pid, 'RssAnon'), 1),
        'rss_file_mb': round(rss_mb(pid, 'RssFile'), 1),
        'workers_rss_mb': round(children_rss_mb(pid), 1),
    }


def memory_text(row: dict[str, Any]) -> str:
    """One line of `memory` figures for the progress log."""
    return (
        f'rss {row["rss_mb"]} MB (anon {row["rss_anon_mb"]}, files {row["rss_file_mb"]}) '
        f'+ workers {row["workers_rss_mb"]} MB'
    )


def raw_embed_seconds(texts: list[str]) -> float:
    """Seconds the bare MiniLM embedder (no cache, no HTTP) takes over `texts` in batches."""
    from vectors.embedders import make_embedder

    embedder = make_embedder('minilm').inner  # type: ignore[attr-defined]
    embedder.embed(['warm up the onnx session', 'and its allocator'])
    started = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        embedder.embed(texts[i : i + BATCH])
    return time.perf_counter() - started


def ingest(service: Service, items: list[dict[str, Any]]) -> tuple[float, dict[str, int]]:
    """Seconds to write `items` through the batch route; counts of per-item statuses."""
    counts: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(0, len(items), BATCH):
        answer = service.post('/v1/memories/batch', {'items': items[i : i + BATCH]})
        for status, count in answer['counts'].items():
            counts[status] = counts.get(status, 0) + count
    return time.perf_counter() - started, counts


def search_latency(
    service: Service, queries: list[str], graph: bool
) -> tuple[list[float], list[dict[str, float]], int]:
    """Client round-trip ms per query, the receipts' stage latencies, and hits returned."""
    for n in range(WARMUP_QUERIES):
        service.post('/v1/memory_search', _search(f'warm-up question number {n}?', graph))
    client: list[float] = []
    stages: list[dict[str, float]] = []
    hits = 0
    for query in queries:
        started = time.perf_counter()
        answer = service.post('/v1/memory_search', _search(query, graph))
        client.append((time.perf_counter() - started) * 1000.0)
        stages.append(answer['receipt']['latency_ms'])
        hits += len(answer['hits'])
    return client, stages, hits


def _search(query: str, graph: bool) -> dict[str, Any]:
    # with the graph on, the request is the default one (the recipe decides the channels)
    body: dict[str, Any] = {'query': query, 'scope': SCOPE, 'top_k': 10}
    if not graph:
        body['graph'] = False
    return body


def run(
    sizes: list[int], n_queries: int, graph: bool, keep_data: Path | None = None
) -> dict[str, Any]:
    """Grow one store through `sizes`, measuring ingest, search latency and RSS at each;
    with `keep_data`, the data dir ends up there instead of being deleted."""
    all_questions = locomo_questions()
    if n_queries * len(sizes) > len(all_questions):
        print(
            f'note: {n_queries}x{len(sizes)} queries > {len(all_questions)} questions; '
            'later sizes repeat questions (cache hits on the query embedding)',
            flush=True,
        )
    items = corpus(max(sizes), 0)
    print(f'raw embedder over {len(items)} texts in batches of {BATCH} ...', flush=True)
    raw_by_size: dict[int, float] = {}
    previous = 0
    for size in sizes:
        raw_by_size[size] = raw_embed_seconds([it['text'] for it in items[previous:size]])
        previous = size
    service = start_service(graph=graph)
    first_dir = service.work_dir  # holds the data dir the restarted service opens
    rows: list[dict[str, Any]] = []
    restart: dict[str, Any] = {}
    try:
        previous = 0
        for step, size in enumerate(sizes):
            chunk = items[previous:size]
            seconds, counts = ingest(service, chunk)
            raw = raw_by_size[size]
            print(
                f'{size}: ingested {len(chunk)} in {seconds:.1f} s ({counts}); raw embed '
                f'{raw:.1f} s; waiting for the service to be idle ...',
                flush=True,
            )
            waited = wait_idle(service.pid)
            stats = service.get(f'/v1/memory/stats?scope={SCOPE}')
            qs = [
                all_questions[(step * n_queries + i) % len(all_questions)] for i in range(n_queries)
            ]
            faults = major_faults(service.pid)
            client, receipts, hits = search_latency(service, qs, graph)
            faults = major_faults(service.pid) - faults
            row = {
                'size': size,
                'stored': stats['total'],
                'ingested': len(chunk),
                'ingest_s': round(seconds, 3),
                'ingest_chunks_per_s': round(len(chunk) / seconds, 1),
                'raw_embed_s': round(raw, 3),
                'raw_embed_chunks_per_s': round(len(chunk) / raw, 1),
                'ingest_vs_raw': round(seconds / raw, 3),
                'write_status': counts,
                'idle_wait_s': round(waited, 1),
                'queries': len(client),
                'hits_per_query': round(hits / max(1, len(client)), 2),
                'search_p50_ms': round(percentile(client, 50), 2),
                'search_p95_ms': round(percentile(client, 95), 2),
                'search_p99_ms': round(percentile(client, 99), 2),
                'server_total_p50_ms': round(median([r['total'] for r in receipts]), 2),
                'server_total_p95_ms': round(percentile([r['total'] for r in receipts], 95), 2),
                # reads from disk inside the search phase (bench/README.md: right after a load)
                'major_faults_per_search': round(faults / max(1, len(client)), 1),
                'stage_median_ms': stage_medians(receipts),
                'rss_peak_mb': round(rss_mb(service.pid, 'VmHWM'), 1),
                **memory(service.pid),
            }
            rows.append(row)
            print(
                f'{size}: p50 {row["search_p50_ms"]} ms, p95 {row["search_p95_ms"]} ms, '
                f'{row["major_faults_per_search"]} major faults per search, '
                f'{memory_text(row)} (idle wait {waited:.0f} s)',
                flush=True,
            )
            previous = size
        fresh = [
            all_questions[(len(sizes) * n_queries + i) % len(all_questions)]
            for i in range(n_queries)
        ]
        service, restart = restarted(service, graph, fresh)
        print(
            f'restart: healthy after {restart["healthy_s"]} s, first search '
            f'{restart["first_search_ms"]} ms, then p50 {restart["search_p50_ms"]} ms '
            f'({restart["major_faults_per_search"]} major faults per search), '
            f'{memory_text(restart)}',
            flush=True,
        )
    finally:
        service.stop()
        if keep_data is not None and (first_dir / 'data').is_dir():
            shutil.rmtree(keep_data, ignore_errors=True)
            shutil.move(first_dir / 'data', keep_data)
            print(f'kept the data dir in {keep_data}', flush=True)
        shutil.rmtree(first_dir, ignore_errors=True)
    return {
        'graph': graph,
        'batch': BATCH,
        'scope': SCOPE,
        'targets': TARGETS,
        'sizes': rows,
        'restart': restart,
    }


def restarted(service: Service, graph: bool, queries: list[str]) -> tuple[Service, dict[str, Any]]:
    """Stop the service and start it again on its data dir: time to healthy, the first
    search's round trip, then latency over `queries` and RSS (the store as a restart finds it)."""
    service.stop(keep_data=True)
    started = time.perf_counter()
    again = start_service(graph=graph, env={'KG_DATA_DIR': str(service.data_dir)})
    healthy = time.perf_counter() - started
    t = time.perf_counter()
    again.post('/v1/memory_search', _search(queries[0], graph))
    first = (time.perf_counter() - t) * 1000.0
    faults = major_faults(again.pid)
    client, receipts, _ = search_latency(again, queries[1:], graph)
    faults = major_faults(again.pid) - faults
    return again, {
        'healthy_s': round(healthy, 2),
        'first_search_ms': round(first, 1),
        'first_answer_s': round(healthy + first / 1000.0, 2),
        'search_p50_ms': round(percentile(client, 50), 2),
        'search_p95_ms': round(percentile(client, 95), 2),
        'server_total_p50_ms': round(median([r['total'] for r in receipts]), 2),
        'major_faults_per_search': round(faults / max(1, len(client)), 1),
        'stage_median_ms': stage_medians(receipts),
        **memory(again.pid),
    }


def report(result: dict[str, Any]) -> list[list[Any]]:
    """Print the per-size tables and the target check; returns the target rows."""
    rows = result['sizes']
    print()
    print_table(
        [
            'size',
            'ingest/s',
            'raw emb/s',
            'ingest/raw',
            'p50 ms',
            'p95 ms',
            'p99 ms',
            'srv p50',
            'maj flt/q',
            'RSS MB',
            'idle wait s',
        ],
        [
            [
                r['size'],
                r['ingest_chunks_per_s'],
                r['raw_embed_chunks_per_s'],
                r['ingest_vs_raw'],
                r['search_p50_ms'],
                r['search_p95_ms'],
                r['search_p99_ms'],
                r['server_total_p50_ms'],
                r.get('major_faults_per_search', float('nan')),
                r['rss_mb'],
                r['idle_wait_s'],
            ]
            for r in rows
        ],
    )
    stages: list[str] = []
    for r in rows:
        stages.extend(s for s in r['stage_median_ms'] if s not in stages)
    print('\nmedian receipt.latency_ms per stage')
    print_table(
        ['size', *stages],
        [[r['size'], *(r['stage_median_ms'].get(s, float('nan')) for s in stages)] for r in rows],
    )
    last = rows[-1]
    ingest_s = sum(r['ingest_s'] for r in rows)
    raw_s = sum(r['raw_embed_s'] for r in rows)
    checks = [
        [
            'ingest time / raw embed time (all sizes)',
            f'<= {TARGETS["ingest_vs_raw_embed"]}',
            round(ingest_s / raw_s, 3),
            ingest_s / raw_s <= TARGETS['ingest_vs_raw_embed'],
        ],
        [
            f'search p50 ms @ {last["size"]}',
            f'<= {TARGETS["search_p50_ms"]}',
            last['search_p50_ms'],
            last['search_p50_ms'] <= TARGETS['search_p50_ms'],
        ],
        [
            f'search p95 ms @ {last["size"]}',
            f'<= {TARGETS["search_p95_ms"]}',
            last['search_p95_ms'],
            last['search_p95_ms'] <= TARGETS['search_p95_ms'],
        ],
        [
            f'RSS MB @ {last["size"]}',
            f'<= {TARGETS["rss_mb"]:.0f}',
            last['rss_mb'],
            last['rss_mb'] <= TARGETS['rss_mb'],
        ],
    ]
    restart = result.get('restart') or {}
    if restart:
        checks.append(
            [
                f'restart to first answer s @ {last["size"]}',
                f'<= {TARGETS["restart_first_answer_s"]}',
                restart['first_answer_s'],
                restart['first_answer_s'] <= TARGETS['restart_first_answer_s'],
            ]
        )
    if last['size'] < 100_000:
        print(
            f'\nnote: the targets are set for 100k chunks; the largest size here is {last["size"]}'
        )
    print()
    print_table(['target', 'target', 'measured', 'pass'], checks)
    return checks


def main(argv: list[str] | None = None) -> int:
    """Parse flags, run, print, write bench/results/service_bench[_nograph].json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--sizes',
        default='1000,10000,100000',
        help='cumulative store sizes, ascending (default 1000,10000,100000)',
    )
    parser.add_argument('--queries', type=int, default=200, help='queries per size')
    parser.add_argument(
        '--keep-data',
        type=Path,
        default=None,
        metavar='DIR',
        help='move the grown data dir to DIR at the end (replacing DIR) instead of deleting it, '
        'to measure restarts of other code versions on the same store',
    )
    parser.add_argument(
        '--graph',
        action=argparse.BooleanOptionalAction,
        default=True,
        help='graph extraction on in the service and default searches, whose recipe decides '
        'the channels (default); --no-graph: KG_GRAPH_ENABLED=false and `graph: false`',
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(',') if s.strip()]
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] <= 0:
        parser.error('--sizes must be ascending positive integers')
    if args.queries <= 0:
        parser.error('--queries must be positive')
    started = time.perf_counter()
    result = run(sizes, args.queries, args.graph, args.keep_data)
    checks = report(result)
    result['checks'] = [
        {'target': c[0], 'bound': c[1], 'measured': c[2], 'pass': bool(c[3])} for c in checks
    ]
    result['command'] = ' '.join(['python', 'bench/service_bench.py', *sys.argv[1:]])
    result['wall_s'] = round(time.perf_counter() - started, 1)
    path = write_json('service_bench' if args.graph else 'service_bench_nograph', result)
    print(f'\nwrote {path.relative_to(ROOT)} ({result["wall_s"]:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
