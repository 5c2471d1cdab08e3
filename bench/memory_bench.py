"""Memory benchmark: resident memory of the embedded service, step by step, per component.

python bench/memory_bench.py --sizes 1000,10000                     # defaults, graph on
python bench/memory_bench.py --sizes 10000 --no-graph --vector-storage mmap --quantization int8

In this process (no HTTP): RSS after importing the code, after building the services (models
loaded: embedder, spaCy, Kuzu with its buffer pool), then after each growth of one scope (LoCoMo
turns, ` #n` suffix, batches of 500, graph extraction inline when on), after building the vector
index, and after 100 searches. The growth between steps is what each component costs: models,
vectors + payloads (Edge), graph (Kuzu buffer pool + the in-memory mirror), caches.
JSON to bench/results/<--out>.json.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import load_locomo, print_table, write_json  # noqa: E402


def rss_mb(key: str = 'VmRSS') -> float:
    """This process's resident memory in MB (`RssAnon`: heap; `RssFile`: mapped files)."""
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith(f'{key}:'):
            return int(line.split()[1]) / 1024.0
    return float('nan')


def _step(name: str) -> tuple[str, float, float, float]:
    return name, rss_mb(), rss_mb('RssAnon'), rss_mb('RssFile')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='1000,10000')
    parser.add_argument('--no-graph', action='store_true')
    parser.add_argument('--embedder', default='minilm', choices=['minilm', 'hash'])
    parser.add_argument('--vector-storage', default='ram', choices=['ram', 'mmap'])
    parser.add_argument('--quantization', default='none', choices=['none', 'int8'])
    parser.add_argument('--kuzu-buffer-pool-mb', type=int, default=256)
    parser.add_argument('--out', default='memory_bench')
    args = parser.parse_args()

    steps: list[tuple[str, float, float, float]] = [_step('python')]
    from bench.stage_bench import BATCH, SCOPE, _items
    from core.auth import Principal
    from core.settings import Settings
    from recall.schemas import SearchRequest
    from runtime.bootstrap import build

    steps.append(_step('imports'))
    data_dir = Path(tempfile.mkdtemp(prefix='mnemos-mem-'))
    settings = Settings(
        data_dir=data_dir,
        embedder=args.embedder,
        graph_enabled=not args.no_graph,
        vector_storage=args.vector_storage,
        vector_quantization=args.quantization,
        kuzu_buffer_pool_mb=args.kuzu_buffer_pool_mb,
        extract_workers=0,
    )
    services = build(settings, inline_jobs=True)
    steps.append(_step('services built (models loaded)'))
    questions = [q.question for c in load_locomo() for q in c.questions][:100]
    admin = Principal(name='bench', admin=True)
    stored = 0
    try:
        for size in sorted(int(s) for s in args.sizes.split(',')):
            items = _items(size - stored, stored)
            for i in range(0, len(items), BATCH):
                services.writer.remember(items[i : i + BATCH])
            stored = size
            steps.append(_step(f'{size} written'))
            services.consolidation.vectors.optimize()
            steps.append(_step(f'{size} indexed'))
            for q in questions:
                req = SearchRequest(query=q, scope=SCOPE, graph=not args.no_graph, touch=False)
                services.recall.search(req, admin)
            steps.append(_step(f'{size} after 100 searches'))
    finally:
        services.close()
        disk = sum(f.stat().st_size for f in data_dir.rglob('*') if f.is_file()) / 2**20
        shutil.rmtree(data_dir, ignore_errors=True)
    rows: list[list[Any]] = []
    previous = 0.0
    for name, mb, anon, mapped in steps:
        rows.append([name, round(mb, 1), round(mb - previous, 1), round(anon, 1), round(mapped, 1)])
        previous = mb
    print_table(['step', 'rss MB', 'delta MB', 'anon MB', 'file MB'], rows)
    print(f'data dir on disk: {disk:.0f} MB')
    result = {
        'settings': vars(args),
        'steps': {name: {'rss': mb, 'anon': a, 'file': f} for name, mb, a, f in steps},
        'disk_mb': round(disk, 1),
    }
    print('written', write_json(args.out, result))


if __name__ == '__main__':
    main()
