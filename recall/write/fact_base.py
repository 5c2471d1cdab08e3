"""The fact, and the clauses a text is read in: what every reader of facts shares.

`facts` reads a clause's facts about people and `answer_facts` those about how the speaker wants
answers; both build `Fact`s and cut texts the same way, so they live below both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.text_cache import text_cache
from recall.write.fact_patterns import CLAUSE_CUT, LEAD, NOT_BUT_EN, SPEAKER

SELF = '@self'

# a write reads a new text's clauses several times (facts, corrections, changes, the answer
# language's cue) and weighs it against ~18 neighbours, whose texts earlier writes read: what
# is read of a text is held per text (core.text_cache: 4,096 texts of up to 512 characters and
# 512 up to 4,096, ~4.2M characters of keys at most; one cache of 4,096 held up to 16.8M)
READ_CACHE = 4096

# a courtesy after the request ("No emoji in your replies, please", "…，谢谢"): no clause of its
# own, or the request's memory would keep a clause no later memory replaces
_COURTESY = re.compile(r'(?i)(?:please|pls|thanks|thank you|cheers|谢谢你?|多谢|麻烦了|拜托了?)\W*')

SINGLE_VALUED = frozenset(
    {
        'lives_in',
        'works_at',
        'title',
        'name',
        'phone',
        'email',
        'partner',
        'editor',
        'answer_format',
        'answer_language',
        'answer_length',
        'unit',
    }
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One claim of a clause: `subject` (SELF or a folded name) has `value` in `slot`."""

    subject: str
    slot: str
    value: str
    positive: bool = True
    past: bool = False
    clause: int = 0
    # values the clause says are over: "instead of X", "over X", "from X to Y", "不再用X"
    retracts: tuple[str, ...] = field(default=())
    # a preference said as a correction of what the speaker said last ("Actually, I prefer
    # Beth"): the slots whose latest value it replaces
    amends: tuple[str, ...] = field(default=())

    @property
    def single(self) -> bool:
        """Whether the slot holds one value per subject (attributes "my X is Y" included)."""
        # "email:work", "unit:distance": a qualified slot is single-valued as its base is
        return self.slot.split(':')[0] in SINGLE_VALUED or self.slot.startswith('attr:')

    def shown(self) -> str:
        """The value as a receipt shows it: negated ones as "not X", past ones as "X (past)"."""
        text = self.value if self.positive else f'not {self.value}'
        return f'{text} (past)' if self.past else text


def may_say_not_but(text: str) -> bool:
    """False when `text` holds no match of NOT_BUT_EN: an ASCII text without "not " or "n't ",
    which every match holds (IGNORECASE matches some other letters to ASCII ones, so another
    text may)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return 'not ' in lowered or "n't " in lowered


def split_clauses(cut: re.Pattern[str], text: str) -> list[str]:
    """`cut.split(text)` (a pattern without groups), except at the "but" of "not X but Y":
    a correction naming the old value and the new is one clause."""
    kept = [m.span('cut') for m in NOT_BUT_EN.finditer(text)] if may_say_not_but(text) else []
    pieces, start = [], 0
    for found in cut.finditer(text):
        if not any(a <= found.start() and found.end() <= b for a, b in kept):
            pieces.append(text[start : found.start()])
            start = found.end()
    pieces.append(text[start:])
    return pieces


def clauses(text: str) -> list[str]:
    """The clauses of `text` that carry content, speaker prefix cut ("Ann: …"); "not X but Y"
    stays one clause, a closing courtesy ("…, please") is none."""
    return list(_clauses(text))


@text_cache(READ_CACHE)
def _clauses(text: str) -> tuple[str, ...]:
    body = SPEAKER.sub('', text, count=1)
    out = []
    lead = ''
    for piece in split_clauses(CLAUSE_CUT, body):
        piece = (piece or '').strip(' \t"\'“”‘’()（）')
        if LEAD.fullmatch(f'{piece},'):
            # "Actually, I prefer Beth", "其实，我在阿里巴巴工作": one clause, the lead no fact
            sep = '，' if re.search(r'[\u4e00-\u9fff]$', piece) else ', '
            lead = f'{lead}{piece}{sep}'
        elif re.search(r'[\w\u4e00-\u9fff]', piece):
            out.append(f'{lead}{piece}')
            lead = ''
    while len(out) > 1 and _COURTESY.fullmatch(out[-1]):
        out.pop()
    return tuple(out)
