"""Cyclic GC collections during searches, with and without the start-up freeze, in process.

python bench/search_ab.py build --data /tmp/ab10k --size 10000        # a kept store, once
python bench/gc_pauses.py --data /tmp/ab10k --modes none,freeze --rounds 2
python bench/gc_pauses.py --fresh 10000 --modes none,freeze --rounds 2  # searches after a load
python bench/gc_pauses.py --fresh 3000 --graph --modes none,freeze      # graph extraction on

Each run is a child process (the GC state is process-wide), modes alternated `--rounds` times.
A child starts the service's composition root (`runtime.bootstrap.build`, jobs inline, graph off
or with `--graph` extraction on in process) on the kept store (`--data`) or on an empty temp
store it then grows to `--fresh` LoCoMo turns (as service_bench.py's load, batches of 500,
after start-up: the case the freeze was dropped for on 2026-11-25), applies its mode, then asks
`--queries` LoCoMo questions from `--offset` (400: the questions service_bench asks at 10k) as
service_bench does (hybrid, top_k 10, `graph: false`, `touch: false`), after 5 warm-up
questions. A `gc.callbacks` hook times every collection. Modes, joined with `+`: `none` (as
`runtime.bootstrap.build` leaves the GC), `freeze` (`runtime.gc_freeze.freeze_startup_heap`,
as `mnemos serve` calls it, right after start-up), `gen0=N` and `gen2=N` (the first or the
third of `gc.set_threshold`'s thresholds; the defaults are 700, 10, 10).

Reported per run: search wall p50/p95/p99, process CPU p50/p99, collections per generation, the
young ones' total time, full (gen-2) collections' total and longest pause, objects frozen and
still tracked at the end. JSON to bench/results/<--out>.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import locomo_questions, numbered_turns, percentile, print_table, write_json  # noqa: E402

SCOPE = 'agent:bench'
BATCH = 500
WARMUP = 5


class Pauses:
    """Every collection's generation and duration, from `gc.callbacks`."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == 'start':
            self._started = time.perf_counter()
        else:
            self.pauses.append((info['generation'], (time.perf_counter() - self._started) * 1e3))


def _apply(mode: str) -> None:
    from runtime.gc_freeze import freeze_startup_heap

    for part in mode.split('+'):
        if part == 'freeze':
            freeze_startup_heap()
        elif part.startswith('gen0='):
            gc.set_threshold(int(part.removeprefix('gen0=')), *gc.get_threshold()[1:])
        elif part.startswith('gen2='):
            gc.set_threshold(*gc.get_threshold()[:2], int(part.removeprefix('gen2=')))
        elif part != 'none':
            raise SystemExit(f'gc_pauses: unknown mode {part!r}')


def _grow(services: Any, size: int) -> None:
    from recall.schemas import MemoryIn

    items = [
        MemoryIn(scope=SCOPE, text=f'{t.text} #{n}', created_at=t.at, metadata={'dia_id': t.dia_id})
        for n, t in numbered_turns(size)
    ]
    for i in range(0, len(items), BATCH):
        services.writer.remember(items[i : i + BATCH])


def child(args: argparse.Namespace) -> dict[str, Any]:
    """One run of one mode: start, apply the mode, (grow), search; its statistics."""
    from core.auth import Principal
    from core.settings import Settings
    from recall.schemas import SearchRequest
    from runtime.bootstrap import build

    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix='gc-pauses-'))
    settings = Settings(data_dir=data, graph_enabled=args.graph)
    services = build(settings, inline_jobs=True)
    _apply(args.child)
    frozen = gc.get_freeze_count()
    if args.fresh:
        _grow(services, args.fresh)
    admin = Principal(name='bench', admin=True)
    questions = locomo_questions()[args.offset : args.offset + WARMUP + args.queries]
    pauses = Pauses()
    wall: list[float] = []
    cpu: list[float] = []
    try:
        for n, q in enumerate(questions):
            if n == WARMUP:
                gc.callbacks.append(pauses)
            req = SearchRequest(query=q, scope=SCOPE, top_k=10, graph=False, touch=False)
            t, c = time.perf_counter(), time.process_time()
            services.recall.search(req, admin)
            if n >= WARMUP:
                wall.append((time.perf_counter() - t) * 1e3)
                cpu.append((time.process_time() - c) * 1e3)
    finally:
        gc.callbacks.remove(pauses)
        services.close()
    full = [ms for gen, ms in pauses.pauses if gen == 2]
    return {
        'mode': args.child,
        'p50_ms': round(percentile(wall, 50), 2),
        'p95_ms': round(percentile(wall, 95), 2),
        'p99_ms': round(percentile(wall, 99), 2),
        'cpu_p50_ms': round(percentile(cpu, 50), 2),
        'cpu_p99_ms': round(percentile(cpu, 99), 2),
        'collections': [sum(1 for gen, _ in pauses.pauses if gen == g) for g in range(3)],
        'young_ms': round(sum(ms for gen, ms in pauses.pauses if gen < 2), 1),
        'full_ms': round(sum(full), 1),
        'full_max_ms': round(max(full, default=0.0), 1),
        'frozen': frozen,
        'tracked': len(gc.get_objects()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', help='a kept store (search_ab.py build)')
    parser.add_argument('--fresh', type=int, default=0, help='grow an empty store after start-up')
    parser.add_argument('--modes', default='none,freeze')
    parser.add_argument('--rounds', type=int, default=2)
    parser.add_argument('--queries', type=int, default=400)
    parser.add_argument('--offset', type=int, default=400)
    parser.add_argument('--graph', action='store_true', help='graph extraction on (in process)')
    parser.add_argument('--out', default='gc_pauses')
    parser.add_argument('--child', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if bool(args.data) == bool(args.fresh):
        raise SystemExit('gc_pauses: give --data or --fresh')
    if args.child:
        print(json.dumps(child(args)))
        return 0
    runs: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        for mode in args.modes.split(','):
            store = ['--data', args.data] if args.data else ['--fresh', str(args.fresh)]
            counts = ['--queries', str(args.queries), '--offset', str(args.offset)]
            counts += ['--graph'] if args.graph else []
            out = subprocess.run(
                [sys.executable, __file__, *store, *counts, '--child', mode],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
            print(runs[-1], flush=True)
    keys = ['mode', 'p50_ms', 'p95_ms', 'p99_ms', 'cpu_p50_ms', 'cpu_p99_ms', 'collections']
    keys += ['young_ms']
    keys += ['full_ms', 'full_max_ms', 'frozen', 'tracked']
    print_table(keys, [[r[k] for k in keys] for r in runs])
    print('written', write_json(args.out, {'args': vars(args), 'runs': runs}))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
