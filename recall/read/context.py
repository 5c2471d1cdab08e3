"""Conversation context for recall: who said a memory, which memories neighbour it, and how
surely a hit answers a query at all.

Pure functions over payloads and ranked lists; the service does the store I/O.

- **Speaker.** A question that names a person is usually about what that person said, so a
  turn whose speaker the query names gets a small boost (who spoke a turn: `recall.speakers`).
- **Neighbours.** A turn's meaning often sits in the turn before it ("What did you paint?" /
  "A sunrise."). Each memory records the memory written just before it in its scope
  (`prev_id`); at query time the strongest lexical and dense candidates lend score to their
  neighbours within the same session, as a `context` channel fused like any other.
- **Confidence.** RRF scores say how hits rank against each other, not whether any of them is
  relevant. `confidence` is an absolute signal in [0, 1]: the share of the query's terms the hit
  contains, or its calibrated cosine, whichever is higher. The relevance floor (`min_score`) and
  the team-leader fallback read it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from core.text import MONTHS
from core.text_cache import text_cache
from recall.read.slots import (
    CJK_FUNCTION,
    QueryWords,
    covered_share,
    is_cjk,
    mixed_text,
    mostly,
    query_content,
)
from recall.read.weights import (
    CONTEXT_DEPTH,
    COSINE_FLOOR,
    COSINE_FULL,
    DATE_SLACK_DAYS,
    SESSION_GAP_S,
)
from recall.speakers import is_turn, turn_speaker
from vectors.bm25 import CJK_CHARS, STOPWORDS, tokenize

_CJK_PAIR = re.compile(rf'[{CJK_CHARS}]{{2}}')  # a bigram as vectors.bm25 makes them
_CJK_CHAR = re.compile(rf'[{CJK_CHARS}]')  # kana and hangul too: MiniLM reads none of them


def same_session(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two dialogue turns of one scope whose event times lie within SESSION_GAP_S.

    Only turns lend each other meaning: a list of facts written in one batch shares a time but
    the fact before another says nothing about it.
    """
    return close_in_time(a, b) and is_turn(a) and is_turn(b)


