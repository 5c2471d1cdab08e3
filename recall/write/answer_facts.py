"""How the speaker wants answers, as facts: format, language, length, units and rules.

"Answer in bullet points", "以后用英文回答", "Keep it short", "Use kilometres", "回答里不要用emoji":
each a single-valued setting of the speaker (or a rule, allowed or forbidden), the values named
as over ("instead of X", "不要X", "把X换成Y") retracted. Pure functions over text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.lazy_re import lazy_compile
from recall.normalize import normalize_text
from recall.write.fact_base import SELF, Fact, clauses
from recall.write.fact_patterns import (
    ANSWER_CUE,
    CHOICE_CUES,
    CHOICES,
    COMPARED_DOWN,
    DROPPED_AFTER,
    FORMAT_ANSWERS_ZH,
    FORMAT_CUE,
    FORMAT_DESCRIBES_ZH,
    FORMAT_DISLIKED,
    FORMAT_LIFT_EN,
    FORMAT_LIFT_ZH,
    FORMAT_LIKING_ZH,
    FORMAT_OWN_ACT_ZH,
    FORMAT_OWN_WRITE_ZH,
    FORMAT_RE,
    LANG_ALONE_ZH,
    LANG_WORD,
    LANGS,
    NEG_CUE,
    REPLACED_BY,
    RULE_FEELING,
    RULE_LIFT_ZH,
    RULE_LOCATIVE,
    RULE_NOISE,
    RULE_ZH,
)

FORMAT_RE_BY_NAME = dict(FORMAT_RE)

# where a value word of CHOICES and FORMAT_RE may start: each of their patterns opens with it
_VALUE_START = r'(?i)(?:\b|(?<=[\u4e00-\u9fff]))'


def _any_value(patterns: list[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern that finds a clause holding a match of any of `patterns` (each
    `_VALUE_START` then a value group): asked before them, it spares most clauses, which name no
    value, the one search per pattern (~12 a clause; a third of reading a LoCoMo turn's facts)."""
    bodies = [p.pattern.removeprefix(_VALUE_START) for p in patterns]
    if any(b == p.pattern for b, p in zip(bodies, patterns, strict=True)):
        raise ValueError('a value pattern does not open with _VALUE_START')
    return lazy_compile(f'{_VALUE_START}(?:{"|".join(bodies)})')


_CHOICE_VALUE = _any_value([p for _, values in CHOICES for _, p in values])
_FORMAT_VALUE = _any_value([p for _, p in FORMAT_RE])
# every match of LANG_WORD holds one of the languages' words: a clause without one names no
# language (its ANSWER_CUE, asked of the whole turn, is dearer than this search)
_LANG_NAMED = lazy_compile('(?i)' + '|'.join(p for _, p in LANGS))

# emoji in the answers, an English rule as 回答里不要用emoji is a Chinese one: forbidden by an
# order ("Don't use emoji in answers", "No emoji in your replies"), allowed by a permission
# ("You can use emoji again", "Emoji are fine now"); anchored on the whole clause, so the
# speaker's own ("I don't use emoji when I text my mum") and a taste ("My sister loves emoji")
# are none
_EMOJI_WORD = re.compile(r'(?i)\b(?:emojis?|emoticons?)\b')
_EMOJI = r'(?:emojis?|emoticons?)'
_IN_ANSWERS = r'(?:\s+in\s+(?:your\s+|the\s+|any\s+|all\s+)?(?:answers?|repl(?:y|ies)|responses?))'
_RULE_TAIL = r'(?:\W+(?:please|thanks|anymore|any more|again|now|from now on|ever))*\W*$'
_EMOJI_BAN = re.compile(
    r'(?i)^(?:(?:please|just|ok|okay|then)\W+)*'
    r"(?:(?:don't|do not|never|stop|quit|avoid)\s+(?:us(?:e|ing)|add(?:ing)?|includ(?:e|ing)|"
    rf'put(?:ting)?)|no(?:\s+more)?|avoid)\s+(?:any\s+)?{_EMOJI}{_IN_ANSWERS}?{_RULE_TAIL}'
)
_EMOJI_ALLOWED = re.compile(
    r'(?i)^(?:(?:ok|okay|then|now)\W+)*(?:(?:you\s+(?:can|may)(?:\s+now)?|feel free to|go ahead '
    rf'and)\s+(?:use|add|include|put)\s+(?:some\s+)?{_EMOJI}{_IN_ANSWERS}?|'
    # "Emoji are fine": an opinion; "... now", "... again", "... in answers": a permission
    rf'{_EMOJI}\s+(?:are|is)\s+(?:now\s+)?(?:fine|ok|okay|allowed|alright|all right|welcome)'
    rf'(?={_IN_ANSWERS}|\s+(?:again|now)\b))'
    rf'{_IN_ANSWERS}?{_RULE_TAIL}'
)


