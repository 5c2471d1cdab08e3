"""Pure date resolution: relative and absolute date phrases against the text's own timestamp."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta

from core.lazy_re import lazy_compile
from core.text import MONTHS

_MONTH = (
    r'(january|february|march|april|may|june|july|august|september|october|november|'
    r'december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)'
)
_NUMBERS = {
    'a': 1,
    'an': 1,
    'one': 1,
    'two': 2,
    'three': 3,
    'four': 4,
    'five': 5,
    'six': 6,
    'seven': 7,
    'eight': 8,
    'nine': 9,
    'ten': 10,
    'couple of': 2,
    'few': 3,
}
_UNITS = {'day': 'days', 'week': 'weeks', 'month': 'months', 'year': 'years'}
_WEEKDAYS = ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')

_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        lazy_compile(rf'\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+(\d{{4}})\b'),
        'dmy',
    ),
    (lazy_compile(rf'\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b'), 'mdy'),
    (lazy_compile(r'\b(\d{4})-(\d{2})-(\d{2})\b'), 'iso'),
    (lazy_compile(rf'\b{_MONTH}\.?,?\s+(?:of\s+)?(\d{{4}})\b'), 'my'),
    (lazy_compile(r'\b(?:in|since|from|during|of|by)\s+(\d{4})\b'), 'y'),
    (lazy_compile(r'\bthe (year|month) before last\b'), 'before_last'),
    (lazy_compile(r'\b(yesterday|today|tonight|tomorrow)\b'), 'rel_day'),
    (lazy_compile(r'\b(last|this|next)\s+(week|month|year|weekend)\b'), 'rel_unit'),
    (lazy_compile(rf'\b(last|this|next)\s+{_MONTH}\b'), 'rel_month'),
    (lazy_compile(rf'\b(last|this|next)\s+({"|".join(_WEEKDAYS)})\b'), 'rel_weekday'),
    (
        lazy_compile(
            r'\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)\s+'
            r'(day|week|month|year)s?\s+ago\b'
        ),
        'ago',
    ),
    (
        lazy_compile(rf'\b(?:in|since|during)\s+{_MONTH}\b(?!\.?,?\s+(?:of\s+)?\d{{4}})'),
        'bare_month',
    ),
    # Chinese: 2024年3月5日, 2024年3月, 2024年, 去年 / 上个月 / 昨天
    (lazy_compile(r'(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]'), 'iso'),
    (lazy_compile(r'(\d{4})\s*年\s*(\d{1,2})\s*月'), 'ym'),
    (lazy_compile(r'(\d{4})\s*年'), 'y'),
    (lazy_compile(r'(大前年|去年|今年|明年|前年|后年)'), 'zh_year'),
    (lazy_compile(r'(上上个?月|上个?月|这个?月|本月|下个?月)'), 'zh_month'),
    (lazy_compile(r'(昨天|今天|明天|前天)'), 'zh_day'),
    (lazy_compile(r'(上上周|上周|上个星期|这周|本周|下周)'), 'zh_week'),
]
_ZH_SHIFT = {
    '去年': -1, '今年': 0, '明年': 1, '前年': -2, '上月': -1, '上个月': -1, '这月': 0,
    '这个月': 0, '本月': 0, '下月': 1, '下个月': 1, '昨天': -1, '今天': 0, '明天': 1, '前天': -2,
    '上周': -1, '上个星期': -1, '这周': 0, '本周': 0, '下周': 1, '大前年': -3, '后年': 2,
    '上上个月': -2, '上上月': -2, '上上周': -2,
}  # fmt: skip


def resolve_date(text: str, at: datetime) -> datetime | None:
    """The first date phrase of `text` resolved against `at` (aware UTC), or None."""
    low = text.lower()
    best: tuple[int, datetime] | None = None
    for pattern, kind in _RULES:
        match = pattern.search(low)
        if match is None:
            continue
        value = _resolve(kind, match, at)
        if value is not None and (best is None or match.start() < best[0]):
            best = (match.start(), value)
    return best[1] if best else None


def _day(at: datetime) -> datetime:
    at = at.astimezone(UTC) if at.tzinfo else at.replace(tzinfo=UTC)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def _resolve(kind: str, m: re.Match[str], at: datetime) -> datetime | None:
    if kind in _ABSOLUTE:
        return _absolute(kind, m)
    if kind.startswith('zh_'):
        return _chinese(kind, m, _day(at))
    relative = _RELATIVE.get(kind)
    return relative(m, _day(at)) if relative is not None else None


# absolute dates: (year, month, day) from the match's groups
_ABSOLUTE: dict[str, Callable[[re.Match[str]], tuple[int, int, int]]] = {
    'dmy': lambda m: (int(m[3]), MONTHS[m[2]], int(m[1])),
    'mdy': lambda m: (int(m[3]), MONTHS[m[1]], int(m[2])),
    'iso': lambda m: (int(m[1]), int(m[2]), int(m[3])),
    'my': lambda m: (int(m[2]), MONTHS[m[1]], 1),
    'y': lambda m: (int(m[1]), 1, 1),
    'ym': lambda m: (int(m[1]), int(m[2]), 1),
}


def _absolute(kind: str, m: re.Match[str]) -> datetime | None:
    try:
        return datetime(*_ABSOLUTE[kind](m), tzinfo=UTC)
    except ValueError:  # "31 February": not a date
        return None


def _chinese(kind: str, m: re.Match[str], today: datetime) -> datetime:
    """去年 / 上个月 / 昨天 / 上周: the year, month, day or week (from its Monday) shifted."""
    shift = _ZH_SHIFT[m[1]]
    if kind == 'zh_year':
        return datetime(today.year + shift, 1, 1, tzinfo=UTC)
    if kind == 'zh_month':
        return (today + relativedelta(months=shift)).replace(day=1)
    if kind == 'zh_day':
        return today + timedelta(days=shift)
    monday = today - timedelta(days=today.weekday())
    return monday + timedelta(weeks=shift)


def _before_last(m: re.Match[str], today: datetime) -> datetime:
    """ "the year/month before last": the start of the year or month two back."""
    if m[1] == 'year':
        return datetime(today.year - 2, 1, 1, tzinfo=UTC)
    return (today + relativedelta(months=-2)).replace(day=1)


def _relative_day(m: re.Match[str], today: datetime) -> datetime:
    shift = {'yesterday': -1, 'today': 0, 'tonight': 0, 'tomorrow': 1}[m[1]]
    return today + timedelta(days=shift)


def _relative_unit(m: re.Match[str], today: datetime) -> datetime:
    """ "last/this/next week, month, year, weekend": the start of that period (a week starts
    on Monday, a weekend on Saturday)."""
    sign = {'last': -1, 'this': 0, 'next': 1}[m[1]]
    unit = m[2]
    if unit == 'year':
        return datetime(today.year + sign, 1, 1, tzinfo=UTC)
    if unit == 'month':
        return (today + relativedelta(months=sign)).replace(day=1)
    monday = today - timedelta(days=today.weekday())
    start = monday + timedelta(weeks=sign)
    return start + timedelta(days=5) if unit == 'weekend' else start


def _relative_month(m: re.Match[str], today: datetime) -> datetime:
    """ "last March" is the latest March before this month, "next March" the first after it."""
    month = MONTHS[m[2]]
    year = today.year
    if m[1] == 'last':
        year -= 0 if month < today.month else 1
    elif m[1] == 'next':
        year += 0 if month > today.month else 1
    return datetime(year, month, 1, tzinfo=UTC)


def _relative_weekday(m: re.Match[str], today: datetime) -> datetime:
    """ "last Friday" is the latest before today, "next Friday" the first after it, "this
    Friday" the one of this week up to today."""
    target = _WEEKDAYS.index(m[2])
    delta = (today.weekday() - target) % 7
    if m[1] == 'last':
        return today - timedelta(days=delta or 7)
    if m[1] == 'next':
        return today + timedelta(days=(target - today.weekday()) % 7 or 7)
    return today - timedelta(days=delta)


def _ago(m: re.Match[str], today: datetime) -> datetime:
    count = int(m[1]) if m[1].isdigit() else _NUMBERS[m[1]]
    return today - relativedelta(**{_UNITS[m[2]]: count})


def _bare_month(m: re.Match[str], today: datetime) -> datetime:
    """ "in March" with no year: the latest March up to this month."""
    month = MONTHS[m[1]]
    year = today.year if month <= today.month else today.year - 1
    return datetime(year, month, 1, tzinfo=UTC)


_RELATIVE: dict[str, Callable[[re.Match[str], datetime], datetime]] = {
    'before_last': _before_last,
    'rel_day': _relative_day,
    'rel_unit': _relative_unit,
    'rel_month': _relative_month,
    'rel_weekday': _relative_weekday,
    'ago': _ago,
    'bare_month': _bare_month,
}
