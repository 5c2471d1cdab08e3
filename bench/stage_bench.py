"""In-process stage benchmark: `RecallService.search` per-stage time and CPU per search, no HTTP.

python bench/stage_bench.py --sizes 1000,10000                    # default pipeline, graph off
python bench/stage_bench.py --sizes 1000,10000 --graph            # `graph: true`, graph indexed
python bench/stage_bench.py --sizes 10000 --embedder hash         # store-side stages only, fast

Builds the services as `mnemos serve` does (`runtime.bootstrap.build`, fresh data dir),
grows one scope with LoCoMo turns (as `service_bench.py`: cycled, ` #n` suffix) through
`MemoryWriter.remember` in batches of 500 (jobs inline: graph extraction included), builds
the vector index, then runs `--queries` LoCoMo questions twice (`touch: false`, so the store
does not change): the first pass warms caches, the second is measured. Reported per size:
the median of each receipt stage (wall ms), the CPU ms the process spent per search
(`time.process_time`, so the dense side on a spare thread counts too) p50/p95, and wall p50/p95.

On a shared machine, wall time includes waiting for other processes; CPU time does not, so
compare CPU ms before/after a change, run in the same minute.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    locomo_questions,
    numbered_turns,
    percentile,
    print_table,
    write_json,
)

SCOPE = 'agent:bench'
BATCH = 500


def _items(count: int, start: int) -> list[Any]:
    from recall.schemas import MemoryIn

    return [
        MemoryIn(scope=SCOPE, text=f'{t.text} #{n}', created_at=t.at, metadata={'dia_id': t.dia_id})
        for n, t in numbered_turns(count, start)
    ]


def run(sizes: list[int], queries: int, graph: bool, embedder: str) -> dict[str, Any]:
    from core.auth import Principal
    from core.settings import Settings
    from recall.schemas import SearchRequest
    from runtime.bootstrap import build

    questions = locomo_questions()[:queries]
    data_dir = Path(tempfile.mkdtemp(prefix='mnemos-stage-'))
    settings = Settings(data_dir=data_dir, embedder=embedder, graph_enabled=graph)  # type: ignore[arg-type]
    services = build(settings, inline_jobs=True)
    admin = Principal(name='bench', admin=True)
    rows: list[dict[str, Any]] = []
    stored = 0
    try:
        for size in sizes:
            items = _items(size - stored, stored)
            started = time.perf_counter()
            for i in range(0, len(items), BATCH):
                services.writer.remember(items[i : i + BATCH])
            ingest_s = time.perf_counter() - started
            stored = size
            services.consolidation.vectors.optimize()
            stages: dict[str, list[float]] = {}
            cpu: list[float] = []
            wall: list[float] = []
            for measured in (False, True):
                for q in questions:
                    req = SearchRequest(query=q, scope=SCOPE, top_k=10, graph=graph, touch=False)
                    c0, w0 = time.process_time(), time.perf_counter()
                    response = services.recall.search(req, admin)
                    c1, w1 = time.process_time(), time.perf_counter()
                    if not measured:
                        continue
                    cpu.append((c1 - c0) * 1000)
                    wall.append((w1 - w0) * 1000)
                    for name, ms in response.receipt.latency_ms.items():
                        stages.setdefault(name, []).append(ms)
            rows.append(
                {
                    'size': size,
                    'ingest_s': round(ingest_s, 1),
                    'cpu_p50_ms': round(percentile(cpu, 50), 2),
                    'cpu_p95_ms': round(percentile(cpu, 95), 2),
                    'wall_p50_ms': round(percentile(wall, 50), 2),
                    'wall_p95_ms': round(percentile(wall, 95), 2),
                    **{f'{k}_ms': round(statistics.median(v), 2) for k, v in stages.items()},
                }
            )
    finally:
        services.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    return {'graph': graph, 'embedder': embedder, 'queries': queries, 'rows': rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--queries', type=int, default=200)
    parser.add_argument('--graph', action='store_true', help='graph on and `graph: true`')
    parser.add_argument('--embedder', default='minilm', choices=['minilm', 'hash'])
    parser.add_argument('--out', default='stage_bench', help='bench/results/<out>.json')
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(','))
    result = run(sizes, args.queries, args.graph, args.embedder)
    keys = sorted({k for r in result['rows'] for k in r})
    print_table(keys, [[r.get(k, '') for k in keys] for r in result['rows']])
    print('written', write_json(args.out, result))


if __name__ == '__main__':
    main()
