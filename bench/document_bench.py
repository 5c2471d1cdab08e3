"""How long indexing one large Markdown document takes, and whether it stalls other requests.

Starts `mnemos serve` (graph on, as a user runs it), writes a few memories, then indexes one
document of `--kb` KB on one connection while a second connection searches without pause. Prints
the index time and the search latencies before, during and after, and writes
bench/results/document_bench.json.

    .venv/bin/python -m bench.document_bench --kb 250
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

from bench._common import Service, percentile, print_table, start_service, write_json

NAMES = ['Alice', 'Bob', 'Chen Wei', 'Dana', 'Emeka', 'Farah', 'Goran', 'Hana']
PLACES = ['Lisbon', 'Berlin', 'Osaka', 'Lagos', 'Quito', 'Oslo', 'Hanoi', 'Perth']
TOPICS = ['budget', 'launch', 'hiring', 'security review', 'offsite', 'migration', 'roadmap']


def make_markdown(kb: int) -> str:
    """Realistic Markdown of about `kb` KB: headings, paragraphs of sentences with entities."""
    parts: list[str] = []
    size = 0
    n = 0
    while size < kb * 1024:
        name, place = NAMES[n % len(NAMES)], PLACES[(n // 3) % len(PLACES)]
        topic = TOPICS[(n // 7) % len(TOPICS)]
        if n % 6 == 0:
            parts.append(f'## {topic.title()} notes {n // 6}\n')
        parts.append(
            f'{name} met the {topic} team in {place} on day {n}. They agreed that item {n} '
            f'of the {topic} plan moves to week {n % 52}, and {name} owns the follow-up with '
            f'{NAMES[(n + 3) % len(NAMES)]}. The notes for item {n} mention cost centre {n * 7}.\n'
        )
        size += len(parts[-1].encode()) + (len(parts[-2].encode()) if n % 6 == 0 else 0)
        n += 1
    return '\n'.join(parts)


def searches(service: Service, stop: threading.Event, out: list[tuple[float, float]]) -> None:
    """Search without pause until `stop`; (start time, latency s) of each."""
    n = 0
    while not stop.is_set():
        n += 1  # a new query each time: its embedding is not cached, as in real traffic
        query = {'scope': 'agent:bench', 'query': f'who owns launch follow-up {n}', 'top_k': 5}
        t0 = time.monotonic()
        service.post('/v1/memory_search', query)
        out.append((t0, time.monotonic() - t0))


def summary(latencies: list[float]) -> dict[str, float]:
    """Count, p50, p95 and max in milliseconds."""
    ms = [x * 1000 for x in latencies]
    return {
        'n': len(ms),
        'p50_ms': round(percentile(ms, 50), 1),
        'p95_ms': round(percentile(ms, 95), 1),
        'max_ms': round(max(ms), 1) if ms else float('nan'),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--kb', type=int, default=250, help='the default cap is 256 KB')
    parser.add_argument('--idle-seconds', type=float, default=5.0)
    args = parser.parse_args()
    markdown = make_markdown(args.kb)
    with start_service(graph=True) as service:
        for i in range(20):
            service.post(
                '/v1/memories',
                {'scope': 'agent:bench', 'text': f'Note {i}: Alice owns launch {i}.'},
            )
        # a second connection: the HTTP client of one Service is one keep-alive connection
        other = Service(
            service.process,
            service.port,
            service.token,
            service.work_dir,
            service.data_dir,
            service.log_path,
            service.graph,
        )
        stop = threading.Event()
        found: list[tuple[float, float]] = []
        thread = threading.Thread(target=searches, args=(other, stop, found))
        thread.start()
        time.sleep(args.idle_seconds)
        t_start = time.monotonic()
        status: Any
        try:
            report = service.post(
                '/v1/documents',
                {'scope': 'agent:bench', 'path': 'big.md', 'markdown': markdown},
            )
            status = {'chunks': report['chunks'], 'embedded': report['embedded']}
        except Exception as exc:  # a 413 when the document is over the cap
            status = {'error': str(exc)[:200]}
        t_end = time.monotonic()
        time.sleep(args.idle_seconds)
        stop.set()
        thread.join()
    before = [lat for t, lat in found if t < t_start]
    during = [lat for t, lat in found if t_start <= t < t_end]
    after = [lat for t, lat in found if t >= t_end]
    result = {
        'document_kb': round(len(markdown.encode()) / 1024, 1),
        'index_seconds': round(t_end - t_start, 2),
        'index_result': status,
        'search_before': summary(before),
        'search_during': summary(during),
        'search_after': summary(after),
    }
    print(f'document {result["document_kb"]} KB indexed in {result["index_seconds"]} s: {status}')
    print_table(
        ['searches', 'n', 'p50 ms', 'p95 ms', 'max ms'],
        [
            [name, s['n'], s['p50_ms'], s['p95_ms'], s['max_ms']]
            for name, s in (
                ('before', result['search_before']),
                ('during indexing', result['search_during']),
                ('after (graph jobs)', result['search_after']),
            )
        ],
    )
    path = write_json(f'document_bench_{args.kb}kb', result)
    print(f'wrote {path}')


if __name__ == '__main__':
    main()