# every English word a match of `_CHOICE_VALUE`, `_FORMAT_VALUE`, `_LANG_NAMED` or the emoji
# rules holds, lower-cased: an ASCII clause with none of them asks for no answer setting. (An
# ASCII clause only: IGNORECASE matches some other letters to ASCII ones, 'ſ' to 's'.)
ASCII_VALUE_WORDS = (
    # lengths and units (CHOICES)
    'short', 'brief', 'concise', 'terse', 'detail', 'long', 'thorough', 'in-depth', 'mile',
    'km', 'kilo', 'pound', 'lb', 'kg', 'celsius', 'centigrade', 'fahrenheit',
    # formats (FORMATS)
    'bullet', 'list', 'prose', 'paragraph', 'full sentences', 'flowing text', 'table',
    'plain text', 'markdown',
    # languages (LANGS) and the emoji rule
    'chinese', 'mandarin', 'english', 'japanese', 'german', 'french', 'spanish', 'emoji',
    'emoticon',
)  # fmt: skip


def names_no_value(clause: str) -> bool:
    """Whether `clause` is ASCII and holds none of `ASCII_VALUE_WORDS`: most clauses, which
    the four value searches of `answer_facts` (~12 us a clause) would each scan to find none."""
    if not clause.isascii():
        return False
    lowered = clause.lower()
    for word in ASCII_VALUE_WORDS:  # noqa: SIM110 - a loop: no generator frame per clause
        if word in lowered:
            return False
    return True


def answer_facts(clause: str, index: int, text: str) -> list[Fact]:
    """The answer settings a clause of the speaker's asks for: length and units, format,
    language and the English emoji rule (`text` is the whole turn, whose other clauses may carry
    the cue)."""
    if names_no_value(clause):
        return []
    return [
        *_choice_facts(clause, index, text),
        *_format_facts(clause, index, text),
        *_language_facts(clause, index, text),
        *_emoji_rule(clause, index),
    ]


def _emoji_rule(clause: str, index: int) -> list[Fact]:
    """Emoji in the answers forbidden ("Don't use emoji in answers") or allowed again ("You can
    use emoji again", "The ban on emoji is lifted"): a rule, as 回答里不要用emoji is."""
    if _EMOJI_BAN.match(clause):
        return [Fact(SELF, 'rule', 'use emoji', positive=False, clause=index)]
    lifted = any(_lifted(clause, m.start(), m.end()) for m in _EMOJI_WORD.finditer(clause))
    if lifted or _EMOJI_ALLOWED.match(clause):
        return [Fact(SELF, 'rule', 'use emoji', clause=index)]
    return []


