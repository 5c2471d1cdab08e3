"""Text normalisation for ids and the exact-duplicate layer of dedup."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# CJK and full-width punctuation that NFKC leaves alone but that never changes meaning.
_CJK_PUNCT = str.maketrans({c: ' ' for c in '，。、；：？！「」『』（）【】《》〈〉…—～·“”‘’'})
_PUNCT = re.compile(r'[\s!"#$%&\'()*+,\-./:;<=>?@\[\\\]^_`{|}~]+')


def normalize_text(text: str) -> str:
    """Case-, width-, whitespace- and punctuation-insensitive form of `text`."""
    folded = unicodedata.normalize('NFKC', text).casefold().translate(_CJK_PUNCT)
    return _PUNCT.sub(' ', folded).strip()


def content_hash(text: str) -> str:
    """Stable hash of the normalised text (first layer of dedup)."""
    return hashlib.blake2b(normalize_text(text).encode('utf-8'), digest_size=16).hexdigest()


# ---- entity keys: the second layer of dedup ------------------------------------------------
# One durable thing (a phone number, a birthday, a name) gets one key however it was written,
# so "138 0000 0000" and "+86 13800000000" merge into one memory.

_CN_MOBILE = re.compile(r'^1[3-9]\d{9}$')


def entity_key(kind: str, value: str) -> str:
    """`<kind>:<value>` with both parts trimmed; the kind is lower-cased, the value kept."""
    return f'{kind.strip().lower()}:{value.strip()}'


def phone_key(raw: str, default_country: str = '86') -> str:
    """`phone:+<digits>`: separators dropped; a bare Chinese mobile gets +86, `00` becomes +."""
    text = unicodedata.normalize('NFKC', raw).strip()
    digits = re.sub(r'\D', '', text)
    if text.startswith('+'):
        return entity_key('phone', f'+{digits}')
    if digits.startswith('00'):
        return entity_key('phone', f'+{digits[2:]}')
    if _CN_MOBILE.match(digits):
        return entity_key('phone', f'+{default_country}{digits}')
    if digits.startswith('86') and _CN_MOBILE.match(digits[2:]):
        return entity_key('phone', f'+{digits}')
    # a local number of unknown country stays as written, digits only
    return entity_key('phone', digits)


def email_key(raw: str) -> str:
    """`email:<address>`, lower-cased (mailbox case-sensitivity is never relied on in practice)."""
    return entity_key('email', unicodedata.normalize('NFKC', raw).strip().lower())


def birthday_key(year: int, month: int, day: int) -> str:
    """`birthday:YYYY-MM-DD`."""
    return entity_key('birthday', f'{year:04d}-{month:02d}-{day:02d}')


def name_key(name: str) -> str:
    """`name:<normalised name>` so case and width variants of one name share a key."""
    return entity_key('name', normalize_text(name))
