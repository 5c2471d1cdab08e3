"""Bytes the per-text caches (core.text_cache) hold, one cache against the short/long tiers.

python bench/text_cache_rss.py                 # ~35 s; writes bench/results/text_cache_rss.json
python bench/text_cache_rss.py --words 20000   # all terms read to 20,000 (~15 min, ~1.5 GB held)

Two caches of 20,000 keys: recall.read.context's `_terms_of` (a text, its term frozenset and
its casefolded copy if Chinese) and recall.speakers' `_read_prefix` (a text and its speaker).
Each is read with distinct texts of four cases:

- `locomo`: 20,000 LoCoMo turns as the store-growing benches write them (`text #n`), ~150 chars;
- `words 512`: texts of SHORT_TEXT characters of distinct words (the short tier's worst case);
- `words 4000`: texts of 4,000 characters of distinct words (the worst case of one cache: a
  text of distinct words holds the most terms);
- `chunks 4000`: consecutive LoCoMo turns joined to up to 4,000 characters (a document chunk of
  prose, whose words recur across chunks and share their stems through bm25's stem cache).

`one` is the cache as main had it up to this bench (one lru_cache of 20,000 keeping every text
up to CACHED_TEXT), emulated here around the same function; `tiers` is core.text_cache's (the
module's own cache). `held` is what tracemalloc sees freed when the cache is cleared (its texts,
readings and nodes; bm25's stem cache is cleared first, or the stems it shares with the terms
would not be freed). The long cases' terms are read to `--words` texts (400 by default: a text
of distinct words takes ~14 ms to read under tracemalloc) and projected to 20,000 reads: the
texts a cache would keep then (20,000, or `long_size(20,000)` = 1,250 in the long tier), at the
bytes per kept text measured. The speakers' are read to 20,000, past both tiers' counts (the
chunks to 2,500, past the long tier's).
"""

from __future__ import annotations

import argparse
import gc
import string
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import numbered_turns, print_table, write_json  # noqa: E402
from core.text_cache import CACHED_TEXT, SHORT_TEXT, long_size  # noqa: E402
from recall import speakers  # noqa: E402
from recall.read import context  # noqa: E402
from vectors import bm25  # noqa: E402

READS = 20_000  # the reads a cache is projected to, and its count (context's and speakers')
MB = 1 << 20
PREFIX = 'Maya: '  # a speaker to read


def one_cache(maxsize: int) -> Callable[[Callable[[str], Any]], Any]:
    """core.text_cache as it was: one lru_cache of `maxsize`, texts up to CACHED_TEXT kept."""

    def wrap(read: Callable[[str], Any]) -> Any:
        kept = lru_cache(maxsize=maxsize)(read)

        def cached(text: str) -> Any:
            return kept(text) if len(text) <= CACHED_TEXT else read(text)

        cached.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        cached.cache_info = kept.cache_info  # type: ignore[attr-defined]
        return cached

    return wrap


def _word(i: int) -> str:
    out = []
    i += 26**3  # four letters at least: no stopword, no digit
    while i:
        i, r = divmod(i, 26)
        out.append(string.ascii_lowercase[r])
    return ''.join(out)


def word_pool(chars: int) -> str:
    """Distinct words, `chars` characters of them (built in chunks: no list of them all)."""
    chunks: list[str] = []
    total = i = 0
    while total < chars:
        chunk = ' '.join(_word(k) for k in range(i, i + 100_000)) + ' '
        chunks.append(chunk)
        total += len(chunk)
        i += 100_000
    return ''.join(chunks)


def word_texts(n: int, length: int, pool: str) -> Iterator[str]:
    """`n` distinct texts of `length` characters of the pool's words (cycled if it runs out)."""
    span = len(pool) - length
    for i in range(n):
        head = f'{PREFIX}{i} '
        start = (i * length) % span
        yield head + pool[start : start + length - len(head)]


def locomo_texts(n: int) -> Iterator[str]:
    """`n` LoCoMo turns as store-growing benches write them."""
    return (f'{turn.text} #{k}' for k, turn in numbered_turns(n))


