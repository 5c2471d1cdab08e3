"""How long a search waits while the Edge store builds its index or compacts (in-process).

Fills an `EdgeVectorStore` with `--points` random 384-d points (with a sparse vector and a short
payload), then runs a search loop on one thread while the main thread runs `optimize()` (the index
build) and then `compact()` (forget's rewrite). Reports each phase's search count and the longest
and p99 wait of one search, and writes bench/results/build_wait_bench.json.

    python bench/build_wait_bench.py --points 30000
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from _common import percentile, print_table, write_json

from vectors.edge import EdgeVectorStore
from vectors.models import CollectionSpec, PointFilter, SparseVector, VectorPoint

DIM = 384
SPEC = CollectionSpec(name='memories', dense_dim=DIM, keyword_fields=('scope',))


def _points(count: int) -> list[VectorPoint]:
    rng = random.Random(7)
    return [
        VectorPoint(
            id=str(uuid.UUID(int=rng.getrandbits(128))),
            dense=[rng.random() for _ in range(DIM)],
            sparse=SparseVector(indices=[rng.randrange(50_000)], values=[1.0]),
            payload={'scope': 'agent:b', 'text': f'point {i}'},
        )
        for i in range(count)
    ]


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
    return {
        'seconds': round(took, 2),
        'searches': len(waits),
        'max_wait_s': round(max(waits), 3),
        'p99_wait_s': round(percentile(waits, 99), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--points', type=int, default=30_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix='build-wait-'))
    store = EdgeVectorStore(root, auto_optimize=False, max_segment_kb=40_000)
    store.ensure_collection(SPEC)
    points = _points(args.points)
    for start in range(0, len(points), 1000):
        store.upsert('memories', points[start : start + 1000])
    rows = {'optimize': _phase(store, store.optimize)}
    store.delete('memories', [p.id for p in points[: args.points // 10]])
    rows['compact'] = _phase(store, store.compact)
    store.close()
    print_table(
        ['phase', 'seconds', 'searches', 'max wait s', 'p99 wait s'],
        [
            [name, r['seconds'], r['searches'], r['max_wait_s'], r['p99_wait_s']]
            for name, r in rows.items()
        ],
    )
    write_json('build_wait_bench', {'points': args.points, **rows})


if __name__ == '__main__':
    main()
