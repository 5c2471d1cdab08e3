"""What a question asks of the graph, pure: the slot (where someone lives, works…), whether it
speaks of the asker ("I", 我), the time it names ("in 2023", 去年) and whether it wants history.

A question that names no slot leaves the graph's answer to entity ranking; one that names a slot
and a subject the graph knows gets that subject's facts of the slot, the one holding at the
question's time first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta

from kg.dates import resolve_date

# slot -> the predicates that state it. Order matters in SLOT_WORDS: the first slot whose words
# a question holds wins ("what is my job title" asks for a role, not an employer).
SLOT_PREDICATES: dict[str, frozenset[str]] = {
    'role': frozenset({'role', 'work_as'}),
    'married_to': frozenset({'married_to', 'partner_of', 'engaged_to'}),
    'studies_at': frozenset({'studies_at'}),
    'works_at': frozenset({'works_at'}),
    'lives_in': frozenset({'lives_in'}),
}
# slots whose fact may be stated from either end ("Li Na is Zhang Wei's wife")
SYMMETRIC_SLOTS = frozenset({'married_to'})

_EN_SLOT_WORDS: list[tuple[str, re.Pattern[str]]] = [
    (
        'role',
        re.compile(
            r'\b(job titles?|titles?|roles?|positions?|for a living|professions?|occupations?)\b'
        ),
    ),
    ('married_to', re.compile(r'\b(wife|husband|spouse|married to|partner|fianc[eé]e?)\b')),
    (
        'studies_at',
        re.compile(r'\bwhere\b.*\bstud(?:y|ies|ying|ied)\b|\b(school|university|college)\b'),
    ),
    (
        'works_at',
        re.compile(
            r'\bwhere\b.*\bwork(?:s|ing|ed)?\b|\bwork(?:s|ing|ed)? (?:at|for)\b|'
            r'\b(jobs?|employ(?:s|er|ers|ed)?|company|companies|firm|workplace)\b'
        ),
    ),
    (
        'lives_in',
        re.compile(
            r'\bwhere\b.*\b(li(?:ve|ves|ving|ved)|home|based|resid(?:e|es|ing|ed)|moved?)\b|'
            r'\bli(?:ve|ves|ving|ved) in\b|\b(city|town)\b'
        ),
    ),
]
_ZH_SLOT_WORDS: list[tuple[str, re.Pattern[str]]] = [
    ('role', re.compile(r'职位|职务|头衔|做什么工作|是做什么的|干什么工作|什么职业')),
    ('married_to', re.compile(r'妻子|老婆|丈夫|老公|配偶|爱人')),
    ('studies_at', re.compile(r'哪.{0,3}(?:学校|大学)|在哪.{0,2}(?:上学|读书|就读)')),
    ('works_at', re.compile(r'哪.{0,4}(?:工作|上班|任职|就职)|雇主|哪家公司|什么公司|什么单位')),
    ('lives_in', re.compile(r'住.{0,2}哪|住在哪|哪.{0,4}(?:住|生活|定居)|家.{0,2}在哪|哪个城市')),
]
# a question asks for a slot's value ("where…", "which…"), not when it changed or whether it holds
_NOT_A_VALUE = re.compile(
    r'^\s*(?:when|why|how|would|does|do|did|is|are|was|were|can|could|has|have|will|should)\b|'
    r'为什么|什么时候|多久|多长时间|怎么|吗[？?]?\s*$'
)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|me|my|mine|myself|we|our|us)\b")
_HISTORY = re.compile(
    r'\b(used to|before|previously|formerly|history|ever|all the (?:places|companies|jobs))\b'
    r'|以前|之前|曾经|过去|原来|历史|先前'
)
_DAY = re.compile(
    r'\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}|\d{4}-\d{2}-\d{2}|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?'
    r'[a-z]{3,9}\.?,?\s+\d{4}|\b[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|yesterday|'
    r'today|tonight|tomorrow|昨天|今天|明天|前天|\bdays? ago'
)
_WEEK = re.compile(r'\bweeks?\b|上周|这周|本周|下周|星期')
_MONTH = re.compile(
    r'\d{4}\s*年\s*\d{1,2}\s*月|\b(?:january|february|march|april|may|june|july|august|'
    r'september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b|'
    r'\bmonths?\b|个?月'
)


@dataclass(frozen=True)
class Question:
    """What a query asks of the graph."""

    slot: str | None
    first_person: bool
    # the span of world time the query names, and the instant the graph is read at for it
    period: tuple[datetime, datetime] | None
    as_of: datetime | None
    history: bool

    @property
    def predicates(self) -> frozenset[str]:
        """The predicates stating the slot (none without a slot)."""
        return SLOT_PREDICATES.get(self.slot or '', frozenset())

    @property
    def past(self) -> bool:
        """The query names a time that has ended."""
        return self.as_of is not None


def slot_of(query: str) -> str | None:
    """The slot a query asks about, or None."""
    low = query.casefold()
    if _NOT_A_VALUE.search(low):
        return None
    for slot, pattern in (*_EN_SLOT_WORDS, *_ZH_SLOT_WORDS):
        if pattern.search(low):
            return slot
    return None


def question_period(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The span of world time the query's first date phrase names, relative ones against `now`."""
    start = resolve_date(query, now)
    if start is None:
        return None
    low = query.casefold()
    if _DAY.search(low):
        length: timedelta | relativedelta = timedelta(days=1)
    elif _WEEK.search(low):
        length = timedelta(days=7)
    elif _MONTH.search(low):
        length = relativedelta(months=1)
    else:
        length = relativedelta(years=1)
    return start, start + length


def read_question(query: str, now: datetime) -> Question:
    """The slot, speaker, time and history wish of `query`, asked at `now`.

    `as_of` is set only for a time that has ended: the middle of the period it names. A period
    that is still running ("this year") is now, which needs no `as_of`.
    """
    now = now.astimezone(UTC) if now.tzinfo else now.replace(tzinfo=UTC)
    period = question_period(query, now)
    as_of = None
    if period is not None and period[1] <= now:
        as_of = period[0] + (period[1] - period[0]) / 2
    low = query.casefold()
    return Question(
        slot=slot_of(query),
        first_person=bool(_FIRST_PERSON.search(low)) or '我' in query,
        period=period,
        as_of=as_of,
        history=bool(_HISTORY.search(low)),
    )
