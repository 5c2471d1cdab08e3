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

from core.lazy_re import lazy_compile
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

# A slot question asks for the slot's value of one subject it names in a fixed place: "Where
# does Dana work?", "Which city am I living in now?", "Who employs Nina?", "张伟在哪里工作？". A
# slot word elsewhere ("Which city did John recommend to Tim?", "What happened to John's job?", "the
# beverage company") does not make one: the graph then answers a question nobody asked and its
# evidence outranks the turn that does answer it.
_AUX = r'(?:do|does|did|is|are|was|were|am|has|have|had|will)'
# one to four words naming the subject; never two subjects ("John and Maria")
_SUBJ = r"(?P<s>(?:(?!and\b|or\b)[\w'’.-]+\s+){0,3}?(?!and\b|or\b)[\w'’.-]+)"
_POSS = r"(?P<s>my|our|his|her|their|(?:[\w.-]+\s+){0,2}[\w.-]+['’]s?)"
_ADV = r'(?:(?:currently|now|still|presently|actually|really|usually)\s+)?'
_WHEN = r'(?:\s+(?:now|currently|these days|nowadays|today|at the moment|right now))?'
_END = rf'{_WHEN}(?:\s+(?:back\s+)?(?:in|during)\s+[\w\s,]+)?\s*[?.!]?\s*$'
_WHERE = rf"^where(?:['’]s|\s+{_AUX})\s+{_SUBJ}\s+{_ADV}"
_WHICH = r'^(?:in\s+|at\s+|for\s+)?(?:which|what)\s+'


