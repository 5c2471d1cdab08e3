"""Deterministic capture: phones, emails, id numbers, passports and birthdays
found by pattern in every sentence; each makes its sentence salient by itself."""

from __future__ import annotations

import re
from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field

from core.text import EMAIL_PATTERN
from recall.normalize import (
    birthday_key,
    email_key,
    entity_key,
    phone_key,
)


class Captured(BaseModel):
    """A structured value found by pattern: phone, email, id_card, passport, id or birthday."""

    model_config = ConfigDict(frozen=True)

    kind: str
    value: str = Field(description='normalised: +8613800000000, a@b.c, 1990-05-01')
    raw: str
    entity_key: str
    start: int
    end: int


_EMAIL = re.compile(r'(?<![\w.+-])' + EMAIL_PATTERN)
_CN_MOBILE = re.compile(r'(?<![\d+])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)')
_INTL_PHONE = re.compile(r'(?<![\w+])\+\d{1,3}(?:[\s-]?\(?\d{1,4}\)?){2,5}(?!\d)')
_ID_CARD = re.compile(
    r'(?<![\dA-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}'
    r'[\dXx](?![\dA-Za-z])'
)
_PASSPORT = re.compile(
    r'(?:passport|护照)\D{0,20}?(?<![A-Za-z0-9])([A-Z]{1,2}\d{6,8})(?![A-Za-z0-9])', re.I
)
_BIRTH_ANCHOR = re.compile(
    r'birthday|date of birth|\bdob\b|\bborn(?: on)?\b|生日|出生(?:日期|于|在)?', re.IGNORECASE
)
_DATE_YMD = re.compile(r'(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?')
_DATE_MD_ZH = re.compile(r'(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]')
_MONTH_NAMES = ('jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec')
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, start=1)}
_DATE_MDY_EN = re.compile(
    r'\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?!\d)(?:st|nd|rd|th)?'
    r'(?:,?\s+(\d{4}))?',
    re.IGNORECASE,
)
_DATE_DMY_EN = re.compile(
    r'\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?'
    r'(?:,?\s+(\d{4}))?',
    re.IGNORECASE,
)
_LABELLED_ID = re.compile(
    r'(?:\b(?:employee|staff|member(?:ship)?|student|customer|badge|account|library)\s+'
    r'(?:id|number|no\.?|#)|工号|员工号|学号|会员号|客户号|工牌号)\s*(?:is|:|：|#|是|为)?\s*'
    r'([A-Za-z0-9][A-Za-z0-9-]{2,})',
    re.IGNORECASE,
)
# "我是1985年6月18日出生的": the date stands before the anchor
_DATE_BEFORE_ANCHOR = re.compile(
    r'(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?\s*出生'
)
# whose birthday: "my son Leo was born …", "My mother's birthday …", "我妈妈的生日 …"
_KIN = (
    r'wife|husband|partner|girlfriend|boyfriend|son|daughter|kid|child|mother|mom|mum|father|'
    r'dad|brother|sister|grandmother|grandfather|grandma|grandpa|aunt|uncle|cousin|niece|nephew|'
    r'friend|boss|manager|colleague|dog|cat'
)
_KIN_ZH = (
    r'妻子|老婆|老公|丈夫|爱人|女朋友|男朋友|儿子|女儿|孩子|爸爸|妈妈|父亲|母亲|哥哥|姐姐|弟弟|妹妹|爷爷|'
    r'奶奶|外公|外婆|姥姥|姥爷|老板|同事|朋友|爸|妈'
)
_OWNER = re.compile(
    rf'\bmy\s+(?:(?:older|younger|little|big|eldest|youngest)\s+)?({_KIN})\b'
    rf"(?:\s+([A-Z][\w'-]*))?|\b([A-Z][\w-]+)'s\b|我的?({_KIN_ZH})",
    re.IGNORECASE,
)
_SELF = re.compile(r'\bmy\s*$|\bi\s+(?:was\s+)?$|我的?\s*$|我是?\s*$', re.IGNORECASE)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _id_card_valid(number: str) -> bool:
    # GB 11643 checksum: a wrong digit is far likelier a typo or another number than an id
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return '10X98765432'[total % 11] == number[17].upper()


