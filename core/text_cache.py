"""A per-text cache bounded in characters as well as in count.

What is read of a memory's text (its clauses, facts, speaker, terms) is asked again and again:
a write weighs each new memory against its neighbours, and the same memories come back for many
queries. Memories are mostly short (every LoCoMo turn is under 450 characters); a document chunk
is 1-4 KB, and a text may be up to `KG_MAX_TEXT_BYTES` (32 KB). A cache bounded by count only
holds as much as its count of its longest texts: 20,000 texts of 4,096 characters of distinct
words and their terms were ~1.5 GB (bench/text_cache_rss.py). So a cache keeps texts of up to
SHORT_TEXT characters as its count says, a much smaller count of texts up to CACHED_TEXT
(`long_size`), and reads a longer text anew: a cache of `maxsize` keys at most
maxsize * SHORT_TEXT + long_size(maxsize) * CACHED_TEXT characters. A text without clause
punctuation (a log, a list) is one clause as long as itself: clause caches need the bound too
(8,192 of 30 KB kept ~250 MB).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import NamedTuple, Protocol, TypeVar, cast

T = TypeVar('T')
T_co = TypeVar('T_co', covariant=True)

SHORT_TEXT = 512  # the longest text kept as many times as a cache's count: every LoCoMo turn
CACHED_TEXT = 4096  # the longest text a cache keeps at all
LONG_SHARE = 16  # a cache keeps 1/LONG_SHARE as many texts longer than SHORT_TEXT ...
# ... and at least 512: a write batch's 500 texts are read again a batch later (at their first
# supersession, as later writes' neighbours), and reading a 2 KB text's facts and corrections
# anew takes ~5 ms. Never more than its count of short ones
LONG_LEAST = 512


class CacheInfo(NamedTuple):
    """Both of a cache's tiers together, as `functools.lru_cache`'s `cache_info` tells one."""

    hits: int
    misses: int
    maxsize: int
    currsize: int


class TextCache(Protocol[T_co]):
    """`read(text)`, remembered for the last `maxsize` texts of up to SHORT_TEXT characters and
    the last `long_size(maxsize)` of up to CACHED_TEXT; `__wrapped__` reads without the cache."""

    @property
    def __wrapped__(self) -> Callable[[str], T_co]: ...

    def __call__(self, text: str, /) -> T_co: ...

    def cache_clear(self) -> None: ...

    def cache_info(self) -> CacheInfo: ...


def long_size(maxsize: int) -> int:
    """How many texts longer than SHORT_TEXT a cache of `maxsize` keeps by default."""
    return min(maxsize, max(LONG_LEAST, maxsize // LONG_SHARE))


def text_cache(
    maxsize: int, long: int | None = None
) -> Callable[[Callable[[str], T]], TextCache[T]]:
    """Decorate a function of one text with a cache of `maxsize` short texts and `long` longer
    ones (None: `long_size(maxsize)`; TextCache). A reading that is costly on a long text and
    asked of many (a search's terms of each candidate) keeps more of them.

    Plain functions around two `lru_cache`s, not a class with `__call__` nor an LRU of our own
    weighing each text: these are asked thousands of times a search, and an instance call costs
    ~120 ns more than a function call. A short text costs what it did with one cache (one length
    test, then the C cache); a longer one a second length test."""

    longer = long_size(maxsize) if long is None else long

    def wrap(read: Callable[[str], T]) -> TextCache[T]:
        short = lru_cache(maxsize=maxsize)(read)
        kept_long = lru_cache(maxsize=longer)(read)

        def cached(text: str) -> T:
            if len(text) <= SHORT_TEXT:
                return short(text)
            return kept_long(text) if len(text) <= CACHED_TEXT else read(text)

        def cache_clear() -> None:
            short.cache_clear()
            kept_long.cache_clear()

        def cache_info() -> CacheInfo:
            a, b = short.cache_info(), kept_long.cache_info()
            size = maxsize + longer
            return CacheInfo(a.hits + b.hits, a.misses + b.misses, size, a.currsize + b.currsize)

        update_wrapper(cached, read)  # its name, docstring, and `__wrapped__` = read
        cached.cache_clear = cache_clear  # type: ignore[attr-defined]
        cached.cache_info = cache_info  # type: ignore[attr-defined]
        return cast(TextCache[T], cached)

    return wrap
