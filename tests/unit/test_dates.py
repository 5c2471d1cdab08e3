"""Relative date phrases resolve against the message's time, in English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg.dates import resolve_date

AT = datetime(2026, 2, 15, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ('大前年我在阿里巴巴工作', datetime(2023, 1, 1, tzinfo=UTC)),
        ('我上上个月搬到了柏林', datetime(2025, 12, 1, tzinfo=UTC)),
        ('上上周我入职了字节跳动', datetime(2026, 1, 26, tzinfo=UTC)),  # the Monday two weeks back
        ('I lived in Rome the year before last', datetime(2024, 1, 1, tzinfo=UTC)),
        ('we moved the month before last', datetime(2025, 12, 1, tzinfo=UTC)),
    ],
)
def test_phrases_two_steps_back_resolve_against_the_message_time(text: str, expected: datetime):
    assert resolve_date(text, AT) == expected