def _birthday(text: str, now: datetime | None) -> Captured | None:
    anchor = _BIRTH_ANCHOR.search(text)
    if anchor is None:
        return None
    window_start = anchor.end()
    window = text[window_start : window_start + 24]
    found: tuple[int | None, int, int, re.Match[str]] | None = None
    if m := _DATE_YMD.search(window):
        found = (int(m.group(1)), int(m.group(2)), int(m.group(3)), m)
    elif m := _DATE_MD_ZH.search(window):
        found = (None, int(m.group(1)), int(m.group(2)), m)
    elif m := _DATE_MDY_EN.search(window):
        year = int(m.group(3)) if m.group(3) else None
        found = (year, _MONTHS[m.group(1).lower()[:3]], int(m.group(2)), m)
    elif m := _DATE_DMY_EN.search(window):
        year = int(m.group(3)) if m.group(3) else None
        found = (year, _MONTHS[m.group(2).lower()[:3]], int(m.group(1)), m)
    if found is None and (m := _DATE_BEFORE_ANCHOR.search(text)):
        window_start = 0
        found = (int(m.group(1)), int(m.group(2)), int(m.group(3)), m)
    if found is None:
        return None
    year, month, day, match = found
    try:
        born = date(year or 2000, month, day)  # 2000 is a leap year: 02-29 stays valid
    except ValueError:
        return None
    if year is not None and now is not None and born > now.date():
        return None  # a birthday in the future is some other date
    value = born.isoformat() if year is not None else f'--{month:02d}-{day:02d}'
    key = birthday_key(year, month, day) if year is not None else entity_key('birthday', value)
    owner = _owner(text[: anchor.start()])
    if owner:
        # a key names whose value it is: the twins' shared birthday is two memories, not a merge
        key = f'birthday:{owner}:{key.split(":", 1)[1]}'
    start, end = window_start + match.start(), window_start + match.end()
    return Captured(
        kind='birthday',
        value=value,
        raw=text[start:end].strip(),
        entity_key=key,
        start=start,
        end=end,
    )


def _owner(before: str) -> str | None:
    """Whose birthday the words before its anchor name ("son leo", "mother", "妈妈"), or None
    for the speaker's own."""
    window = before[-40:]
    if _SELF.search(window):
        return None
    found = list(_OWNER.finditer(window))
    if not found:
        return None
    m = found[-1]
    if m.group(3) and m.group(3).lower() in ('i', 'it', 'that', 'what', 'who'):
        return None
    parts = [g for g in (m.group(1), m.group(2), m.group(3), m.group(4)) if g]
    return ' '.join(p.casefold() for p in parts)


def deterministic_capture(text: str, now: datetime | None = None) -> list[Captured]:
    """Phones, emails, Chinese id cards, passports and birthdays in `text`, in text order."""
    found: list[Captured] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, value: str, key: str, m: re.Match[str], group: int = 0) -> None:
        start, end = m.span(group)
        if any(start < e and s < end for s, e in taken):
            return  # one span is one value: an id card's digits are not also a phone
        taken.append((start, end))
        found.append(
            Captured(
                kind=kind, value=value, raw=m.group(group), entity_key=key, start=start, end=end
            )
        )

    for m in _ID_CARD.finditer(text):
        if _id_card_valid(m.group(0)):
            number = m.group(0).upper()
            add('id_card', number, entity_key('idcard', number), m)
    for m in _EMAIL.finditer(text):
        key = email_key(m.group(0))
        add('email', key.split(':', 1)[1], key, m)
    for pattern in (_CN_MOBILE, _INTL_PHONE):
        for m in pattern.finditer(text):
            if len(re.sub(r'\D', '', m.group(0))) < 8:
                continue
            key = phone_key(m.group(0))
            add('phone', key.split(':', 1)[1], key, m)
    for m in _LABELLED_ID.finditer(text):
        number = m.group(1).upper()
        add('id', number, entity_key('id', number), m, 1)
    for m in _PASSPORT.finditer(text):
        number = m.group(1).upper()
        add('passport', number, entity_key('passport', number), m, 1)
    birthday = _birthday(text, now)
    if birthday is not None and not any(birthday.start < e and s < birthday.end for s, e in taken):
        found.append(birthday)
    return sorted(found, key=lambda c: c.start)
