"""Startup benchmark: `mnemos serve` on a kept data dir, process start to healthy and to the
first search's answer, for one or more code trees, with and without bytecode written.

python bench/service_bench.py --sizes 10000 --no-graph --keep-data /tmp/data10k   # the store
python bench/startup_bench.py --data /tmp/data10k --tree main=/work/main --tree new=.
python bench/startup_bench.py --tree old=/tmp/old41@/tmp/old10k --tree new=.@/tmp/new10k

Each tree runs with `PYTHONPATH=<tree>` (the venv's `mnemos` script imports the tree's code), on
`--data` or on its own store (`NAME=TREE@DATA`: a store the same code grew, as service_bench.py's
restart finds it; an older tree may not read a newer tree's store).
Modes: `nobytecode` sets `PYTHONDONTWRITEBYTECODE=1` (every start compiles every source, as on
the reference machine); `bytecode` unsets it and points `PYTHONPYCACHEPREFIX` at a cache dir of
this run (one per tree), as a user's machine that writes `__pycache__` finds it from the second
start on. One uncounted start per tree and mode first (fills that cache and the page cache);
then `--runs` rounds, every tree and mode once per round in turn, so a busy moment of the
machine falls on all of them alike. Each start asks a question no other start asked (the
service's embedding cache never answers the first search).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    cpu_seconds,
    locomo_questions,
    median,
    print_table,
    start_service,
)

SCOPE = 'agent:bench'  # the scope service_bench.py writes
MODES = ('nobytecode', 'bytecode')


def one_start(tree: Path, mode: str, data: Path, cache: Path, question: str) -> dict[str, float]:
    """Start the service from `tree` on `data`, time healthy and the first search; stop it."""
    env = {'KG_DATA_DIR': str(data), 'PYTHONPATH': str(tree)}
    if mode == 'bytecode':
        env.update({'PYTHONDONTWRITEBYTECODE': '', 'PYTHONPYCACHEPREFIX': str(cache)})
    else:
        env.update({'PYTHONDONTWRITEBYTECODE': '1', 'PYTHONPYCACHEPREFIX': ''})
    started = time.perf_counter()
    service = start_service(graph=False, env=env)
    try:
        healthy = time.perf_counter() - started
        cpu_healthy = cpu_seconds(service.pid)
        t = time.perf_counter()
        service.post(
            '/v1/memory_search', {'query': question, 'scope': SCOPE, 'top_k': 10, 'graph': False}
        )
        first = time.perf_counter() - t
        cpu_first = cpu_seconds(service.pid)
    finally:
        service.stop()  # the data dir is not the service's temp dir: it stays
    return {
        'healthy_s': healthy,
        'first_search_ms': first * 1000.0,
        'first_answer_s': healthy + first,
        # the service's CPU time (all its threads) when healthy and after the first search: a
        # busy machine stretches the wall times above far more than these
        'cpu_healthy_s': cpu_healthy,
        'cpu_first_answer_s': cpu_first,
    }


def run(trees: dict[str, tuple[Path, Path]], modes: list[str], runs: int) -> dict[str, Any]:
    """Warm-up starts, then `runs` interleaved rounds; every start's figures and the medians."""
    questions = iter(locomo_questions()[::-1])  # from the end: service_bench asks the first ones
    caches = {name: Path(tempfile.mkdtemp(prefix=f'mnemos-pyc-{name}-')) for name in trees}
    samples: dict[str, list[dict[str, float]]] = {f'{n} {m}': [] for n in trees for m in modes}
    for name, (tree, data) in trees.items():
        for mode in modes:
            one_start(tree, mode, data, caches[name], next(questions))
    for round_ in range(runs):
        for name, (tree, data) in trees.items():
            for mode in modes:
                row = one_start(tree, mode, data, caches[name], next(questions))
                samples[f'{name} {mode}'].append(row)
                print(
                    f'round {round_ + 1} {name} {mode}: healthy {row["healthy_s"]:.2f} s, '
                    f'first search {row["first_search_ms"]:.1f} ms, CPU {row["cpu_healthy_s"]:.2f} '
                    f'/ {row["cpu_first_answer_s"]:.2f} s',
                    flush=True,
                )
    medians = {
        key: {k: round(median([r[k] for r in rows]), 3) for k in rows[0]}
        for key, rows in samples.items()
    }
    return {
        'trees': {n: {'code': str(t), 'data': str(d)} for n, (t, d) in trees.items()},
        'samples': samples,
        'medians': medians,
    }


def main(argv: list[str] | None = None) -> int:
    """Parse flags, run, print the medians, write bench/results/startup_bench.json."""
    from bench._common import write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--data', type=Path, help='a kept data dir (a 10k store) for every tree')
    parser.add_argument(
        '--tree',
        action='append',
        default=[],
        metavar='NAME=PATH[@DATA]',
        help='a code tree to start, on its own data dir if given (repeat); default: this '
        'checkout as `here`',
    )
    parser.add_argument('--runs', type=int, default=5, help='interleaved rounds (default 5)')
    parser.add_argument(
        '--modes', default=','.join(MODES), help=f'comma-separated, of {MODES} (default both)'
    )
    args = parser.parse_args(argv)
    trees: dict[str, tuple[Path, Path]] = {}
    for spec in args.tree or [f'here={ROOT}']:
        name, _, rest = spec.partition('=')
        path, _, data = rest.partition('@')
        store = Path(data) if data else args.data
        if not path or store is None:
            parser.error(f'--tree wants NAME=PATH@DATA, or NAME=PATH and --data; got {spec!r}')
        if not (store / 'vectors').is_dir():
            parser.error(f'{store} holds no store (vectors/)')
        trees[name] = (Path(path).resolve(), store.resolve())
    modes = [m for m in args.modes.split(',') if m]
    if not modes or any(m not in MODES for m in modes):
        parser.error(f'--modes: a comma-separated list of {MODES}')
    result = run(trees, modes, args.runs)
    print()
    print_table(
        [
            'tree mode',
            'healthy s',
            'first search ms',
            'first answer s',
            'CPU healthy s',
            'CPU 1st s',
        ],
        [
            [
                key,
                m['healthy_s'],
                m['first_search_ms'],
                m['first_answer_s'],
                m['cpu_healthy_s'],
                m['cpu_first_answer_s'],
            ]
            for key, m in result['medians'].items()
        ],
    )
    result['command'] = ' '.join(['python', 'bench/startup_bench.py', *sys.argv[1:]])
    path = write_json('startup_bench', result)
    print(f'\nwrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
