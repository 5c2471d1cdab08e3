"""The write side's per-clause caches keep short clauses only: a text without clause punctuation
is one clause of up to the 32 KB a text may hold, and thousands of those kept for good would
hold hundreds of MB."""

from __future__ import annotations

from core.text_cache import CACHED_TEXT
from recall.write import facts


def test_a_long_clause_is_read_but_not_kept() -> None:
    facts._strip_lead.cache_clear()
    facts._not_but.cache_clear()
    long = 'I live not in Paris but in Berlin ' + 'x' * (CACHED_TEXT + 10)
    assert facts._strip_lead(long) == long.strip()
    assert facts._not_but('I live not in Paris but in Berlin') is not None
    assert facts._not_but(long) is not None  # still read, as a short clause is
    assert facts._strip_lead.cache_info().currsize == 0
    assert facts._not_but.cache_info().currsize == 1  # the short one only


def test_a_short_clause_is_kept() -> None:
    facts._strip_lead.cache_clear()
    facts._strip_lead('Yesterday I moved to Berlin')
    facts._strip_lead('Yesterday I moved to Berlin')
    assert facts._strip_lead.cache_info().hits == 1
