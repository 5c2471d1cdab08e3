"""The recall block: how recalled memories look in a prompt, and how an injected block is found.

A block is a header line that marks it for the current turn only, then one line per memory,
`- [id=…, kind=…, tier=…, score=…, age=…(, superseded)] escaped text`. `recall.read.bundle` packs
one under a token budget. A block is never persisted: every write path cuts blocks (ours, and
the tagged and headed forms other runtimes inject) out of the text it is given
(`strip_recall_blocks`), and the capture guards refuse a turn that carries one (`FINGERPRINT`).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Protocol

from core.clock import to_epoch

RECALL_MARKER = 'current turn only'
HEADER = f'## Relevant Memory ({RECALL_MARKER})'
# a long memory is cut, so that one memory cannot take the whole budget of a block
MAX_ITEM_CHARS = 400
# what identifies a turn that carries a recall block (the capture guards' fingerprint)
FINGERPRINT = (
    re.escape(RECALL_MARKER) + r'|##\s*relevant memor|<recalled[_-]?memor'
    r'|\[memory context\]|<memory[_-]?context|<relevant[_-]?memor'
)


# ---- rendering -----------------------------------------------------------------------------------


class PackableHit(Protocol):
    """What a block's line reads from a hit (recall.schemas.Hit satisfies it)."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def kind(self) -> str: ...
    @property
    def tier(self) -> str: ...


def _age(created_at: datetime | None, now: datetime | None) -> str | None:
    if created_at is None or now is None:
        return None
    days = max(0.0, (to_epoch(now) - to_epoch(created_at)) / 86_400)
    if days < 1:
        return f'{int(days * 24)}h'
    return f'{int(days)}d'


def format_line(hit: PackableHit, now: datetime | None = None) -> str:
    """`- [id=…, kind=…, tier=…, score=…, age=…(, superseded)] escaped text`."""
    fields = [f'id={hit.id}', f'kind={hit.kind}', f'tier={hit.tier}', f'score={hit.score:.2f}']
    age = _age(getattr(hit, 'created_at', None), now)
    if age is not None:
        fields.append(f'age={age}')
    if getattr(hit, 'superseded_by', None):
        # recalled for a question about a past time: the model must not take it as current
        fields.append('superseded')
    return f'- [{", ".join(fields)}] {escape_for_prompt(hit.text)}'


def render(lines: list[str]) -> str:
    """The block of these memory lines, under its header."""
    return '\n'.join([HEADER, *lines])


# ---- escaping ------------------------------------------------------------------------------------

_ZERO_WIDTH = re.compile('[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]')
_CONTROL = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')
_CHAT_TOKENS = re.compile(r'<\|[^|>]{0,40}\|>|\[/?INST\]|<</?SYS>>', re.IGNORECASE)
_ROLE = re.compile(
    r'\b(system|assistant|developer|user|human|ai|tool|function)(\s*)([:：])', re.IGNORECASE
)
_FENCE = re.compile(r'`{3,}|~{3,}')


def escape_for_prompt(text: str, max_chars: int = MAX_ITEM_CHARS) -> str:
    """One inert line of `text`: no tags, chat tokens, role prefixes, fences or line breaks."""
    out = _ZERO_WIDTH.sub('', unicodedata.normalize('NFKC', text))
    out = _CONTROL.sub(' ', out)
    out = _CHAT_TOKENS.sub(lambda m: f'({m.group(0).strip("<>[]|/")})', out)
    # angle brackets become look-alikes, so "<system>" cannot open a tag the model honours
    out = out.replace('<', '‹').replace('>', '›')
    out = _FENCE.sub("'''", out)
    # "System: do X" inside a memory must not read as a new speaker turn
    out = _ROLE.sub(lambda m: f'{m.group(1)} said{m.group(3)}', out)
    # one memory is one list item: a newline could start a heading, a role line or a new item
    out = ' '.join(out.split())
    if len(out) > max_chars:
        out = out[: max_chars - 1].rstrip() + '…'
    return out


# ---- recognising a block: ours and the forms other runtimes inject -------------------------------
# a client that sends a block back inside a turn, a transcript or a document must not turn
# recalled memories into new ones

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
