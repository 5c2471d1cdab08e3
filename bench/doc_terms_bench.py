"""The rank stage over a store of document-sized chunks, by how many long texts' terms are kept.

python bench/doc_terms_bench.py build --data /tmp/docs3k                # once (~3-5 min)
python bench/doc_terms_bench.py run --data /tmp/docs3k --long 1250,4096

`build` writes, in process (the service's composition root, graph off, jobs inline, a fixed
clock, as `bench/search_ab.py`), LoCoMo turns' words joined fourteen at a time into ~2 KB chunks
(2,858 of them: a store of documents, whose texts are longer than core.text_cache's SHORT_TEXT),
and optimises the index. `run` opens a copy of the store once per bound in `--long`, with
`recall.read.context._terms_of` re-wrapped to keep that many long texts, and asks `--queries`
LoCoMo questions `--passes` times (hybrid, top_k 10, `graph: false`, `touch: false`). Reported
per bound and pass: the rank stage's p50 (receipt), the process CPU p50 per search and the
terms cache's misses so far; JSON to bench/results/doc_terms_bench.json. Passes after the first
show whether the store's working set stays in the cache (tokenising a ~2 KB chunk takes
~350 us; a search reads the terms of ~55-130 candidates).
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

from bench._common import locomo_questions, numbered_turns, print_table, write_json  # noqa: E402
from bench.search_ab import SCOPE, _services  # noqa: E402

TURNS_PER_CHUNK = 14
CHUNK_CHARS = 2400
BATCH = 250


def build_store(data: Path, turns: int) -> None:
    """Write ~2 KB chunks of LoCoMo turns' words into a fresh data dir and optimise it."""
    from recall.schemas import MemoryIn

    said = [t for _, t in numbered_turns(turns)]
    chunks = []
    for i in range(0, len(said), TURNS_PER_CHUNK):
        group = said[i : i + TURNS_PER_CHUNK]
        words = ' '.join(t.text.split(':', 1)[-1].strip() for t in group)
        text = f'{words} (part {i})'[:CHUNK_CHARS]
        chunks.append(MemoryIn(scope=SCOPE, text=text, created_at=group[0].at))
    services = _services(data)
    try:
        started = time.perf_counter()
        for i in range(0, len(chunks), BATCH):
            services.writer.remember(chunks[i : i + BATCH])
        services.consolidation.vectors.optimize()
        mean = statistics.mean(len(c.text) for c in chunks)
        print(f'built {len(chunks)} chunks of {mean:.0f} characters in ', end='')
        print(f'{time.perf_counter() - started:.0f} s: {data}')
    finally:
        services.close()


def run_bound(data: Path, long: int, queries: int, passes: int) -> list[dict[str, Any]]:
    """Each pass's rank p50, CPU p50 and terms-cache misses with `long` long texts kept."""
    import recall.read.context as context
    from core.auth import Principal
    from core.text_cache import text_cache
    from recall.schemas import SearchRequest

    kept = context._terms_of  # noqa: SLF001
    context._terms_of = text_cache(20_000, long=long)(kept.__wrapped__)  # noqa: SLF001
    work = Path(tempfile.mkdtemp(prefix='mnemos-docterms-'))
    shutil.copytree(data, work / 'data')
    services = _services(work / 'data')
    admin = Principal(name='bench', admin=True)
    out: list[dict[str, Any]] = []
    try:
        for n in range(passes):
            rank: list[float] = []
            cpu: list[float] = []
            for q in locomo_questions()[400 : 400 + queries]:
                req = SearchRequest(query=q, scope=SCOPE, top_k=10, graph=False, touch=False)
                started = time.process_time()
                response = services.recall.search(req, admin)
                cpu.append((time.process_time() - started) * 1000)
                rank.append(response.receipt.latency_ms['rank'])
            info = context._terms_of.cache_info()  # noqa: SLF001
            out.append(
                {
                    'long': long,
                    'pass': n,
                    'rank_p50_ms': round(statistics.median(rank), 3),
                    'cpu_p50_ms': round(statistics.median(cpu), 3),
                    'misses': info.misses,
                    'kept': info.currsize,
                }
            )
    finally:
        services.close()
        context._terms_of = kept  # noqa: SLF001
        shutil.rmtree(work, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Build the store, or run each bound over it and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest='command', required=True)
    b = sub.add_parser('build')
    b.add_argument('--data', type=Path, required=True)
    b.add_argument('--turns', type=int, default=40_000)
    r = sub.add_parser('run')
    r.add_argument('--data', type=Path, required=True)
    r.add_argument('--long', default='1250,4096', help='long texts kept, comma-separated')
    r.add_argument('--queries', type=int, default=300)
    r.add_argument('--passes', type=int, default=3)
    args = parser.parse_args(argv)
    if args.command == 'build':
        build_store(args.data, args.turns)
        return 0
    rows = [
        row
        for bound in (int(x) for x in args.long.split(','))
        for row in run_bound(args.data, bound, args.queries, args.passes)
    ]
    print_table(list(rows[0]), [list(row.values()) for row in rows])
    write_json('doc_terms_bench', {'data': str(args.data), 'rows': rows})
    return 0


if __name__ == '__main__':
    sys.exit(main())