def locomo_chunks(n: int, length: int = 4000) -> Iterator[str]:
    """`n` texts of up to `length` characters of consecutive LoCoMo turns (a document chunk of
    English prose: its words recur across chunks, as a real store's do)."""
    lines: list[str] = []
    size = made = 0
    for k, turn in numbered_turns(n * length // 40):
        line = f'{turn.text} #{k}'
        if size + len(line) + 1 > length:
            yield '\n'.join(lines)
            made += 1
            if made == n:
                return
            lines, size = [], 0
        lines.append(line)
        size += len(line) + 1


def held(fn: Any, texts: Iterator[str]) -> tuple[int, int, float]:
    """The texts `fn`'s cache keeps after reading `texts`, the bytes clearing it frees, and
    the seconds the reads took."""
    fn.cache_clear()
    bm25._stem.cache_clear()
    gc.collect()
    tracemalloc.start()
    started = time.perf_counter()
    for text in texts:
        fn(text)
    took = time.perf_counter() - started
    kept = fn.cache_info().currsize
    bm25._stem.cache_clear()
    gc.collect()
    full = tracemalloc.get_traced_memory()[0]
    fn.cache_clear()
    gc.collect()
    freed = full - tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return kept, freed, took


def kept_at(variant: str, length: int, reads: int) -> int:
    """The texts a cache of READS keeps after `reads` distinct texts of `length`."""
    if length > CACHED_TEXT:
        return 0
    if variant == 'one' or length <= SHORT_TEXT:
        return min(reads, READS)
    return min(reads, long_size(READS))


def measure(words: int) -> list[dict[str, Any]]:
    """Every cache read with every case, one cache and tiers."""
    pool = word_pool(min(words, READS) * 4000)
    # a case's name, its texts' length, its texts, how many the terms and the speakers read (the
    # speakers' chunks past the long tier only: 20,000 took ~8 s)
    cases: list[tuple[str, int, Callable[[int], Iterator[str]], int, int]] = [
        ('locomo', 150, locomo_texts, READS, READS),
        ('words 512', SHORT_TEXT, lambda n: word_texts(n, SHORT_TEXT, pool), words, READS),
        ('words 4000', 4000, lambda n: word_texts(n, 4000, pool), words, READS),
        ('chunks 4000', 4000, locomo_chunks, words, 2 * long_size(READS)),
    ]
    records: list[dict[str, Any]] = []
    for name, tiers in (
        ('context._terms_of', context._terms_of),
        ('speakers._read_prefix', speakers._read_prefix),
    ):
        variants = {'one': one_cache(READS)(tiers.__wrapped__), 'tiers': tiers}
        for case, length, texts, terms_read, speakers_read in cases:
            reads = terms_read if name == 'context._terms_of' else speakers_read
            for variant, fn in variants.items():
                kept, freed, took = held(fn, texts(reads))
                per_text = freed / kept if kept else 0.0
                at_reads = kept_at(variant, length, READS)
                records.append(
                    {
                        'cache': name,
                        'case': case,
                        'variant': variant,
                        'read': reads,
                        'kept': kept,
                        'held_mb': round(freed / MB, 2),
                        'kb_per_kept_text': round(per_text / 1024, 2),
                        'kept_at_20000': at_reads,
                        'mb_at_20000': round(at_reads * per_text / MB, 1),
                        'projected': reads < READS,
                        'read_s': round(took, 2),
                    }
                )
    return records


def worst_cases(records: list[dict[str, Any]]) -> dict[str, float]:
    """Each cache's most at 20,000 reads: one cache full of 4,000-char texts; tiers with the
    short tier full of SHORT_TEXT ones and the long tier of 4,000-char ones."""
    mb = {(r['cache'], r['case'], r['variant']): r['mb_at_20000'] for r in records}
    out: dict[str, float] = {}
    for name in dict.fromkeys(r['cache'] for r in records):
        out[f'{name} one'] = mb[name, 'words 4000', 'one']
        out[f'{name} tiers'] = round(
            mb[name, 'words 512', 'tiers'] + mb[name, 'words 4000', 'tiers'], 1
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--words', type=int, default=400, help="long cases' terms read to")
    parser.add_argument('--out', default='text_cache_rss')
    args = parser.parse_args()
    started = time.perf_counter()
    records = measure(args.words)
    shown = ['cache', 'case', 'variant', 'read', 'kept', 'held_mb', 'kb_per_kept_text']
    shown += ['kept_at_20000', 'mb_at_20000', 'read_s']
    print_table(
        ['cache', 'case', 'variant', 'read', 'kept', 'held MB', 'KB/kept', 'kept@20k', 'MB@20k']
        + ['read s', ''],
        [[r[k] for k in shown] + ['*' if r['projected'] else ''] for r in records],
    )
    print('(* projected: bytes per kept text x the texts kept at 20,000 reads)')
    worst = worst_cases(records)
    print('\nworst case at 20,000 reads (one: 4,000-char texts; tiers: both tiers full):')
    for key, mb in worst.items():
        print(f'  {key:28s} {mb:8.1f} MB')
    path = write_json(
        args.out,
        {
            'short_text': SHORT_TEXT,
            'cached_text': CACHED_TEXT,
            'long_size': long_size(READS),
            'rows': records,
            'worst_mb': worst,
            'seconds': round(time.perf_counter() - started, 1),
        },
    )
    print(f'\nwrote {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