def _format_facts(clause: str, index: int, text: str) -> list[Fact]:
    if not _FORMAT_VALUE.search(clause):
        return []
    found: list[tuple[int, str]] = []
    lifted = False
    for name, pattern in FORMAT_RE:
        for m in pattern.finditer(clause):
            lift = _lifted(clause, m.start(), m.end())
            if lift or not _format_elsewhere(clause, m.start(), m.end()):
                found.append((m.start(), name))
            lifted = lifted or lift
    if not found:
        return []
    # a bare "Prose, not bullet points, please": the cue may stand in another short clause
    cued = (
        lifted
        or FORMAT_CUE.search(clause)
        or (len(clause.split()) <= 4 and FORMAT_CUE.search(text))
    )
    if not cued:
        return []
    found.sort()
    positive: list[str] = []
    negative: list[str] = []
    for start, name in found:
        after = FORMAT_RE_BY_NAME[name].sub('', clause[start:], count=1)
        # a cue counts for the format word it stands in front of (few words between)
        end = len(clause) - len(after)
        disliked = FORMAT_DISLIKED.search(after) or _over(clause, start, end)
        (negative if disliked else positive).append(name)
    if lifted or re.search(
        r'可以|能|allowed|fine|okay|ok to|不再?(?:禁止|反对)|no longer (?:ban|forbid)', clause, re.I
    ):
        negative = [n for n in negative if n not in positive]
        # "以后回答可以用表格了": a permission, whatever negation preceded it in the past
        positive = positive or [n for _, n in found]
        negative = [n for n in negative if n not in positive]
    if positive:
        retracts = tuple(dict.fromkeys(n for n in negative if n != positive[0]))
        return [Fact(SELF, 'answer_format', positive[0], clause=index, retracts=retracts)]
    return [Fact(SELF, 'answer_format', n, positive=False, clause=index) for n in negative]


def _format_elsewhere(clause: str, start: int, end: int) -> bool:
    """Whether the Chinese format word at `start:end` is about a thing the speaker reads, makes
    or describes ("我喜欢看段落很长的小说"), in a clause that does not speak of answers."""
    if not re.search(r'[\u4e00-\u9fff]', clause[start:end]) or FORMAT_ANSWERS_ZH.search(clause):
        return False
    liking = FORMAT_LIKING_ZH.match(clause[:start])
    before = clause[liking.end() if liking else 0 : start]
    return bool(
        FORMAT_OWN_ACT_ZH.search(before)
        or (liking and FORMAT_OWN_WRITE_ZH.search(before))
        or FORMAT_DESCRIBES_ZH.match(clause[end:])
    )


def _lifted(clause: str, start: int, end: int) -> bool:
    """Whether the restriction on the format word at `start:end` is lifted ("表格的限制取消了",
    "取消对表格的限制", "The ban on tables is lifted"): a permission, as "以后回答可以用表格了"
    is."""
    lift = FORMAT_LIFT_ZH if re.search(r'[\u4e00-\u9fff]', clause) else FORMAT_LIFT_EN
    before, after = lift[0].match(clause[:start]), lift[1].match(clause[end:])
    return bool(before and after and (before.group('v') or after.group('v')))


# asked once per clause of the same text: re-splitting the text each time made reading a text
# quadratic in its clauses
@lru_cache(maxsize=256)
def _language_alone(text: str) -> bool:
    """Whether a clause of the turn is a language alone with its lead ("以后中文" asks for a
    language, "中文" alone does not)."""
    return any(LANG_ALONE_ZH.match(c.strip(' ，。！!；;')) for c in clauses(text))


@lru_cache(maxsize=256)
def _speaks_of_answers(text: str) -> bool:
    """Whether the turn speaks of answers or asks for a language alone: asked at every clause
    of a text, about the whole text."""
    return ANSWER_CUE.search(text) is not None or _language_alone(text)


def _language_facts(clause: str, index: int, text: str) -> list[Fact]:
    """The answer language a clause asks for: a language named where the turn speaks of answers
    ("answer in English", "English replies", "回复都用英文", "…，改成英文"), the ones after
    "instead of"/"not"/"不要" retracted, as formats are."""
    if not _LANG_NAMED.search(clause) or not _speaks_of_answers(text):
        return []
    named: list[tuple[int, int, str]] = []
    for m in LANG_WORD.finditer(clause):
        found = m.group('en') or m.group('lead') or m.group('you') or m.group('bare')
        word = (found or m.group('zh') or '').lower()
        name = next((n for n, pattern in LANGS if re.fullmatch(pattern, word)), None)
        if name is not None:
            # where the language word starts: "not Spanish" is negated by the match's own "not"
            start = m.start('zh') if found is None else clause.index(found, m.start())
            named.append((start, start + len(word), name))
    if not named:
        return []
    negative = [n for start, end, n in named if _over(clause, start, end)]
    positive = [n for _, _, n in named if n not in negative]
    if positive:
        retracts = tuple(dict.fromkeys(n for n in negative if n != positive[0]))
        return [Fact(SELF, 'answer_language', positive[0], clause=index, retracts=retracts)]
    return [Fact(SELF, 'answer_language', n, positive=False, clause=index) for n in negative]


