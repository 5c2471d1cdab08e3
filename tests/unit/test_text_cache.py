"""core.text_cache keeps short texts by its count, longer ones by a smaller count, and reads
texts over CACHED_TEXT anew."""

from __future__ import annotations

from core.text_cache import CACHED_TEXT, SHORT_TEXT, TextCache, long_size, text_cache

MAXSIZE = 2048  # long_size 512: the two tiers' counts differ


def _counted(maxsize: int = MAXSIZE) -> tuple[TextCache[int], list[str]]:
    """A cached `len` and the texts it read (cache misses)."""
    reads: list[str] = []

    @text_cache(maxsize)
    def length(text: str) -> int:
        """The text's length."""
        reads.append(text)
        return len(text)

    return length, reads


def _long(i: int) -> str:
    """A distinct text longer than SHORT_TEXT."""
    return f'{i} ' + 'x' * SHORT_TEXT


def test_short_texts_are_kept_and_long_ones_read_anew() -> None:
    length, reads = _counted(8)
    long = 'x' * (CACHED_TEXT + 1)
    assert [length('ab'), length('ab'), length(long), length(long)] == [
        2,
        2,
        CACHED_TEXT + 1,
        CACHED_TEXT + 1,
    ]
    assert reads == ['ab', long, long]
    assert length.cache_info().currsize == 1
    assert length('x' * CACHED_TEXT) == CACHED_TEXT  # the bound itself is kept
    assert length('x' * CACHED_TEXT) == CACHED_TEXT
    assert reads.count('x' * CACHED_TEXT) == 1
    assert length.cache_info().currsize == 2
    assert length.__wrapped__('abc') == 3 and length.__doc__ == "The text's length."
    length.cache_clear()
    assert length.cache_info().currsize == 0


def test_the_long_tier_is_smaller() -> None:
    assert long_size(20_000) == 1250
    assert long_size(4096) == 512  # at least a write batch's 500 ...
    assert long_size(100) == 100  # ... but never more than the short tier
    assert long_size(MAXSIZE) == 512 < MAXSIZE


def test_a_long_text_is_evicted_after_long_size_others_a_short_one_is_not() -> None:
    length, reads = _counted()
    first, short, edge = _long(-1), 'a short text', 'y' * SHORT_TEXT
    for text in (first, short, edge):
        length(text)
    for i in range(long_size(MAXSIZE) - 1):
        length(_long(i))
    length(first)  # still kept: long_size - 1 others since, and now the most recent
    assert reads.count(first) == 1
    for i in range(long_size(MAXSIZE), 2 * long_size(MAXSIZE)):
        length(_long(i))
    length(first)  # long_size others since: evicted, read anew
    assert reads.count(first) == 2
    length(short)
    length(edge)  # SHORT_TEXT characters is short
    assert reads.count(short) == reads.count(edge) == 1
    assert length.cache_info().currsize == 2 + long_size(MAXSIZE)


def test_short_texts_are_kept_up_to_maxsize() -> None:
    length, reads = _counted()
    texts = [f'text {i}' for i in range(MAXSIZE)]
    for _ in range(2):
        for text in texts:
            length(text)
    assert len(reads) == MAXSIZE  # the second round all hits
    info = length.cache_info()
    assert (info.hits, info.misses, info.currsize) == (MAXSIZE, MAXSIZE, MAXSIZE)
    length('one more')
    length(texts[0])  # the least recent, now evicted
    assert reads.count(texts[0]) == 2


def test_cache_clear_clears_both_tiers() -> None:
    length, reads = _counted()
    short, long = 'short', _long(0)
    for text in (short, long, short, long):
        length(text)
    info = length.cache_info()
    assert (info.hits, info.misses, info.currsize) == (2, 2, 2)
    assert info.maxsize == MAXSIZE + long_size(MAXSIZE)
    length.cache_clear()
    info = length.cache_info()
    assert (info.hits, info.misses, info.currsize) == (0, 0, 0)
    length(short)
    length(long)
    assert reads == [short, long, short, long]


def test_a_cache_may_keep_more_long_texts_than_its_default() -> None:
    reads: list[str] = []

    @text_cache(64, long=600)
    def length(text: str) -> int:
        reads.append(text)
        return len(text)

    for i in range(600):
        length(_long(i))
    length(_long(0))  # 600 long texts kept, where the default (long_size(64) = 64) keeps 64
    assert reads.count(_long(0)) == 1
    assert length.cache_info().maxsize == 64 + 600


def test_the_search_terms_keep_a_document_store_s_working_set() -> None:
    from recall.read.context import _terms_of

    # a search reads the terms of ~55-130 candidates; tokenising a 2 KB chunk takes ~350 us
    assert _terms_of.cache_info().maxsize == 20_000 + 4_096
