"""core.text_cache keeps short texts and reads long ones anew."""

from __future__ import annotations

from core.text_cache import CACHED_TEXT, text_cache


def test_short_texts_are_kept_and_long_ones_read_anew() -> None:
    reads: list[str] = []

    @text_cache(8)
    def length(text: str) -> int:
        """The text's length."""
        reads.append(text)
        return len(text)

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
    assert length.cache_info().currsize == 2
    assert length.__wrapped__('abc') == 3 and length.__doc__ == "The text's length."
    length.cache_clear()
    assert length.cache_info().currsize == 0
