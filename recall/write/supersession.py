"""Supersession by fact: which facts of an older memory a newer one replaces, and why.

Three rules, each about one slot of one subject, never about a shared verb:
- `slot`: a single-valued slot (home, employer, title, name, phone, email, partner, editor,
  answer format or language, "my X is Y") gets another value: "I moved to York" replaces
  "I live in Leeds";
- `negation`: the same value with the opposite polarity, in any slot: "I don't like hiking"
  replaces "I like hiking", "以后回答可以用表格了" replaces "回答不要用表格";
- `retracted`: the newer memory names the old value as over: "prose instead of bullet points",
  "从阿里巴巴跳槽到了字节跳动";
- `corrected`: the value named as over is the current value of another single-valued slot: "I
  prefer Robert now instead of Bob" replaces "Call me Bob" (the name slot, Bob → Robert); a
  preference said as a correction without naming what it corrects ("Actually, I prefer Beth")
  replaces the speaker's latest name (for a name) or preference.
A fact stated in the past tense ("I used to live in Rome") replaces nothing. Each replaced fact
is recorded with the slot and both values; a memory is hidden only when every clause of it
states facts and all of them were replaced, so a turn with a job and a home keeps its job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.text_cache import text_cache
from recall.models import Supersession
from recall.write.facts import (
    READ_CACHE,
    SELF,
    SINGLE_VALUED,
    Fact,
    changed_slot,
    clauses,
    correction_facts,
    facts_of,
)

# memories that are records of a text rather than claims about a person: never replaced, and
# never the reason another memory is
RECORD_KINDS = frozenset({'document', 'summary', 'episodic', 'dream'})


@dataclass(frozen=True, slots=True)
class Stated:
    """A memory as supersession sees it: its id, facts, speaker and clause count."""

    id: str
    facts: tuple[Fact, ...]
    speaker: str | None
    clause_count: int

    @classmethod
    def of(cls, ident: str, text: str, speaker: str | None, slots: Sequence[str] = ()) -> Stated:
        """The facts `text` states; first-person facts belong to `speaker`. A clause telling of
        a change of a slot the memory names ("I got promoted, I am a manager now") is part of
        that fact, not a clause of its own. `slots`: the memory's slot tags, where a correction
        is tagged with the slot it corrected."""
        read, changes = _read(text)
        facts = _corrected(read, slots)
        filled = {f.slot for f in facts}
        stated = {f.clause for f in facts}
        count = sum(
            1 for index, changed in enumerate(changes) if index in stated or changed not in filled
        )
        return cls(ident, facts, speaker, count)

    def subject(self, fact: Fact) -> str:
        """The fact's subject: the speaker (folded) for first-person facts."""
        if fact.subject == SELF:
            return self.speaker.casefold() if self.speaker else SELF
        return fact.subject


# a write weighs each new memory against its neighbours, whose texts it read at earlier writes
@text_cache(READ_CACHE)
def _read(text: str) -> tuple[tuple[Fact, ...], tuple[str | None, ...]]:
    """The facts of `text` with its corrections, and the slot each clause tells a change of."""
    return _with_corrections(text), tuple(changed_slot(c) for c in clauses(text))


def _with_corrections(text: str) -> tuple[Fact, ...]:
    """The facts of `text`, a clause's explicit correction in place of what else it reads there
    ("编辑器不是Vim而是Emacs" is no editor "vim而是emacs")."""
    stated = facts_of(text)
    # "把列表换成段落" names an answer format and the one it replaces: the slot's own fact, with
    # its canonical values, says it better than the correction's words
    known = {f.clause for f in stated if f.retracts}
    corrections = [c for c in correction_facts(text) if c.clause not in known]
    fixed = {f.clause for f in corrections}
    return (*(f for f in stated if f.clause not in fixed), *corrections)


def _corrected(facts: tuple[Fact, ...], slots: Sequence[str]) -> tuple[Fact, ...]:
    """`facts` with a correction's fact moved to the single-valued slot it corrected ("I prefer
    Robert now instead of Bob" tagged `name` states the name), so that slot's next value
    replaces it in turn."""
    held = {f.slot for f in facts}
    moved = [s for s in slots if s not in held and s.split(':')[0] in SINGLE_VALUED]
    if not moved:
        return facts
    return tuple(
        replace(f, slot=moved[0]) if (f.retracts or f.amends) and f.positive and not f.past else f
        for f in facts
    )


_STEM = re.compile(r'(?:ing|es|s)$')


def _tokens(value: str) -> frozenset[str]:
    if re.search(r'[\u4e00-\u9fff]', value):
        return frozenset({value.replace(' ', '')})
    return frozenset(_STEM.sub('', w) if len(w) > 4 else w for w in value.split())


def same_value(a: str, b: str) -> bool:
    """Whether two fact values name the same thing ("dogs" / "dog", case and spacing aside)."""
    return _tokens(a) == _tokens(b)


