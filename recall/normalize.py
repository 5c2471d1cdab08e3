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


# ---- recall blocks: never persisted ---------------------------------------------------------
# An auto-recall block is injected for the current turn only; a client that sends it back inside
# a turn, a transcript or a document must not turn recalled memories into new ones.

_RECALL_TAGGED = re.compile(
    r'<\s*(recalled[_-]?memor\w*|memory[_-]?context|relevant[_-]?memor\w*)\b[^>]*>.*?'
    r'(?:<\s*/\s*\1\s*>|\Z)',
    re.IGNORECASE | re.DOTALL,
)
# a header line, then every line up to the first blank line (the block's bullets)
_RECALL_HEADED = re.compile(
    r'^[ \t]*(?:#{1,6}[ \t]*relevant memor[^\n]*|\[memory context\][^\n]*|'
    r'#{1,6}[ \t]*(?:recalled memor|相关记忆|记忆召回)[^\n]*)\n?(?:[ \t]*\S[^\n]*(?:\n|\Z))*',
    re.IGNORECASE | re.MULTILINE,
)


def strip_recall_blocks(text: str) -> str:
    """`text` without injected recall sections ("## Relevant Memory (current turn only)" and its
    bullets, `<recalled_memories>…</recalled_memories>`, `[memory context] …`); text without one
    is returned unchanged."""
    if not _MAY_HOLD_RECALL.search(text):
        return text
    stripped = _RECALL_HEADED.sub('', _RECALL_TAGGED.sub('', text))
    return re.sub(r'\n{3,}', '\n\n', stripped).strip()


_MAY_HOLD_RECALL = re.compile(
    r'relevant memor|recalled[_-]?memor|memory[_-]?context|memory context|相关记忆|记忆召回',
    re.IGNORECASE,
)
