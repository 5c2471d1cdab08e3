"""What a memory states, as facts: (subject, slot, value, polarity) per clause, EN and ZH.

A fact is the unit of supersession. A single-valued slot (where someone lives, works, their
title, name, phone, email, partner, editor, the answer format or language they want, "my X is
Y") holds one value per subject at a time, so a later value replaces an earlier one. A
many-valued slot (likes, hobbies, pets, skills, languages, habits) accumulates: "I like
swimming" leaves "I like hiking" true, and only "I don't like hiking" replaces it. Sharing a verb
is never enough. Pure functions over text; the writer resolves `SELF` to the memory's speaker.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from core.lazy_re import lazy_compile
from core.names import is_organisation
from core.text_cache import text_cache
from recall.normalize import normalize_text
from recall.write.answer_facts import answer_facts, answer_setting, rule_facts
from recall.write.deterministic import deterministic_capture
from recall.write.fact_base import (
    READ_CACHE,
    SELF,
    Fact,
    clauses,
    may_say_not_but,
)

# supersession reads which slots are single-valued where it reads facts
from recall.write.fact_base import SINGLE_VALUED as SINGLE_VALUED
from recall.write.fact_patterns import (
    AMEND_EN,
    AMENDED,
    ATTR_EN,
    ATTR_SLOT,
    ATTR_ZH,
    ATTR_ZH_PLACES,
    CHOSEN_SLOTS,
    CORRECTION,
    CORRECTION_PAIR,
    EDITOR,
    EDITOR_CUE,
    EDITOR_TO,
    EN_TRAIL,
    FORMAT_RE,
    HABIT_EN,
    HABIT_ZH,
    HOBBY_EN,
    HOBBY_ZH,
    HOTEL_ZH,
    KIN_POSSESSOR,
    LANGUAGE_EN,
    LANGUAGE_ZH,
    LEAD,
    LEAD_VERB_EN,
    LEAD_VERB_ZH,
    LIKES_EN,
    LIKES_ZH,
    NAME_NEG,
    NEG_CUE,
    NEGATIVE_VERBS,
    NOT_BUT_EN,
    NOT_NAMES,
    OTHER_SPEAKER,
    PAST_EN,
    PAST_ZH,
    PET_EN,
    PET_ZH,
    PREFERRED_NAME_EN,
    PRESENT_PERFECT,
    QUALIFIERS,
    RETRACT_EN,
    SKILL_EN,
    SLOT_CHANGES,
    SLOT_WORDS_EN,
    SLOTS_EN,
    SLOTS_ZH,
    SUBJECT_EN,
    TIME_LEAD_EN,
    TIME_LEAD_ZH,
    TRIP_ZH,
    VALUE_PREP_EN,
    VALUE_TAIL_EN,
    ZH_KIN_SUBJECT,
    ZH_NAME,
    ZH_SELF,
    ZH_STOP_NAMES,
    ZH_TRAIL,
)

# ---- clauses and subjects ------------------------------------------------------------------


# a clause is stripped where its facts are read, again where its corrections are (at the
# text's first supersession, a batch later: 500 texts of ~6 clauses) and of a "not X but Y".
# Both clause caches keep 8,192 clauses of up to 512 characters and 512 up to 4,096
# (core.text_cache): ~6.3M characters of keys at most, against 33.5M for one cache of 8,192
@text_cache(8192)
def _strip_lead(clause: str) -> str:
    clause = LEAD.sub('', clause.strip())
    clause = TIME_LEAD_EN.sub('', clause)
    return TIME_LEAD_ZH.sub('', clause)


def _subject(clause: str) -> tuple[str | None, str]:
    """(subject, rest) of a clause: SELF for I/my/我, a folded name, or None when unstated."""
    m = SUBJECT_EN.match(clause)
    if m:
        if m.group('self'):
            return SELF, clause
        name = m.group('name')
        first = name.split()[0].casefold()
        # "Tables are okay now", "Bullet points are fine": an answer format, not a person
        if first not in NOT_NAMES and not any(p.fullmatch(name) for _, p in FORMAT_RE):
            return name.casefold(), re.sub(r"^'s\b", '', clause[m.end() :]).strip()
    kin = ZH_KIN_SUBJECT.match(clause)
    if kin:
        return kin.group('k'), clause[kin.end() :]
    if ZH_SELF.match(clause):
        return SELF, clause
    m = ZH_NAME.match(clause)
    if m and m.group('name') not in ZH_STOP_NAMES and not m.group('name').startswith('我'):
        return m.group('name'), clause[m.end() :]
    return None, clause


# ---- values ----------------------------------------------------------------------------------


def _clean(value: str) -> str:
    value = value.strip(' .,!;:，。！；：\'"')
    for _ in range(3):
        value = EN_TRAIL.sub('', value)
        value = ZH_TRAIL.sub('', value)
    return normalize_text(value)


# ---- many-valued slots -------------------------------------------------------------------


def _liked(value: str, *, zh: bool) -> str:
    value = LEAD_VERB_ZH.sub('', value) if zh else LEAD_VERB_EN.sub('', value)
    for _ in range(3):
        value = VALUE_TAIL_EN.sub('', value.strip(' .,!;'))
    return _clean(value)


# ---- facts -----------------------------------------------------------------------------------


# what `_self_rest` cuts, in order (compiled once: it runs at every clause of the speaker's)
_SELF_SUBJECT = tuple(
    (lazy_compile(pattern), replacement)
    for pattern, replacement in (
        (r"(?i)^i'm\b", 'am'),
        (r"(?i)^i've\b", 'have'),
        (r"(?i)^(?:i'd|i'll)\b", ''),
        (r'(?i)^(?:i|we)\s+', ''),
        (r'^我们?', ''),
    )
)
_HAN = lazy_compile(r'[\u4e00-\u9fff]')
_LATIN = lazy_compile(r'[A-Za-z]')


def _self_rest(clause: str) -> str:
    """The clause without its first-person subject, so the slot patterns read the verb."""
    rest = clause
    for pattern, replacement in _SELF_SUBJECT:
        rest = pattern.sub(replacement, rest)
    return TIME_LEAD_ZH.sub('', TIME_LEAD_EN.sub('', rest.strip()))


def _attr_facts(clause: str, subject: str, index: int, past: bool) -> list[Fact]:
    zh = bool(_HAN.match(clause))
    m = (ATTR_ZH if zh else ATTR_EN).match(clause)
    if m is None:
        return []
    key = normalize_text(m.group('k'))
    words = key.split()
    head = (
        key if zh else ' '.join(w for w in words if w not in ('new', 'old', 'current', 'primary'))
    )
    raw = m.group('v').strip()
    if zh and not (m.group('cop') or m.group('neg')):
        if head in ATTR_ZH_PLACES and raw.startswith('在'):
            raw = raw[1:]
        elif re.match(r'[\u4e00-\u9fff]', raw):
            return []
    value = _clean(raw)
    if not value or not head:
        return []
    if (
        not zh
        and ATTR_SLOT.get(head.split()[-1]) in ('partner', 'works_at')
        and not re.match(r'(?:the )?[A-Z0-9]', raw)
    ):
        # "my wife is a doctor" says what she does and "my company is on the 7th floor" where
        # it is, not who or which one
        return []
    who = m.group('who')
    owner = who.casefold() if who and who.casefold() not in NOT_NAMES else subject
    slot = ATTR_SLOT.get(head) or ATTR_SLOT.get(head.split()[-1] if not zh else head)
    qualifier = [w for w in head.split()[:-1] if w in QUALIFIERS] if not zh else []
    if slot is not None and qualifier:
        slot = f'{slot}:{" ".join(qualifier)}'  # "work email" is not the email
    if slot == 'editor':
        value = _editor(value)
    if (
        slot
        and slot.split(':')[0] in ('email', 'phone')
        and (found := deterministic_capture(m.group('v')))
    ):
        value = found[0].value
    return [
        Fact(owner, slot or f'attr:{head}', value, positive=not m.group('neg'), past=past,
             clause=index)
    ]  # fmt: skip


def _editor_facts(clause: str, owner: str, index: int, past: bool) -> list[Fact]:
    """The editor a clause says is in use: the one after "to"/"now"/"换成" when it names two
    ("moved from Vim to Emacs"), the others retracted."""
    found = [(m.start(), _editor(m.group('v'))) for m in EDITOR.finditer(clause)]
    if not found:
        return []
    # "Emacs instead of Vim", "not Vim but Emacs": a negated one is in use only if all are
    kept = [(s, e) for s, e in found if not NEG_CUE.search(clause[:s][-40:])] or found
    after = [e for start, e in kept if EDITOR_TO.search(clause[:start][-16:])]
    chosen = after[-1] if after else kept[-1][1]
    retracts = tuple(e for _, e in found if e != chosen)
    return [Fact(owner, 'editor', chosen, past=past, clause=index, retracts=retracts)]


def _editor(name: str) -> str:
    key = normalize_text(name).replace(' ', '')
    return {'nvim': 'neovim', 'visualstudiocode': 'vscode'}.get(key, key)


def _kin_possessor(clause: str) -> re.Match[str] | None:
    # the pattern needs "my" or 我 ("my wife's car", "我妈妈的车"): most clauses skip it
    if '我' not in clause and 'my' not in clause.lower():
        return None
    return KIN_POSSESSOR.search(clause)


# (slot, pattern, the words every match holds or None): a pattern without words is searched
# directly, not through a call of `_slot_search` (~130,000 a 2,000 LoCoMo writes)
_SlotPatterns = tuple[tuple[str, re.Pattern[str], tuple[str, ...] | None], ...]
_SLOTS_EN: _SlotPatterns = tuple((s, p, SLOT_WORDS_EN.get(p)) for s, p in SLOTS_EN)
_SLOTS_ZH: _SlotPatterns = tuple((s, p, None) for s, p in SLOTS_ZH)


def _slot_search(
    pattern: re.Pattern[str], words: tuple[str, ...] | None, text: str
) -> re.Match[str] | None:
    """`pattern.search(text)`, not asked of an ASCII text without one of `words`, which every
    match holds (IGNORECASE matches some other letters to ASCII ones, 'ſ' to 's')."""
    if words is not None and text.isascii():
        lowered = text.lower()
        for word in words:
            if word in lowered:
                break
        else:
            return None
    return pattern.search(text)


def _clause_facts(clause: str, subject: str, index: int, text: str) -> list[Fact]:
    zh = bool(_HAN.search(clause)) and not _LATIN.match(clause)
    rest = _self_rest(clause) if subject == SELF else _strip_lead(clause)
    past = bool(PAST_ZH.search(clause) if zh else PAST_EN.search(rest))
    past = past and not PRESENT_PERFECT.match(rest)
    facts: list[Fact] = []
    possessor = _kin_possessor(clause)
    owner = (possessor.group('k') or possessor.group('z')).casefold() if possessor else subject
    facts += _attr_facts(_self_rest(clause) if zh else clause, owner, index, past)
    # "李娜的科室主任是张建国医生" is about her department head, not about her
    someone_elses = zh and owner == subject and rest.startswith('的')
    for slot, pattern, words in () if someone_elses else _SLOTS_ZH if zh else _SLOTS_EN:
        if (facts and any(f.slot == slot for f in facts)) or (
            zh and slot == 'lives_in' and (TRIP_ZH.search(text) or HOTEL_ZH.search(clause))
        ):
            continue
        m = (pattern.search(rest) if words is None else _slot_search(pattern, words, rest)) or (
            _slot_search(pattern, words, clause) if slot in ('name', 'partner') else None
        )
        if m is None:
            continue
        value = _clean(
            next((g for g in m.groups()[::-1] if g), '')
            if 'v' not in m.groupdict()
            else m.group('v') or (m.groupdict().get('w') or '')
        )
        if not value or (slot in ('works_at', 'lives_in') and EDITOR.fullmatch(value)):
            continue
        if slot == 'lives_in' and not zh and is_organisation(value):
            # "I moved to Google": moving to an employer is a new job; nobody lives in one
            if not re.search(r'(?i)\b(?:mov|relocat)', m.group(0)):
                continue
            slot = 'works_at'
        retracted = m.groupdict().get('r')
        retracts = (_clean(retracted),) if retracted else ()
        if slot == 'name' and NAME_NEG.search(rest[: m.start()] or clause[: m.start()]):
            facts.append(Fact(owner, slot, value, positive=False, past=past, clause=index))
            continue
        negative = slot in ('lives_in', 'works_at') and bool(
            m.groupdict().get('n')
            or m.groupdict().get('n2')
            or re.match(r"(?i)(?:no longer|not|don't|do not)\b", rest)
            or (zh and re.search(r'(?:不再|已经不|不|没有?)$', rest[: m.start()]))
        )
        facts.append(Fact(owner, slot, value, positive=not negative, past=past, clause=index,
                          retracts=retracts))  # fmt: skip
    if not any(f.slot == 'editor' for f in facts) and _names_editor(clause) and _editor_cued(text):
        facts += _editor_facts(clause, owner, index, past)
    if owner == SELF and not OTHER_SPEAKER.match(clause):
        # how the speaker wants answers: "我朋友说段落比列表好" is a friend's taste, not theirs
        facts += answer_facts(clause, index, text)
    # "Don't use emoji in answers" is a rule for the assistant, not a habit of the speaker's
    if any(f.slot in CHOSEN_SLOTS or f.slot == 'rule' for f in facts):
        return facts
    facts += _many_facts(rest, owner, index, past, zh)
    # "emoji的限制取消了" is Chinese though it opens with a Latin word
    if not facts and owner == SELF and (zh or _HAN.search(clause)):
        facts += rule_facts(rest, index)
    return facts


# every word a match of EDITOR holds, lower-cased ("vs code" and "visual studio code": "code")
_EDITOR_WORDS = (
    'vim', 'emacs', 'code', 'sublime', 'intellij', 'pycharm', 'webstorm', 'cursor', 'zed',
    'helix', 'nano', 'atom', 'notepad++',
)  # fmt: skip


def _names_editor(clause: str) -> bool:
    """Whether EDITOR finds an editor in `clause`, asked before the text's EDITOR_CUE (a search
    of the whole text, dearer than this): an ASCII clause without any of its words names none
    (IGNORECASE matches some other letters to ASCII ones, so another clause is searched)."""
    if clause.isascii():
        lowered = clause.lower()
        for word in _EDITOR_WORDS:
            if word in lowered:
                break
        else:
            return False
    return EDITOR.search(clause) is not None


@lru_cache(maxsize=256)
def _editor_cued(text: str) -> bool:
    # asked at every clause of a text, about the whole text
    return EDITOR_CUE.search(text) is not None


def _many_facts(rest: str, owner: str, index: int, past: bool, zh: bool) -> list[Fact]:
    if zh:
        for slot, pattern in (('hobby', HOBBY_ZH), ('pet', PET_ZH), ('language', LANGUAGE_ZH),
                              ('likes', LIKES_ZH), ('habit', HABIT_ZH)):  # fmt: skip
            m = pattern.match(rest)
            if m is None:
                continue
            groups = m.groupdict()
            negative = bool(groups.get('neg')) != (groups.get('verb') == '讨厌')
            verb = groups.get('verb') or ''
            value = _liked(m.group('v') or groups.get('w') or '', zh=True)
            if slot == 'habit':
                value = f'{verb}{value}'
            if value:
                return [Fact(owner, slot, value, positive=not negative, past=past, clause=index)]
        return []
    m = HOBBY_EN.match(rest)
    if m:
        return [Fact(owner, 'hobby', _liked(m.group('v'), zh=False), past=past, clause=index)]
    for slot, pattern in (('pet', PET_EN), ('language', LANGUAGE_EN), ('skill', SKILL_EN)):
        m = pattern.match(rest)
        if m and (slot != 'skill' or m.group('v')[:1].isupper()):
            value = _clean(m.group('v')).rstrip('s') if slot == 'pet' else _clean(m.group('v'))
            return [Fact(owner, slot, value, positive=not m.group('neg'), past=past, clause=index)]
    m = LIKES_EN.match(rest)
    if m:
        verb = m.group('verb').lower()
        negative = bool(m.group('neg')) != (verb in NEGATIVE_VERBS)
        value, retracts = m.group('v'), tuple[str, ...]()
        slot = 'prefers' if verb.startswith('prefer') else 'likes'
        if slot == 'prefers' and (r := RETRACT_EN.search(value)):
            value, retracts = value[: r.start()], (_liked(r.group('r'), zh=False),)
        value = _liked(value, zh=False)
        if value and not re.match(r'(?i)(?:it|this|that|them|these|those|you)\b', value):
            was = past or verb.endswith('ed')
            return [Fact(owner, slot, value, positive=not negative, past=was, clause=index,
                         retracts=retracts)]  # fmt: skip
        return []
    m = HABIT_EN.match(rest)
    if m:
        verb = (
            m.group('verb').lower().rstrip('s')
            if m.group('verb').lower() not in ('use', 'uses')
            else 'use'
        )
        value = _liked(m.group('v'), zh=False)
        if value and not re.match(r'(?i)(?:it|this|that|them|you)\b', value):
            return [Fact(owner, 'habit', f'{verb} {value}', positive=not m.group('neg'), past=past,
                         clause=index)]  # fmt: skip
    return []


def facts_of(text: str) -> list[Fact]:
    """Every fact `text` states, clause by clause; a clause without a subject takes the one
    before it ("I live in Leeds and work at Arup": both are the speaker's), the first one the
    speaker's ("Moved to Berlin last month")."""
    return list(_facts_read(text))


# a write weighs each new memory against ~18 neighbours, so one text is read again at every
# write near it: reading each text anew made ingest 5.8x slower than embedding
# (bench/service_bench.py). The bound (READ_CACHE) is fact_base's
@text_cache(READ_CACHE)
def _facts_read(text: str) -> tuple[Fact, ...]:
    out: list[Fact] = []
    subject = SELF
    for index, clause in enumerate(clauses(text)):
        body = _strip_lead(clause)
        swapped = _not_but(body)
        if swapped is not None:
            body = swapped[0]
        found, rest = _subject(body)
        subject = found or subject
        facts = _clause_facts(body if found in (None, SELF) else rest, subject, index, text)
        if AMEND_EN.search(clause):
            facts = _amending(facts, body)
        if swapped is not None:  # "not in Paris but in Berlin": Berlin, and Paris is over
            old = swapped[1]
            facts = [
                replace(f, retracts=(*f.retracts, old)) if f.positive and f.value != old else f
                for f in facts
            ]
        out += facts
        # "我太太叫林晓雯，是一名儿科医生": a clause after one naming a partner is about her
        named = [f.value for f in facts if f.slot == 'partner' and f.positive and not f.past]
        if named:
            subject = named[-1]
    return tuple(out)


def correction_facts(text: str) -> list[Fact]:
    """Explicit corrections naming both values ("不是Vim而是Emacs", "把小王改成老王", "应该是段落，
    不是列表"), one per clause: the new value, the old one retracted. Two values of an answer
    setting ("把简短改成详细") state that slot with its canonical values; others are in no slot of
    their own, and supersession finds the slot whose current value is the old one."""
    out: list[Fact] = []
    parts = clauses(text)
    for index, clause in enumerate(parts):
        at = index
        m = CORRECTION.search(clause)
        if m is None and index + 1 < len(parts):
            m = CORRECTION_PAIR.match(f'{_strip_lead(clause)}，{parts[index + 1]}')
            at = index + 1 if m is not None and m.group('n3') else index
        if m is None:
            out += _named_correction(clause, index)
            continue
        old = _clean(m.group('o2') or m.group('o3') or '')
        new = _clean(m.group('n2') or m.group('n3') or '')
        if old and new and old != new:
            slot, new, old = answer_setting(new, old)
            out.append(Fact(SELF, slot, new, clause=at, retracts=(old,)))
    return out


def _amending(facts: list[Fact], clause: str) -> list[Fact]:
    """The facts of a clause said as a correction ("Actually, I prefer Beth"): a preference
    that names no value as over amends the speaker's latest name (when it names a name) or
    preference."""
    slots = AMENDED if PREFERRED_NAME_EN.search(clause) else ('prefers',)
    return [
        replace(f, amends=slots)
        if f.slot == 'prefers' and f.positive and not f.past and not f.retracts
        else f
        for f in facts
    ]


def amends(text: str) -> bool:
    """Whether `text` says a preference as a correction of what came before it."""
    return any(f.amends for f in facts_of(text))


@text_cache(8192)  # asked where a clause's facts are read and where its corrections are
def _not_but(clause: str) -> tuple[str, str, str] | None:
    """A "not X but Y" clause as it states the new value, the old value and the new one: "I
    live not in Paris but in Berlin" -> ("I live in Berlin", "paris", "berlin")."""
    m = NOT_BUT_EN.search(clause) if may_say_not_but(clause) else None
    if m is None:
        return None
    said, new = m.group('o'), m.group('n')
    opens = VALUE_PREP_EN.match(new)
    start = 0
    if opens:
        # "don't live in Paris but in Berlin": the old value opens with the new one's preposition
        at = [w.start() for w in re.finditer(rf'(?i)\b{opens.group("p")} ', said)]
        start = at[-1] if at else 0
    stated = f'{clause[: m.start("neg")]} {said[:start]}{new}{clause[m.end("n") :]}'
    old, value = (_clean(VALUE_PREP_EN.sub('', v)) for v in (said[start:], new))
    if EDITOR.fullmatch(old):
        old, value = _editor(old), _editor(value)
    if not old or not value or old == value:
        return None
    return re.sub(r'\s+', ' ', stated).strip(), old, value


def _named_correction(clause: str, index: int) -> list[Fact]:
    """ "Not Vim but Emacs": a correction naming both values whose new one fills no slot of the
    clause's own; supersession finds the slot whose current value is the old one."""
    swapped = _not_but(_strip_lead(clause))
    if swapped is None:
        return []
    stated, old, new = swapped
    if any(f.positive for f in facts_of(stated)):
        return []  # "not in Paris but in Berlin" states the home itself
    return [Fact(SELF, 'correction', new, clause=index, retracts=(old,))]


def joined_corrections(parts: list[str]) -> list[str]:
    """Clauses with a correction kept whole: a clause that negates or retracts a slot's value
    joins the neighbour that gives the slot its new one ("I no longer like bullet points, I
    prefer prose"), so the memory of the new value says what it replaced."""
    out: list[str] = []
    previous: list[Fact] = []
    for part in parts:
        facts = facts_of(part) or _in_context(out[-1] if out else '', part)
        # many-valued slots accumulate: "我喜欢狗，不喜欢猫" stays two facts
        shared = {f.slot for f in facts if f.single} & {f.slot for f in previous}
        correcting = any(
            not f.positive or f.retracts for f in [*facts, *previous] if f.slot in shared
        )
        # "应该是段落，不是列表": one correction told over two clauses
        paired = bool(out) and CORRECTION_PAIR.match(f'{_strip_lead(out[-1])}，{part}') is not None
        if out and ((shared and correcting) or paired):
            sep = '，' if re.search(r'[\u4e00-\u9fff]$', out[-1]) else ', '
            out[-1] = f'{out[-1]}{sep}{part}'
        else:
            out.append(part)
        previous = facts
    return out


def _in_context(before: str, part: str) -> list[Fact]:
    """The facts a Chinese clause states after `before` ("别用中文回答了，用英文": 用英文 names
    the answer language only beside the clause that speaks of answers)."""
    if not before or not re.search(r'[\u4e00-\u9fff]', part):
        return []
    told = len(clauses(before))
    return [f for f in facts_of(f'{before}，{part}') if f.clause >= told]


def joined_changes(parts: list[str]) -> list[str]:
    """Clauses with a change kept whole: a clause that tells of a change without its value ("I
    got promoted", "我搬家了") joins the neighbour that names the slot's new value ("I am a
    software engineer now"), so the memory of the value says what happened."""
    facts = [facts_of(part) for part in parts]
    out: list[str] = []
    pending: str | None = None  # a change that waits for the clause after it
    for index, part in enumerate(parts):
        slot = None if facts[index] else changed_slot(part)
        if slot is None:
            out.append(_joined(pending, part) if pending else part)
            pending = None
            continue
        if out and slot in {f.slot for f in facts[index - 1]} and not pending:
            out[-1] = _joined(out[-1], part)
        elif index + 1 < len(parts) and slot in {f.slot for f in facts[index + 1]}:
            pending = _joined(pending, part) if pending else part
        else:
            out.append(part)
    if pending:
        out.append(pending)
    return out


# every word an English match of SLOT_CHANGES holds, lower-cased
_CHANGE_WORDS = ('promot', 'demot', 'job', 'employer', 'compan', 'moved', 'relocated')


def changed_slot(clause: str) -> str | None:
    """The slot a clause tells of a change to without naming its value ("I got promoted")."""
    if clause.isascii():
        # most clauses name no change: three searches each found none (IGNORECASE matches some
        # other letters to ASCII ones, so only an ASCII clause is judged by its words)
        lowered = clause.lower()
        if not any(word in lowered for word in _CHANGE_WORDS):
            return None
    return next((slot for slot, cue in SLOT_CHANGES if cue.search(clause)), None)


def _joined(first: str, second: str) -> str:
    sep = '，' if re.search(r'[\u4e00-\u9fff]$', first) else ', '
    return f'{first}{sep}{second}'