def _rule(new: Fact, old: Fact) -> str | None:
    if new.past or new.slot != old.slot:
        if not new.past and any(same_value(r, old.value) for r in new.retracts) and old.positive:
            if _related(new.slot, old.slot):
                return 'retracted'
            # "I prefer Robert now instead of Bob" when the name is Bob: the value it names as
            # over is the current one of a single-valued slot, so the slot takes the new value
            return 'corrected' if old.single and not old.past else None
        return None
    if new.positive != old.positive and same_value(new.value, old.value):
        return 'negation'
    if any(same_value(r, old.value) for r in new.retracts) and old.positive:
        return 'retracted'
    if new.single and new.positive and old.positive and not same_value(new.value, old.value):
        return 'slot'
    return None


def _amended(new: Fact, old: Fact) -> str | None:
    # "Call me Anna" then "Actually, I prefer Beth": the name is the value it amends
    if new.past or old.past or not old.positive or old.slot not in new.amends:
        return None
    return None if same_value(new.value, old.value) else 'corrected'


def _related(a: str, b: str) -> bool:
    # "I now prefer tea over coffee" retracts "I like coffee" as well as "I prefer coffee"
    return {a, b} <= {'likes', 'prefers', 'habit'}


def replaced(
    new: Stated, old: Stated, *, rule_name: str | None = None, amended: bool = False
) -> list[Supersession]:
    """The facts of `old` that `new` replaces (same subject and slot), one record each.
    `amended`: `old` is the memory a preference of `new` said as a correction amends (the
    speaker's latest of the slots it may replace)."""
    out: list[Supersession] = []
    for o in old.facts:
        for n in new.facts:
            if new.subject(n) != old.subject(o):
                continue
            rule = _rule(n, o) or (_amended(n, o) if amended else None)
            if rule is None:
                continue
            out.append(
                Supersession(
                    slot=o.slot,
                    subject=_shown_subject(old.subject(o)),
                    old_value=o.shown(),
                    new_value=_replacement(new, n).shown(),
                    by=new.id,
                    rule=rule_name or rule,
                    clause=o.clause,
                )
            )
            break
    return out


def _replacement(new: Stated, fact: Fact) -> Fact:
    """The value `new` gives the slot `fact` negates: "Stop using pounds; kilograms please" says
    the unit is kilograms, not only that it is no longer pounds."""
    if fact.positive or not fact.single:
        return fact
    given = (
        f
        for f in new.facts
        if f.positive and not f.past and f.slot == fact.slot and new.subject(f) == new.subject(fact)
    )
    return next(given, fact)


def amended_slots(new: Stated, old: Stated) -> set[str]:
    """The slots of which `old` states a current value, of the same subject, that a preference
    of `new` said as a correction may replace."""
    return {
        o.slot
        for n in new.facts
        if n.amends
        for o in old.facts
        if o.slot in n.amends and o.positive and not o.past and new.subject(n) == old.subject(o)
    }


def past_outdated(stated: Stated, by: Stated) -> list[Supersession]:
    """Facts `stated` gives in the past tense ("I worked at Acme in 2023") for which `by`
    states another current value of the slot: history, not the current value."""
    out: list[Supersession] = []
    for o in stated.facts:
        if not (o.past and o.single):
            continue
        for n in by.facts:
            if (
                not n.past
                and n.positive
                and n.slot == o.slot
                and stated.subject(o) == by.subject(n)
                and not same_value(o.value, n.value)
            ):
                out.append(
                    Supersession(
                        slot=o.slot,
                        subject=_shown_subject(stated.subject(o)),
                        old_value=o.shown(),
                        new_value=n.shown(),
                        by=by.id,
                        rule='past',
                        clause=o.clause,
                    )
                )
                break
    return out


def _shown_subject(subject: str) -> str:
    return 'self' if subject == SELF else subject


def fully_replaced(stated: Stated, records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether every clause of the memory states facts and every one of them is replaced or
    told in the past tense (asked once a later memory replaced one of them)."""
    if not stated.facts:
        return False
    gone = {(r.get('clause', 0), r.get('slot'), r.get('old_value')) for r in records}
    facts_by_clause: dict[int, list[Fact]] = {}
    for f in stated.facts:
        facts_by_clause.setdefault(f.clause, []).append(f)
    if len(facts_by_clause) < stated.clause_count:
        return False  # a clause with no fact ("…with my two cats") is still true for all we know
    # a job's title goes with its employer: "an engineer at Initech" ended with Initech
    left = {c for c, slot, _ in gone if slot == 'works_at'}
    # a fact told in the past tense is history already: "I worked at Acme as an analyst"
    return all(
        f.past or (f.clause, f.slot, f.shown()) in gone or (f.slot == 'title' and f.clause in left)
        for fs in facts_by_clause.values()
        for f in fs
    )


def slot_tags(facts: Sequence[Fact]) -> list[str]:
    """The slots the facts fill, once each, so a later fact of the slot finds the memory."""
    return list(dict.fromkeys(f.slot for f in facts))
