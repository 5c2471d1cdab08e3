"""Search results and stage times over one kept store, for comparing two code trees.

python bench/search_ab.py build --data /tmp/ab10k --size 10000      # once (~2 min)
python bench/search_ab.py run --data /tmp/ab10k --out search_ab_main  # ranked hits + stage medians
python bench/search_ab.py compare search_ab_main search_ab_lat       # 0 differences expected
PYTHONPATH=<other tree> python <other tree>/bench/search_ab.py run ...  # the other code

`build` grows one scope with LoCoMo turns as `stage_bench.py` does (the service's composition
root, `runtime.bootstrap.build`, graph off, jobs inline, cycled turns with a ` #n` suffix) under
a fixed clock, and optimises the index. `run` opens the kept store under the same fixed clock
(decay reads the clock, so two runs score alike only at the same moment), asks `--queries`
LoCoMo questions from `--offset` (400: the questions service_bench asks at 10k) as
service_bench does (hybrid, top_k 10, `graph: false`, `touch: false`) `--passes` times, and
writes every question's ranked hits (id, score) and each pass's receipt stage medians to
bench/results/<out>.json. The first pass warms the embedding cache, so later passes' `embed`
is a cache hit; `--cold-embed` clears that cache before every pass. `cpu_p50_ms` is the
process's CPU time per search (both threads) and `cpu_<stage>` each stage's thread CPU time
(`cpu_rank` with the policy and the hits built): on a shared machine they move less than wall
time. `--profile` writes a
cProfile of the last pass to bench/results/<out>.prof. `compare` reports every question whose
ids, order or scores (to 1e-9) differ.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    RESULTS_DIR,
    locomo_questions,
    numbered_turns,
    percentile,
    write_json,
)

SCOPE = 'agent:bench'
BATCH = 500
MOMENT = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
TOLERANCE = 1e-9


def _services(data: Path) -> Any:
    from core.clock import ManualClock
    from core.settings import Settings
    from runtime.bootstrap import build

    settings = Settings(data_dir=data, graph_enabled=False)
    return build(settings, clock=ManualClock(MOMENT), inline_jobs=True)


def build_store(data: Path, size: int) -> None:
    """Grow one scope to `size` LoCoMo turns in a fresh data dir and optimise its index."""
    from recall.schemas import MemoryIn

    services = _services(data)
    try:
        items = [
            MemoryIn(
                scope=SCOPE, text=f'{t.text} #{n}', created_at=t.at, metadata={'dia_id': t.dia_id}
            )
            for n, t in numbered_turns(size)
        ]
        started = time.perf_counter()
        for i in range(0, len(items), BATCH):
            services.writer.remember(items[i : i + BATCH])
        services.consolidation.vectors.optimize()
        print(f'built {size} in {time.perf_counter() - started:.1f} s: {data}')
    finally:
        services.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every question's ranked hits, and stage medians and wall times per pass."""
    from core.auth import Principal
    from recall.schemas import SearchRequest

    questions = locomo_questions()[args.offset : args.offset + args.queries]
    services = _services(Path(args.data))
    admin = Principal(name='bench', admin=True)
    hits: dict[str, list[tuple[str, float]]] = {}
    passes: list[dict[str, Any]] = []
    profiler = cProfile.Profile() if args.profile else None
    cpu_stages = StageCpu()
    cpu_stages.install()
    try:
        for n in range(args.passes):
            if args.cold_embed:
                _clear_embedding_cache(services)
            last = n == args.passes - 1
            stages: dict[str, list[float]] = {}
            wall: list[float] = []
            cpu: list[float] = []
            if profiler is not None and last:
                profiler.enable()
            for q in questions:
                req = SearchRequest(query=q, scope=SCOPE, top_k=10, graph=False, touch=False)
                t, c = time.perf_counter(), time.process_time()
                response = services.recall.search(req, admin)
                wall.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
                for name, ms in [*response.receipt.latency_ms.items(), *cpu_stages.take().items()]:
                    stages.setdefault(name, []).append(ms)
                hits[q] = [(h.id, h.score) for h in response.hits]
            if profiler is not None and last:
                profiler.disable()
            passes.append(
                {
                    'wall_p50_ms': round(percentile(wall, 50), 3),
                    'cpu_p50_ms': round(percentile(cpu, 50), 3),
                    **{k: round(statistics.median(v), 3) for k, v in stages.items()},
                }
            )
    finally:
        services.close()
    if profiler is not None:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(str(RESULTS_DIR / f'{args.out}.prof'))
    import recall

    tree = str(Path(recall.__file__).resolve().parents[1])
    return {
        'tree': tree,
        'offset': args.offset,
        'queries': len(questions),
        'passes': passes,
        'hits': hits,
    }