def _choice_facts(clause: str, index: int, text: str) -> list[Fact]:
    """Answer length and units: the values named, those after "instead of"/"not" retracted."""
    out: list[Fact] = []
    if not _CHOICE_VALUE.search(clause):
        return out
    for slot, values in CHOICES:
        named = [
            (m.start(), m.end(), name) for name, pattern in values for m in pattern.finditer(clause)
        ]
        if not named or not CHOICE_CUES[slot.split(':')[0]].search(text):
            continue
        named.sort()
        negative = [n for start, end, n in named if _over(clause, start, end)]
        positive = [n for _, _, n in named if n not in negative]
        if positive:
            retracts = tuple(n for n in negative if n != positive[0])
            out.append(Fact(SELF, slot, positive[0], clause=index, retracts=retracts))
        else:
            out += [Fact(SELF, slot, n, positive=False, clause=index) for n in negative]
    return out


def _over(clause: str, start: int, end: int) -> bool:
    """Whether the value at `start:end` is named as over: negated ("not X", "不要X") or changed
    into another ("把X换成Y")."""
    return bool(
        NEG_CUE.search(clause[:start][-40:])
        or REPLACED_BY.match(clause[end:])
        or DROPPED_AFTER.match(clause[end:])
        or (COMPARED_DOWN[0].search(clause[:start]) and COMPARED_DOWN[1].match(clause[end:]))
    )


def rule_facts(rest: str, index: int) -> list[Fact]:
    """A rule for the assistant, forbidden or allowed ("回答里不要用emoji", "以后回答可以用emoji
    了"), as one value: its topic and action, so a permission negates the same prohibition."""
    m = RULE_ZH.match(rest)
    if m is None:
        return _rule_lifted(rest, index)
    topic, action = m.group('t'), m.group('a').strip()
    place = RULE_LOCATIVE.match(action)
    if place:
        topic, action = f'{topic}{place.group("t")}', place.group('a')
    parts = []
    for part in (topic, action):
        for _ in range(3):
            part = RULE_NOISE.sub('', part)
        parts.append(part.replace('使用', '用'))
    if len(parts[1]) < 2 or RULE_FEELING.match(parts[1]):
        return []
    # every rule is one for the answers: "回答里不要用emoji" and "不要用emoji" are one rule
    parts[0] = re.sub(r'^(?:你的)?(?:回答|回复|答复)$', '', parts[0])
    value = normalize_text(''.join(parts))
    return [Fact(SELF, 'rule', value, positive=not m.group('neg'), clause=index)]


def _rule_lifted(rest: str, index: int) -> list[Fact]:
    """A rule's restriction lifted ("emoji的限制取消了"): using its object is allowed."""
    m = RULE_LIFT_ZH.match(rest)
    if m is None or not (m.group('v') or m.group('w')):
        return []
    thing = m.group('x').strip()
    if any(p.search(thing) for _, p in FORMAT_RE):
        return []  # a format is `_format_facts`' ("报销表格的限制" is a form)
    return [Fact(SELF, 'rule', normalize_text(f'用{thing}'), clause=index)]


def answer_setting(new: str, old: str) -> tuple[str, str, str]:
    """(slot, new, old): two values of one answer setting by their canonical names ("段落",
    "列表" -> answer_format prose, bullet points), else the `correction` slot as said."""
    for slot, values in (
        ('answer_format', FORMAT_RE),
        ('answer_language', [(n, re.compile(p, re.I)) for n, p in LANGS]),
        *CHOICES,
    ):
        named = [next((n for n, p in values if p.fullmatch(v)), None) for v in (new, old)]
        if named[0] and named[1] and named[0] != named[1]:
            return slot, named[0], named[1]
    return 'correction', new, old
