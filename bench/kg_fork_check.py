"""Does a Kuzu fork walk the graph as Kuzu does? 2-hop walks on kg_bench's 100k/300k graph.

Importing kuzu and a fork in one process segfaults, so each backend dumps in its own venv:

    python bench/kg_fork_check.py bench/results/fork_kuzu.json
    python3.11 -m venv /tmp/lb && /tmp/lb/bin/pip install ladybug pydantic pyarrow networkx \
        numpy rapidfuzz python-dateutil
    mkdir -p /tmp/lbshim && echo 'from ladybug import *' > /tmp/lbshim/kuzu.py
    PYTHONPATH=/tmp/lbshim /tmp/lb/bin/python bench/kg_fork_check.py bench/results/fork_lb.json
    python bench/kg_fork_check.py --compare bench/results/fork_kuzu.json bench/results/fork_lb.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

N_ENTITIES, N_RELATIONS, SEED_SETS = 100_000, 300_000, 40


def dump(out: Path) -> None:
    """Load kg_bench's synthetic graph through KuzuGraphStore; write every walk's relation ids."""
    import kuzu

    from bench.kg_bench import SYNTHETIC_NOW, synthetic_graph
    from kg.kuzu_store import KuzuGraphStore

    rng = random.Random(7)
    entities, relations, mentions = synthetic_graph(rng, N_ENTITIES, N_RELATIONS)
    with tempfile.TemporaryDirectory() as tmp:
        store = KuzuGraphStore(Path(tmp) / 'g.kuzu')
        t = time.perf_counter()
        for i in range(0, N_ENTITIES, 50_000):
            store.upsert_entities(entities[i : i + 50_000])
        store.add_relations(relations)
        store.add_mentions(mentions)
        load_s = time.perf_counter() - t
        walks = {}
        for k in range(SEED_SETS):
            seeds = [f'e{rng.randrange(N_ENTITIES)}' for _ in range(rng.randint(1, 8))]
            for when in (SYNTHETIC_NOW, SYNTHETIC_NOW - timedelta(days=900)):
                found = store.neighbourhood(seeds, 2, when, max_edges=100_000)
                walks[f'{k}@{when.date()}'] = sorted(r.id for r in found)
        store.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({'backend': kuzu.__file__, 'load_s': load_s, 'walks': walks}))
    print(f'{kuzu.__file__}: loaded in {load_s:.1f} s, {sum(map(len, walks.values()))} rows')


def compare(a: Path, b: Path) -> None:
    """Print how many walks agree, and the first that does not."""
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    keys = sorted(left['walks'])
    same = [k for k in keys if left['walks'][k] == right['walks'].get(k)]
    rows = sum(len(v) for v in left['walks'].values())
    print(f'{"backend":<60} {"load s":>7}')
    for side in (left, right):
        print(f'{side["backend"]:<60} {side["load_s"]:>7.1f}')
    print(f'walks identical: {len(same)} of {len(keys)} ({rows} relation rows)')
    for k in keys:
        if k not in same:
            print(f'first difference: {k}: {len(left["walks"][k])} vs {len(right["walks"][k])}')
            break


def main() -> None:
    """Dump with the interpreter's kuzu module, or compare two dumps."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('out', nargs='?', type=Path, help="where to write this backend's walks")
    ap.add_argument('--compare', nargs=2, type=Path, metavar=('A', 'B'))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.out:
        dump(args.out)
    else:
        ap.error('give OUT or --compare A B')


if __name__ == '__main__':
    main()