class StageCpu:
    """Thread CPU ms per stage of each search, by wrapping the stages' functions (the
    receipts' stage times are wall times, which a shared machine's load moves more)."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}
        self._depth = threading.local()

    def wrap(self, owner: Any, name: str, stage: Callable[..., str]) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._depth, 'n', 0)
            self._depth.n = depth + 1
            t = time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                self._depth.n = depth
                if depth == 0:  # the outermost stage function of this thread
                    label = stage(*args, **kwargs)
                    spent = (time.thread_time() - t) * 1000
                    self.current[label] = self.current.get(label, 0.0) + spent

        setattr(owner, name, timed)

    def install(self) -> None:
        from recall.read import channels, search

        # the store query of a channel (partial(vectors.query, collection, channel, ...))
        self.wrap(channels, 'stable_top', lambda *a, **k: f'cpu_{a[0].args[1]}')
        self.wrap(channels.ChannelReader, '_context_channel', lambda *a, **k: 'cpu_context')
        self.wrap(channels.ChannelReader, '_neighbour_payloads', lambda *a, **k: 'cpu_context')
        self.wrap(channels, '_fuse', lambda *a, **k: 'cpu_fuse')
        self.wrap(search, 'rank', lambda *a, **k: 'cpu_rank')
        self.wrap(search, 'apply_policy', lambda *a, **k: 'cpu_rank')

    def take(self) -> dict[str, float]:
        out, self.current = self.current, {}
        return out


def _clear_embedding_cache(services: Any) -> None:
    embedder = services.recall._searcher._reader._embedder  # noqa: SLF001
    for lru in (getattr(embedder, '_queries', None), getattr(embedder, '_documents', None)):
        if lru is not None:
            lru.items.clear()


def compare(a: str, b: str) -> int:
    """Print each question whose hits differ between two runs' outputs; the count."""
    left = json.loads((RESULTS_DIR / f'{a}.json').read_text())['hits']
    right = json.loads((RESULTS_DIR / f'{b}.json').read_text())['hits']
    differ = 0
    for q in sorted(set(left) | set(right)):
        x, y = left.get(q), right.get(q)
        same = (
            x is not None
            and y is not None
            and len(x) == len(y)
            and all(i == j and abs(s - t) <= TOLERANCE for (i, s), (j, t) in zip(x, y, strict=True))
        )
        if not same:
            differ += 1
            print(f'differs: {q!r}\n  {x}\n  {y}')
    print(f'{len(set(left) | set(right))} questions, {differ} differ')
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    b = sub.add_parser('build')
    b.add_argument('--data', required=True)
    b.add_argument('--size', type=int, default=10000)
    r = sub.add_parser('run')
    r.add_argument('--data', required=True)
    r.add_argument('--out', required=True)
    r.add_argument('--offset', type=int, default=400)
    r.add_argument('--queries', type=int, default=400)
    r.add_argument('--passes', type=int, default=3)
    r.add_argument('--cold-embed', action='store_true')
    r.add_argument('--profile', action='store_true')
    c = sub.add_parser('compare')
    c.add_argument('a')
    c.add_argument('b')
    args = parser.parse_args()
    if args.command == 'build':
        build_store(Path(args.data), args.size)
        return 0
    if args.command == 'compare':
        return 1 if compare(args.a, args.b) else 0
    result = run(args)
    print('code from', result['tree'])
    for n, p in enumerate(result['passes']):
        print(f'pass {n}: ' + ', '.join(f'{k} {v}' for k, v in p.items()))
    print('written', write_json(args.out, result))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
