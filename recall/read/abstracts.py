"""L0 abstracts and L1 overviews of memories: extractive, computed from the
text on read, so every memory has them whatever path wrote it and nothing extra is stored."""

from __future__ import annotations

import re

ABSTRACT_CHARS = 120
OVERVIEW_POINTS = 3
POINT_CHARS = 160

_SENTENCE = re.compile(r'[^.!?。！？；;\n]+[.!?。！？；;]*')


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if ' ' in cut[limit // 2 :]:
        cut = cut[: cut.rfind(' ')]
    return cut.rstrip(' ,;:，、') + '…'


def sentences(text: str) -> list[str]:
    """Sentences of `text` in order (English and Chinese end marks, line breaks)."""
    return [s.strip(' \t-*•>#') for s in _SENTENCE.findall(text) if s.strip(' \t-*•>#')]


def abstract(text: str) -> str:
    """L0: one line, the first sentence, at most ABSTRACT_CHARS characters."""
    found = sentences(text)
    first = found[0] if found else ' '.join(text.split())
    return _clip(first, ABSTRACT_CHARS)


def overview(text: str) -> str:
    """L1: the first OVERVIEW_POINTS sentences as key points, one a line."""
    found = sentences(text) or [' '.join(text.split())]
    return '\n'.join(f'- {_clip(s, POINT_CHARS)}' for s in found[:OVERVIEW_POINTS])