def close_in_time(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """One scope, event times within SESSION_GAP_S: `same_session` without the turn check,
    for callers that remember which payloads are turns."""
    ta, tb = a.get('created_at'), b.get('created_at')
    if not isinstance(ta, int | float) or not isinstance(tb, int | float):
        return False
    return a.get('scope') == b.get('scope') and abs(ta - tb) <= SESSION_GAP_S


def context_list(
    sources: Mapping[str, Sequence[tuple[str, float]]],
    neighbours: Mapping[str, Sequence[str]],
    *,
    depth: int = CONTEXT_DEPTH,
    k: int = 60,
) -> list[tuple[str, float]]:
    """Rank neighbours by the reciprocal ranks of the source hits they sit next to.

    A neighbour found next to several strong hits, or next to one hit in two channels, ranks
    first; a hit never lends to itself.
    """
    scores: dict[str, float] = {}
    for ranked in sources.values():
        for rank, (ident, _) in enumerate(ranked[:depth], start=1):
            for other in neighbours.get(ident, ()):
                if other != ident:
                    scores[other] = scores.get(other, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def neighbours_of(
    ids: Sequence[str],
    payloads: Mapping[str, Mapping[str, Any]],
    found_by_prev: Mapping[str, str] | None = None,
    speakers: dict[str, str | None] | None = None,
) -> dict[str, list[str]]:
    """Each id's neighbours in `payloads` within its session: the memory before it
    (`prev_id`) and after it (`next_id`, confirmed by the successor's `prev_id`).

    `found_by_prev` (successor -> source) adds successors found by a scan for their `prev_id`:
    payloads written before `next_id` existed. `speakers` (id -> turn speaker, this search's)
    gains each speaker read, so that the ranking does not read it again.
    """
    spoken: dict[str, str | None] = {} if speakers is None else speakers

    def linked(a: str, b: str) -> bool:
        # same_session, each payload's turn check done once
        if not close_in_time(payloads[a], payloads[b]):
            return False
        for ident in (a, b):
            if ident not in spoken:
                spoken[ident] = turn_speaker(payloads[ident])
        return spoken[a] is not None and spoken[b] is not None

    out: dict[str, list[str]] = {}
    for ident in ids:
        prev = payloads[ident].get('prev_id')
        if isinstance(prev, str) and prev in payloads and linked(ident, prev):
            out.setdefault(ident, []).append(prev)
    successors = [(i, str(payloads[i]['next_id'])) for i in ids if payloads[i].get('next_id')]
    successors += [(source, nxt) for nxt, source in (found_by_prev or {}).items()]
    for source, nxt in successors:
        if (
            nxt in payloads
            and payloads[nxt].get('prev_id') == source
            and source in payloads
            and linked(source, nxt)
        ):
            out.setdefault(source, []).append(nxt)
    return out


def query_terms(query: str) -> list[str]:
    """The query's content terms as the BM25 tokenizer sees them: stems, and CJK characters.

    CJK bigrams are left out: they reward word order in BM25, but a paraphrase shares few of
    them, so counting them would halve the coverage of a Chinese question against the English
    scale the floor was chosen on.
    """
    return [
        t
        for t in dict.fromkeys(tokenize(query))
        if t not in STOPWORDS and not (len(t) == 2 and _CJK_PAIR.fullmatch(t))
    ]


@text_cache(20_000, long=4_096)
def _terms_of(text: str) -> tuple[frozenset[str], str]:
    # the same memories come back for many queries: tokenising them once saves most of the
    # ranking stage's time, and coverage looks in each for Chinese once (slots.mixed_text).
    # Bounded in characters (core.text_cache): 20,000 texts of up to 512 characters, 4,096 up
    # to 4,096 characters: tokenising a 2.3 KB document chunk takes ~350 us, and a search reads
    # the terms of ~55-130 candidates, so a store of document chunks keeps its working set
    # here. Texts of distinct words hold the most terms: ~13 KB a 512-char one, ~76 KB a
    # 4,096-char one, ~570 MB both tiers full (one cache of 20,000 held ~1.5 GB); LoCoMo turns
    # ~1.5 KB each (~30 MB), 4,000-char chunks of prose ~15 KB (~60 MB for 4,096 of them;
    # bench/text_cache_rss.py)
    return frozenset(tokenize(text)), mixed_text(text)


@text_cache(20_000)  # its keys as speakers.READ_CACHE's: ~18 MB of ASCII at most
def written_in_chinese(text: str) -> bool:
    """Whether a memory is mostly Chinese (as `is_cjk` tells a query): the default embedder reads
    no Chinese, so its cosine between an English question and such a memory is noise (0.35-0.45
    for unrelated pairs), no evidence either way."""
    return mostly(text, _CJK_CHAR)


def coverage(terms: Sequence[str], text: str, stated: frozenset[str] = frozenset()) -> float:
    """Share of the query terms the text contains, a word of a term's slot counting for the term
    and one naming a slot the memory states a fact of (`stated`, its `slots`;
    recall.read.slots.coverage_of); 0 when the query has none."""
    if not terms:
        return 0.0
    return text_coverage(query_content(terms), text, stated)


def text_coverage(query: QueryWords, text: str, stated: frozenset[str] = frozenset()) -> float:
    """`coverage` of a query's words worked out once (recall.read.slots.query_content), for a
    caller that reads many memories."""
    words, mixed = _terms_of(text)
    return covered_share(query, words, text, stated, mixed)


@lru_cache(maxsize=256)
def content_pairs(query: str) -> frozenset[str]:
    """The query's pairs of adjacent Chinese characters, not both function ones (我, 的, 什么…):
    the two-character words a hit on its topic most likely repeats (科幻 of 科幻小说, 住在)."""
    return frozenset(
        t
        for t in tokenize(query)
        if len(t) == 2 and _CJK_PAIR.fullmatch(t) and not CJK_FUNCTION.issuperset(t)
    )


def holds_pair(pairs: frozenset[str], text: str) -> bool:
    """Whether the text holds one of `pairs` (content_pairs) as the BM25 tokenizer pairs it."""
    if not pairs:
        return False
    words, _ = _terms_of(text)
    return not pairs.isdisjoint(words)


def calibrated_cosine(cosine: float | None) -> float:
    """Cosine mapped linearly onto [0, 1] between COSINE_FLOOR and COSINE_FULL."""
    if cosine is None or math.isnan(cosine):
        return 0.0
    return min(1.0, max(0.0, (cosine - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)))


def confidence(
    terms: Sequence[str], text: str, cosine: float | None, stated: frozenset[str] = frozenset()
) -> float:
    """How surely a hit answers the query at all, in [0, 1] (see the module docstring);
    `stated`: the slots the memory states facts of (its `slots`)."""
    covered = coverage(terms, text, stated)
    if covered == 0.0 and is_cjk(terms):
        # the default embedder's cosine between two unrelated Chinese sentences reaches 0.6-0.7:
        # a Chinese memory that shares no content word with the query is not vouched for
        return 0.0
    return max(covered, calibrated_cosine(cosine))


# ---- dates named in a query ------------------------------------------------------------------

_MONTH = '(' + '|'.join(sorted(MONTHS, key=len, reverse=True)) + ')'
_DAY_MONTH_YEAR = re.compile(rf'\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+((?:19|20)\d\d)\b')
_MONTH_DAY_YEAR = re.compile(rf'\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b')
_MONTH_YEAR = re.compile(rf'\b{_MONTH}\s+(?:of\s+)?((?:19|20)\d\d)\b')
_YEAR = re.compile(r'\b(?:in|during|of|since|from)\s+((?:19|20)\d\d)\b')
_MONTH_ALONE = re.compile(rf'\b(?:in|during|last|this|early|late|mid)\s+{_MONTH}\b')
_RELATIVE = re.compile(
    r'\b(yesterday|today|last week|this week|last month|this month|last year|this year)\b'
)
_ZH_DATE = re.compile(r'((?:19|20)\d\d)年(?:(\d{1,2})月)?(?:(\d{1,2})[日号])?')
_ZH_RELATIVE = {
    '昨天': 'yesterday',
    '今天': 'today',
    '上周': 'last week',
    '上个月': 'last month',
    '去年': 'last year',
    '今年': 'this year',
}


class Period:
    """A span of event time a query names; `month_only` matches that month in any year."""

    def __init__(self, start: datetime | None, end: datetime | None, month_only: int = 0) -> None:
        self.start, self.end, self.month_only = start, end, month_only

    def holds(self, epoch: float | None) -> bool:
        """Whether an event time (epoch seconds) lies in the period or its slack after it."""
        if epoch is None:
            return False
        at = datetime.fromtimestamp(epoch, UTC)
        if self.month_only:
            before = at - timedelta(days=DATE_SLACK_DAYS)
            return self.month_only in (at.month, before.month)
        assert self.start is not None and self.end is not None
        return self.start <= at < self.end + timedelta(days=DATE_SLACK_DAYS)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def query_period(query: str, now: datetime) -> Period | None:
    """The first date phrase of the query as a period, relative phrases against `now`."""
    text = query.casefold()
    try:
        if m := _DAY_MONTH_YEAR.search(text):
            start = datetime(int(m.group(3)), MONTHS[m.group(2)], int(m.group(1)), tzinfo=UTC)
            return Period(start, start + timedelta(days=1))
        if m := _MONTH_DAY_YEAR.search(text):
            start = datetime(int(m.group(3)), MONTHS[m.group(1)], int(m.group(2)), tzinfo=UTC)
            return Period(start, start + timedelta(days=1))
        if m := _ZH_DATE.search(query):
            year, month, day = int(m.group(1)), m.group(2), m.group(3)
            if month and day:
                start = datetime(year, int(month), int(day), tzinfo=UTC)
                return Period(start, start + timedelta(days=1))
            if month:
                return Period(*_month_span(year, int(month)))
            return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    except ValueError:  # "February 30, 2023": no such day
        return None
    if m := _MONTH_YEAR.search(text):
        return Period(*_month_span(int(m.group(2)), MONTHS[m.group(1)]))
    if m := _YEAR.search(text):
        year = int(m.group(1))
        return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    relative = next((v for k, v in _ZH_RELATIVE.items() if k in query), None)
    if relative is None and (m := _RELATIVE.search(text)):
        relative = m.group(1)
    if relative is not None:
        return _relative(relative, now)
    if m := _MONTH_ALONE.search(text):
        return Period(None, None, month_only=MONTHS[m.group(1)])
    return None


def _relative(phrase: str, now: datetime) -> Period:
    today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if phrase in ('today', 'yesterday'):
        start = today - timedelta(days=1 if phrase == 'yesterday' else 0)
        return Period(start, start + timedelta(days=1))
    if phrase in ('this week', 'last week'):
        start = today - timedelta(days=today.weekday() + (7 if phrase == 'last week' else 0))
        return Period(start, start + timedelta(days=7))
    if phrase in ('this month', 'last month'):
        year, month = today.year, today.month
        if phrase == 'last month':
            year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        return Period(*_month_span(year, month))
    year = today.year - (1 if phrase == 'last year' else 0)
    return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
