"""A per-text cache that keeps short texts only.

What is read of a memory's text (its clauses, facts, speaker, terms) is asked again and again:
a write weighs each new memory against its neighbours, and the same memories come back for many
queries. Memories are short; a long text (up to `KG_MAX_TEXT_BYTES`, 32 KB) is read anew rather
than held as a key, so the caches' memory stays bounded by their count of short texts. A text
without clause punctuation (a log, a list) is one clause as long as itself: clause caches need
the bound too (8,192 of 30 KB kept ~250 MB).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import Any, Protocol, TypeVar, cast

T = TypeVar('T')
T_co = TypeVar('T_co', covariant=True)

CACHED_TEXT = 4096  # the longest text a cache keeps


class TextCache(Protocol[T_co]):
    """`read(text)`, remembered for the last `maxsize` texts of up to CACHED_TEXT characters;
    `__wrapped__` reads without the cache."""

    @property
    def __wrapped__(self) -> Callable[[str], T_co]: ...

    def __call__(self, text: str, /) -> T_co: ...

    def cache_clear(self) -> None: ...

    def cache_info(self) -> Any: ...


def text_cache(maxsize: int) -> Callable[[Callable[[str], T]], TextCache[T]]:
    """Decorate a function of one text with a cache of `maxsize` short texts (TextCache).

    A plain function around `lru_cache`, not a class with `__call__`: these are asked thousands
    of times a search, and an instance call costs ~120 ns more than a function call."""

    def wrap(read: Callable[[str], T]) -> TextCache[T]:
        kept = lru_cache(maxsize=maxsize)(read)

        def cached(text: str) -> T:
            return kept(text) if len(text) <= CACHED_TEXT else read(text)

        update_wrapper(cached, read)  # its name, docstring, and `__wrapped__` = read
        cached.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        cached.cache_info = kept.cache_info  # type: ignore[attr-defined]
        return cast(TextCache[T], cached)

    return wrap
