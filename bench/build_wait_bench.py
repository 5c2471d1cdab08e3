"""How long a search waits while the Edge store builds its index or compacts (in-process).

Fills an `EdgeVectorStore` with `--points` random 384-d points (with a sparse vector and a short
payload), then runs a search loop on one thread while the main thread runs `optimize()` (the index
build) and then `compact()` (forget's rewrite). Reports each phase's search count and the longest
and p99 wait of one search, this process's RSS after the phase and the peak RSS of the phase's
child processes (the index build runs in one), and writes bench/results/build_wait_bench.json.

    python bench/build_wait_bench.py --points 30000
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _common import percentile, print_table, write_json

from vectors.edge import EdgeVectorStore
from vectors.models import CollectionSpec, PointFilter, SparseVector, VectorPoint

DIM = 384
SPEC = CollectionSpec(name='memories', dense_dim=DIM, keyword_fields=('scope',))


def _points(count: int, batch: int = 1000) -> Iterator[list[VectorPoint]]:
    """The points in batches, made as they are stored (100k lists of 384 floats would hold
    ~1.5 GB of this process's RSS)."""
    rng = random.Random(7)
    for start in range(0, count, batch):
        yield [
            VectorPoint(
                id=str(uuid.UUID(int=rng.getrandbits(128))),
                dense=[rng.random() for _ in range(DIM)],
                sparse=SparseVector(indices=[rng.randrange(50_000)], values=[1.0]),
                payload={'scope': 'agent:b', 'text': f'point {i}'},
            )
            for i in range(start, min(count, start + batch))
        ]


def _rss_mb() -> float:
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    return 0.0


def _phase(store: EdgeVectorStore, work: Any) -> dict[str, Any]:
    waits: list[float] = []
    done = threading.Event()
    query = [random.random() for _ in range(DIM)]
    flt = PointFilter(scopes=['agent:b'])

    def search() -> None:
        while not done.is_set():
            started = time.perf_counter()
            store.query('memories', 'dense', query, flt, 10)
            waits.append(time.perf_counter() - started)

    searcher = threading.Thread(target=search)
    searcher.start()
    time.sleep(0.5)  # searches before the work starts
    started = time.perf_counter()
    work()
    took = time.perf_counter() - started
    time.sleep(0.5)
    done.set()
    searcher.join()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        'seconds': round(took, 2),
        'searches': len(waits),
        'max_wait_s': round(max(waits), 3),
        'p99_wait_s': round(percentile(waits, 99), 4),
        'rss_mb': round(_rss_mb()),
        # peak of the children that ended so far (Linux: kilobytes)
        'children_peak_rss_mb': round(children.ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--points', type=int, default=30_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix='build-wait-'))
    store = EdgeVectorStore(root, auto_optimize=False, max_segment_kb=40_000)
    store.ensure_collection(SPEC)
    started = time.perf_counter()
    forgotten: list[str] = []  # the tenth deleted before the compaction
    for batch in _points(args.points):
        store.upsert('memories', batch)
        if len(forgotten) < args.points // 10:
            forgotten.extend(p.id for p in batch[: args.points // 10 - len(forgotten)])
    loaded = {'seconds': round(time.perf_counter() - started, 1), 'rss_mb': round(_rss_mb())}
    rows = {'optimize': _phase(store, store.optimize)}
    store.delete('memories', forgotten)
    rows['compact'] = _phase(store, store.compact)
    store.close()
    print(f'loaded {args.points} points in {loaded["seconds"]} s, RSS {loaded["rss_mb"]} MB')
    print_table(
        ['phase', 'seconds', 'searches', 'max wait s', 'p99 wait s', 'RSS MB', 'child peak MB'],
        [
            [
                name,
                r['seconds'],
                r['searches'],
                r['max_wait_s'],
                r['p99_wait_s'],
                r['rss_mb'],
                r['children_peak_rss_mb'],
            ]
            for name, r in rows.items()
        ],
    )
    write_json('build_wait_bench', {'points': args.points, 'load': loaded, **rows})


if __name__ == '__main__':
    main()