def _forms(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(lazy_compile(p, re.IGNORECASE) for p in patterns)


_EN_SLOT_WORDS: list[tuple[str, tuple[re.Pattern[str], ...]]] = [
    (
        'role',
        _forms(
            rf"^what(?:['’]s|\s+is|\s+was)\s+{_POSS}\s+(?:current\s+|new\s+|present\s+|"
            r'official\s+)?(?:job\s+title|title|role|position|profession|occupation)\b'
            r'(?!\s+(?:on|in|of|within|for|with|to|as|during)\b)',
            r"^what(?:['’]s|\s+is|\s+was)\s+the\s+(?:job\s+title|title|role|position|"
            rf'profession|occupation)\s+of\s+{_SUBJ}{_END}',
            rf'^what\s+{_AUX}\s+{_SUBJ}\s+do\s+for\s+(?:a\s+living|work)\b',
            rf'^what\s+(?:kind\s+of\s+|type\s+of\s+)?(?:job|work)\s+{_AUX}\s+{_SUBJ}\s+'
            rf'(?:do|doing|have){_END}',
        ),
    ),
    (
        'married_to',
        _forms(
            rf"^who(?:['’]s|\s+is|\s+was)\s+{_POSS}\s+(?:wife|husband|spouse|partner|"
            rf'fianc[eé]e?){_END}',
            rf'^who\s+{_AUX}\s+{_SUBJ}\s+{_ADV}(?:married\s+to|engaged\s+to|marry|marrying)\b',
            r"^(?:who(?:['’]s|\s+is|\s+was)|what(?:['’]s|\s+is)\s+the\s+name\s+of)\s+"
            rf'(?:the\s+)?(?:wife|husband|spouse|partner)\s+of\s+{_SUBJ}{_END}',
            rf"^what(?:['’]s|\s+is)\s+{_POSS}\s+(?:wife|husband|spouse|partner)(?:['’]s)?\s+"
            r'name\b',
        ),
    ),
    (
        'studies_at',
        _forms(
            rf'{_WHERE}(?:stud(?:y|ies|ying|ied)|attend(?:s|ing|ed)?|'
            r'(?:go|goes|going|went)\s+to\s+(?:school|college|university|uni))\b',
            rf'{_WHICH}(?:school|university|college|uni)\s+{_AUX}\s+{_SUBJ}\s+{_ADV}'
            r'(?:attend(?:s|ing|ed)?|(?:go|goes|going|went)\s+to|stud(?:y|ies|ying|ied)\s+at|at|'
            r'enrolled)\b',
        ),
    ),
    (
        'works_at',
        _forms(
            rf'{_WHERE}(?:work(?:s|ing|ed)?|employed)\b(?!\s+(?:out|on|with|together)\b)',
            rf'{_WHICH}(?:company|firm|employer|organi[sz]ation|business|startup|agency)\s+'
            rf'{_AUX}\s+{_SUBJ}\s+{_ADV}(?:(?:work(?:s|ing|ed)?|employed|join(?:ed)?|hired)\b|'
            rf'(?:at|with){_END})',
            r'^(?:who|(?:which|what)\s+(?:company|firm|organi[sz]ation))\s+'
            rf'(?:employs|employed|hired|hires|has\s+hired)\s+{_SUBJ}{_END}',
            rf"^(?:who|what)(?:['’]s|\s+is|\s+was)\s+{_POSS}\s+(?:current\s+|new\s+|"
            rf'present\s+|latest\s+|old\s+|former\s+)?(?:employer|company|workplace|job|firm)'
            rf'{_END}',
        ),
    ),
    (
        'lives_in',
        _forms(
            rf'{_WHERE}(?:li(?:ve|ves|ving|ved)|resid(?:e|es|ing|ed)|based|staying|settled|'
            r'call(?:s|ing)?\s+home)\b',
            rf'{_WHERE}(?:move|moved|moving|relocate|relocated|relocating)\b(?!\s+from\b)',
            rf"^where(?:['’]s|\s+is|\s+was)\s+{_POSS}\s+(?:current\s+|new\s+)?"
            rf'(?:home|residence){_END}',
            rf'{_WHICH}(?:city|town|country|place|neighbou?rhood|state)\s+{_AUX}\s+{_SUBJ}\s+'
            rf'{_ADV}(?:li(?:ve|ves|ving|ved)|resid(?:e|es|ing|ed)|based|settled|'
            r'call(?:s|ing)?\s+home|(?:move|moved|moving|relocated?)\s+to)\b',
        ),
    ),
]
# Chinese: the slot phrase asks for the value; the subject is what precedes it ("张伟", "我的")
_ZH_SLOT_WORDS: list[tuple[str, tuple[re.Pattern[str], ...]]] = [
    (
        'role',
        _forms(
            r'的?(?:职位|职务|头衔|职业)是什么|什么职位|什么职务|什么职业|做什么工作|是做什么的|'
            r'干什么工作|是干什么的'
        ),
    ),
    (
        'married_to',
        _forms(r'的?(?:妻子|老婆|丈夫|老公|配偶|爱人|太太)是谁|[和跟]谁结[婚了]|嫁给了?谁|娶了?谁'),
    ),
    ('studies_at', _forms(r'在?哪.{0,3}(?:学校|大学)|在?哪.{0,2}(?:上学|读书|就读)')),
    (
        'works_at',
        _forms(
            r'在?哪.{0,4}(?:工作|上班|任职|就职)|的?雇主|在(?:哪家|什么)(?:公司|单位)|'
            r'(?:哪家|什么)公司.{0,2}(?:工作|上班|任职|就职)'
        ),
    ),
    (
        'lives_in',
        _forms(
            r'住.{0,2}哪|在?哪.{0,4}(?:住|生活|定居)|家.{0,2}在哪|'
            r'(?:住|生活|定居)在?(?:哪个|什么)(?:城市|地方)'
        ),
    ),
]
# a subject that is someone else's relation ("my wife", "Dana's sister", 我妻子) or a bare
# pronoun ("she") names nobody the graph can resolve: the question is not the graph's to answer
_EN_RELATION = lazy_compile(r"^(?:my|our|his|her|their|your|[\w.-]+['’]s?)\s+\w")
_EN_UNRESOLVED = frozenset({'he', 'she', 'they', 'it', 'you', 'him', 'them', 'this', 'that'})
_ZH_RELATION = lazy_compile(
    r'妻子|老婆|丈夫|老公|爸爸|妈妈|父亲|母亲|哥哥|姐姐|弟弟|妹妹|儿子|女儿|朋友|同事|老板|'
    r'男友|女友|室友|邻居|你|他|她|它'
)
_EN_SELF = frozenset({'i', 'me', 'my', 'we', 'our', 'us', 'myself'})
# a question asks for a slot's value ("where…", "which…"), not when it changed or whether it holds
_NOT_A_VALUE = lazy_compile(
    r'^\s*(?:when|why|how|would|does|do|did|is|are|was|were|can|could|has|have|will|should)\b|'
    r'为什么|什么时候|多久|多长时间|怎么|吗[？?]?\s*$'
)
_FIRST_PERSON = lazy_compile(r"\b(i|i'm|i've|i'd|me|my|mine|myself|we|our|us)\b")
_HISTORY = lazy_compile(
    r'\b(used to|before|previously|formerly|history|ever|all the (?:places|companies|jobs))\b'
    r'|以前|之前|曾经|过去|原来|历史|先前'
)
_DAY = lazy_compile(
    r'\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}|\d{4}-\d{2}-\d{2}|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?'
    r'[a-z]{3,9}\.?,?\s+\d{4}|\b[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|yesterday|'
    r'today|tonight|tomorrow|昨天|今天|明天|前天|\bdays? ago'
)
_WEEK = lazy_compile(r'\bweeks?\b|上周|这周|本周|下周|星期')
_MONTH = lazy_compile(
    r'\d{4}\s*年\s*\d{1,2}\s*月|\b(?:january|february|march|april|may|june|july|august|'
    r'september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b|'
    r'\bmonths?\b|个?月'
)


@dataclass(frozen=True)
class Question:
    """What a query asks of the graph."""

    slot: str | None
    # the words naming whose slot it asks ("Dana", "my", "张伟现在"); None without a slot
    subject: str | None
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
    """The slot a query asks the value of, for a subject it names, or None."""
    return slot_and_subject(query)[0]


def slot_and_subject(query: str) -> tuple[str | None, str | None]:
    """The slot a query asks the value of and the words naming whose; (None, None) when it asks
    none, or asks it of someone only a relation or a pronoun names ("my wife", "she")."""
    text = query.strip()
    if _NOT_A_VALUE.search(text.casefold()):
        return None, None
    for slot, forms in _EN_SLOT_WORDS:
        for form in forms:
            m = form.search(text)
            if m:
                subject = m.group('s').strip()
                if _EN_RELATION.match(subject) or subject.casefold() in _EN_UNRESOLVED:
                    return None, None
                return slot, subject
    for slot, forms in _ZH_SLOT_WORDS:
        for form in forms:
            m = form.search(text)
            if m:
                subject = text[: m.start()].strip()
                if not subject or _ZH_RELATION.search(subject):
                    return None, None
                return slot, subject
    return None, None


def _first_person(query: str, subject: str | None) -> bool:
    """Whether the question is the asker's: for a slot question, its subject is ("Where do I
    live?", 我住在哪里), not "I" elsewhere in it ("Where does Dana work, do you know?")."""
    if subject is None:
        return bool(_FIRST_PERSON.search(query.casefold())) or '我' in query
    return subject.casefold() in _EN_SELF or '我' in subject


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
    slot, subject = slot_and_subject(query)
    return Question(
        slot=slot,
        subject=subject,
        first_person=_first_person(query, subject),
        period=period,
        as_of=as_of,
        history=bool(_HISTORY.search(low)),
    )
