"""Text normalisation for ids and the exact-duplicate layer of dedup."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# CJK and full-width punctuation that NFKC leaves alone but that never changes meaning.
_CJK_PUNCT = str.maketrans(
    {c: ' ' for c in '，。、；：？！「」『』（）【】《》〈〉…—～·“”‘’'}
)
_PUNCT = re.compile(r'[\s!"#$%&\'()*+,\-./:;<=>?@\[\\\]^_`{|}~]+')


def normalize_text(text: str) -> str:
    """Case-, width-, whitespace- and punctuation-insensitive form of `text`."""
    folded = unicodedata.normalize('NFKC', text).casefold().translate(_CJK_PUNCT)
    return _PUNCT.sub(' ', folded).strip()


def content_hash(text: str) -> str:
    """Stable hash of the normalised text (first layer of dedup)."""
    return hashlib.blake2b(normalize_text(text).encode('utf-8'), digest_size=16).hexdigest()
