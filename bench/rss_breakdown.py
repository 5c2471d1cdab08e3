"""RSS breakdown: where the embedded service's resident memory goes, per component, as it grows.

python bench/rss_breakdown.py --sizes 5000,10000,20000            # default pipeline, graph on
python bench/rss_breakdown.py --sizes 5000,10000,20000 --no-graph
python bench/rss_breakdown.py --sizes 5000 --tracemalloc          # + Python heap top sites

In this process (no HTTP), as `memory_bench.py`: `runtime.bootstrap.build` on a temp data dir,
one scope grown with LoCoMo turns (` #n` suffix, batches of 500, jobs inline). At each size:

- RSS from /proc/self/smaps grouped by mapping: anonymous (malloc heap of Python, Kuzu,
  Qdrant Edge, ONNX: one pool, glibc does not tell them apart), Kuzu files, Qdrant Edge segment
  files, shared libraries / model files;
- glibc `mallinfo2`: bytes malloc has handed out vs. held free in its arenas, and the RSS that
  `malloc_trim(0)` gives back (fragmentation, not live data);
- `tracemalloc`'s traced total (Python objects + numpy buffers), when `--tracemalloc`;
- the deep size and length of the in-memory structures: graph mirror dicts, the KG name indexes,
  the extractor's vote/lemma dicts, the embedding LRU, the BM25 / context lru_caches, the
  writer's last-in-scope dict, the inline job store, spaCy's vocabulary.

Between two sizes, (delta MB / delta chunks) is each component's cost per chunk; the last
column projects it to 100k. JSON to bench/results/<--out>.json.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            'arena',
            'ordblks',
            'smblks',
            'hblks',
            'hblkhd',
            'usmblks',
            'fsmblks',
            'uordblks',
            'fordblks',
            'keepcost',
        )
    ]


_libc = ctypes.CDLL('libc.so.6')
_libc.mallinfo2.restype = _MallInfo2

MB = 2**20


def smaps_groups(data_dir: Path) -> dict[str, float]:
    """Resident MB per mapping group, from /proc/self/smaps."""
    groups: dict[str, float] = {}
    name = ''
    for line in Path('/proc/self/smaps').read_text().splitlines():
        head = line.split(maxsplit=5)
        if not head:
            continue
        if '-' in head[0] and not head[0].endswith(':'):
            path = head[5] if len(head) > 5 else ''
            lo, hi = (int(x, 16) for x in head[0].split('-'))
            if path == '[heap]':
                name = 'anon: [heap] (main malloc arena)'
            elif not path and hi - lo >= 2**30:
                # Kuzu reserves its buffer pool's frames as one huge virtual region
                name = 'anon: >= 1 GB reservation (kuzu buffer pool)'
            elif not path or path.startswith('['):
                # thread malloc arenas, large mallocs, onnxruntime's arena, Rust threads
                name = 'anon: other mmap (thread arenas, large mallocs)'
            elif str(data_dir) in path and ('kuzu' in path.lower() or path.endswith('.kz')):
                name = 'file: kuzu'
            elif str(data_dir) in path:
                name = 'file: qdrant edge / other data'
            elif path.endswith('.onnx') or 'onnx' in path:
                name = 'file: onnx'
            else:
                name = 'file: libs/models'
        elif head[0] == 'Rss:':
            groups[name] = groups.get(name, 0.0) + int(head[1]) / 1024.0
    return groups


def deep_size(obj: Any, seen: set[int] | None = None) -> int:
    """Bytes of `obj` and everything it holds (containers, numpy buffers, pydantic fields)."""
    import numpy as np

    seen = set() if seen is None else seen
    stack = [obj]
    total = 0
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)  # an ndarray that owns its buffer counts it here
        if isinstance(o, np.ndarray):
            continue
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, list | tuple | set | frozenset):
            stack.extend(o)
        elif hasattr(o, '__pydantic_fields__'):
            stack.append(o.__dict__)
        elif hasattr(o, '__dict__') and not isinstance(o, type):
            pass  # service objects: only the attributes asked for are measured
    return total


def _instances(cls_name: str) -> list[Any]:
    return [o for o in gc.get_objects() if type(o).__name__ == cls_name]


def structures() -> dict[str, tuple[int, float]]:
    """(length, deep MB) of each in-memory structure that can grow with the store."""
    out: dict[str, tuple[int, float]] = {}
    for m in _instances('MirroredGraphStore'):
        for attr in ('_entities', '_rels', '_adjacent', '_mentions', '_sources'):
            value = getattr(m, attr)
            out[f'kg mirror {attr}'] = (len(value), deep_size(value) / MB)
    for svc in _instances('KnowledgeGraphService'):
        indexes = getattr(svc, '_indexes', {})
        n = sum(len(ix.entities) for ix in indexes.values())
        out['kg name indexes'] = (n, deep_size([ix.__dict__ for ix in indexes.values()]) / MB)
    for ex in _instances('SpacyExtractor'):
        for attr in ('_votes', '_lemmas'):
            value = getattr(ex, attr, {})
            out[f'extractor {attr}'] = (len(value), deep_size(value) / MB)
        nlp = getattr(ex, '_nlp', None)
        if nlp is not None:
            out['spacy vocab (lexemes, strings)'] = (len(nlp.vocab.strings), float('nan'))
    for emb in _instances('CachedEmbedder'):
        held = [emb._queries.items, emb._documents.items]
        out['embedding LRUs (queries, documents)'] = (len(emb), deep_size(held) / MB)
    for w in _instances('ChunkStore'):
        out['writer _last_in_scope'] = (len(w._last_in_scope), deep_size(w._last_in_scope) / MB)
    for store in _instances('InMemoryJobStore'):
        size = deep_size([store._jobs, store._params, store._leases, store._locks]) / MB
        out['inline job store'] = (len(store._jobs), size)
    from recall.read import context
    from vectors import bm25

    for name, fn in (
        ('bm25 _stem lru', bm25._stem),
        ('bm25 term_id lru', bm25.term_id),
        ('context _terms_of lru', context._terms_of),
    ):
        out[name] = (fn.cache_info().currsize, float('nan'))
    return out


def snapshot(data_dir: Path, traced: bool) -> dict[str, Any]:
    """Every measure at this moment."""
    gc.collect()
    info = _libc.mallinfo2()
    snap: dict[str, Any] = {
        'smaps': smaps_groups(data_dir),
        'malloc_in_use_mb': info.uordblks / MB + info.hblkhd / MB,
        'malloc_free_mb': info.fordblks / MB,
        'structures': {k: list(v) for k, v in structures().items()},
    }
    snap['rss_mb'] = sum(snap['smaps'].values())
    if traced:
        import tracemalloc

        snap['tracemalloc_mb'] = tracemalloc.get_traced_memory()[0] / MB
        top = tracemalloc.take_snapshot().statistics('lineno')[:15]
        snap['tracemalloc_top'] = [(str(s.traceback), s.size / MB, s.count) for s in top]
    _libc.malloc_trim(0)
    snap['rss_after_trim_mb'] = sum(smaps_groups(data_dir).values())
    return snap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='5000,10000,20000')
    parser.add_argument('--no-graph', action='store_true')
    parser.add_argument('--tracemalloc', action='store_true')
    parser.add_argument(
        '--service-mode',
        action='store_true',
        help='as `mnemos serve`: jobs on dramatiq worker threads, spaCy worker processes, '
        'writes from 4 request threads',
    )
    parser.add_argument('--out', default='rss_breakdown')
    args = parser.parse_args()

    from bench.stage_bench import BATCH, _items
    from core.settings import Settings
    from runtime.bootstrap import build

    data_dir = Path(tempfile.mkdtemp(prefix='mnemos-rss-'))
    if args.service_mode:
        settings = Settings(data_dir=data_dir, graph_enabled=not args.no_graph)
    else:
        settings = Settings(data_dir=data_dir, graph_enabled=not args.no_graph, extract_workers=0)
    services = build(settings, inline_jobs=not args.service_mode)
    pool = ThreadPoolExecutor(4) if args.service_mode else None
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start(1)
    snaps: dict[int, dict[str, Any]] = {0: snapshot(data_dir, args.tracemalloc)}
    stored = 0
    t0 = time.monotonic()
    try:
        for size in sorted(int(s) for s in args.sizes.split(',')):
            items = _items(size - stored, stored)
            batches = [items[i : i + BATCH] for i in range(0, len(items), BATCH)]
            if pool is not None:
                list(pool.map(services.writer.remember, batches))
                # the embedded DramatiqJobQueue: graph extraction runs after `remember` returns
                getattr(services.jobs, 'wait_idle', lambda _t: None)(1800)
            else:
                for batch in batches:
                    services.writer.remember(batch)
            services.consolidation.vectors.optimize()
            stored = size
            snaps[size] = snapshot(data_dir, args.tracemalloc)
            snaps[size]['elapsed_s'] = round(time.monotonic() - t0, 1)
            print(f'{size} chunks: rss {snaps[size]["rss_mb"]:.0f} MB', flush=True)
    finally:
        services.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    _report(snaps, args)


def _r(value: float, digits: int) -> float | str:
    return '-' if value != value else round(value, digits)


def _report(snaps: dict[int, dict[str, Any]], args: argparse.Namespace) -> None:
    sizes = sorted(snaps)
    first, last = snaps[sizes[1] if len(sizes) > 2 else sizes[0]], snaps[sizes[-1]]
    span = sizes[-1] - (sizes[1] if len(sizes) > 2 else sizes[0])
    rows: list[list[Any]] = []

    def row(name: str, values: list[float], a: float, b: float) -> None:
        per_chunk_kb = (b - a) * 1024 / span if span else float('nan')
        projected = b + (b - a) * (100_000 - sizes[-1]) / span if span else float('nan')
        rows.append([name, *[_r(v, 1) for v in values], _r(per_chunk_kb, 2), _r(projected, 0)])

    for group in sorted(last['smaps']):
        vals = [snaps[s]['smaps'].get(group, 0.0) for s in sizes]
        row(f'rss {group}', vals, first['smaps'].get(group, 0.0), last['smaps'].get(group, 0.0))
    for key, label in (
        ('rss_mb', 'RSS total'),
        ('rss_after_trim_mb', 'RSS after malloc_trim(0)'),
        ('malloc_in_use_mb', 'malloc in use'),
        ('malloc_free_mb', 'malloc free (held)'),
        ('tracemalloc_mb', 'tracemalloc traced (Python)'),
    ):
        if key in last:
            vals = [snaps[s][key] for s in sizes]
            row(label, vals, first[key], last[key])
    for name in sorted(last['structures']):
        vals = [snaps[s]['structures'].get(name, [0, 0.0])[1] for s in sizes]
        count = last['structures'][name][0]
        a = first['structures'].get(name, [0, 0.0])[1]
        row(f'{name} (n={count})', vals, a, last['structures'][name][1])
    print_table(['component (MB)', *[str(s) for s in sizes], 'KB/chunk', '@100k MB'], rows)
    if 'tracemalloc_top' in last:
        for site, mb, count in last['tracemalloc_top']:
            print(f'{mb:8.1f} MB {count:9d}  {site}')
    print('written', write_json(args.out, {'settings': vars(args), 'snapshots': snaps}))


if __name__ == '__main__':
    main()
