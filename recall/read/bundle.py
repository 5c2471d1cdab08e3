"""Auto-recall bundle: skip trivial turns, escape recalled text, pack hits under a token budget.

The bundle is injected for the current turn only and never written back to history (seed 001).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from core.clock import to_epoch

RECALL_MARKER = 'current turn only'
HEADER = f'## Relevant Memory ({RECALL_MARKER})'
MAX_ITEMS = 5
MAX_ITEM_CHARS = 400
SHORT_MESSAGE_CHARS = 2

# ---- trivial messages ------------------------------------------------------------------------

# Acks, greetings and nudges in English and Chinese, compared after stripping punctuation/emoji.
_ACKS = {
    'ok',
    'okay',
    'k',
    'kk',
    'ok ok',
    'okk',
    'yes',
    'yep',
    'yeah',
    'yup',
    'no',
    'nope',
    'sure',
    'fine',
    'cool',
    'nice',
    'great',
    'good',
    'got it',
    'gotcha',
    'roger',
    'noted',
    'done',
    'thanks',
    'thank you',
    'thx',
    'ty',
    'tks',
    'lol',
    'haha',
    'hahaha',
    'hmm',
    'hm',
    'uh',
    'um',
    'right',
    'alright',
    'all right',
    'sounds good',
    'perfect',
    'continue',
    'go on',
    'go ahead',
    'next',
    'again',
    'retry',
    'stop',
    'wait',
    'same',
    'np',
    'no problem',
    'you too',
    '好',
    '好的',
    '好滴',
    '好吧',
    '好哒',
    '嗯',
    '嗯嗯',
    '恩',
    '哦',
    '噢',
    '喔',
    '行',
    '可以',
    '对',
    '对的',
    '是的',
    '收到',
    '明白',
    '了解',
    '知道了',
    '谢谢',
    '多谢',
    '谢了',
    '感谢',
    '哈哈',
    '哈哈哈',
    '继续',
    '没事',
    '没问题',
    '不用了',
    '算了',
    'ok了',
    '好了',
    '辛苦了',
}
_GREETINGS = {
    'hi',
    'hello',
    'hey',
    'hiya',
    'yo',
    'good morning',
    'good night',
    'good evening',
    'good afternoon',
    'morning',
    'gm',
    'gn',
    'bye',
    'goodbye',
    'see you',
    'how are you',
    "what's up",
    'whats up',
    'sup',
    '你好',
    '您好',
    '嗨',
    '哈喽',
    '早',
    '早上好',
    '晚上好',
    '晚安',
    '在吗',
    '在不在',
    '在么',
    '拜拜',
    '再见',
    '你在吗',
    '人呢',
}
_HEARTBEAT = re.compile(r'^\s*\[?(heartbeat|heartbeat_ok|no_reply|ping|pong)\]?\b', re.IGNORECASE)
_SLASH = re.compile(r'^\s*/[A-Za-z][\w-]*(\s|$)')
_TRAILING = re.compile(r'[\s\W_]+$')
_LEADING = re.compile(r'^[\s\W_]+')


# the bundle's relevance floor on hit confidence (recall.read.context): a prompt is better off with
# no memory than an unrelated one. The highest floor that drops no gold answer on the dev half
# of bench/updates.py (English and Chinese; 0.5 dropped 1.5 % of the English ones), while no
# unrelated question there gets a memory.
BUNDLE_MIN_SCORE = 0.4


class TrivialCheck(BaseModel):
    """Whether a message is too trivial to recall for, and why."""

    model_config = ConfigDict(frozen=True)

    trivial: bool
    reason: str | None = None


def _is_symbol(char: str) -> bool:
    # emoji, punctuation, symbols, marks, separators and variation selectors
    return unicodedata.category(char)[0] in 'PSZMC'


def _core(message: str) -> str:
    folded = unicodedata.normalize('NFKC', message).casefold()
    return _LEADING.sub('', _TRAILING.sub('', folded)).strip()


def is_trivial(message: str) -> TrivialCheck:
    """Greetings, acks, emoji/punctuation only, slash commands, heartbeats and 1-2 char turns."""
    if not message or not message.strip():
        return TrivialCheck(trivial=True, reason='empty')
    if _SLASH.match(message):
        return TrivialCheck(trivial=True, reason='slash_command')
    if _HEARTBEAT.match(message):
        return TrivialCheck(trivial=True, reason='heartbeat')
    stripped = ''.join(message.split())
    if all(_is_symbol(c) for c in stripped):
        has_emoji = any(unicodedata.category(c) == 'So' for c in stripped)
        return TrivialCheck(trivial=True, reason='emoji_only' if has_emoji else 'punctuation_only')
    core = _core(message)
    # robust to trailing emoji/punctuation and internal spacing: "好的👌", "ok👍", "收到!!"
    squeezed = ' '.join(core.split())
    if squeezed in _ACKS:
        return TrivialCheck(trivial=True, reason='ack')
    if squeezed in _GREETINGS or squeezed.removesuffix('呀').removesuffix('啊') in _GREETINGS:
        return TrivialCheck(trivial=True, reason='greeting')
    if len(squeezed.replace(' ', '')) <= SHORT_MESSAGE_CHARS and not any(
        c.isdigit() for c in squeezed
    ):
        return TrivialCheck(trivial=True, reason='too_short')
    return TrivialCheck(trivial=False)


# ---- escaping --------------------------------------------------------------------------------

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


# ---- token estimate and packing --------------------------------------------------------------


def _is_wide(char: str) -> bool:
    # CJK ideographs, kana, hangul and full-width forms: ~1 token each in common BPE vocabularies
    return unicodedata.east_asian_width(char) in 'WF'


def estimate_tokens(text: str) -> int:
    """Conservative token count: 1 per CJK/wide character, 1 per 4 other characters."""
    wide = sum(1 for c in text if _is_wide(c))
    other = len(text) - wide
    return wide + math.ceil(other / 4)


class PackableHit(Protocol):
    """What `pack` reads from a hit (recall.schemas.Hit satisfies it)."""

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


class Bundle(BaseModel):
    """The packed recall block and what went into it."""

    text: str = Field(description='empty when nothing fitted or nothing was given')
    ids: list[str] = Field(default_factory=list, description='recalled ids, in bundle order')
    tokens: int = 0
    max_tokens: int
    dropped: list[str] = Field(default_factory=list, description='ids left out by the budget')


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


def pack(
    hits: Sequence[PackableHit],
    max_tokens: int,
    *,
    max_items: int = MAX_ITEMS,
    now: datetime | None = None,
) -> Bundle:
    """Pack hits in their given order under `max_tokens` (header included), at most `max_items`.

    A hit that does not fit is dropped and the next, possibly shorter, one is tried, so the
    bundle keeps score order while using the budget.
    """
    if not hits or max_tokens <= 0:
        return Bundle(text='', max_tokens=max_tokens, dropped=[h.id for h in hits])
    used = estimate_tokens(HEADER) + 1
    lines: list[str] = []
    ids: list[str] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.id in seen:
            continue
        seen.add(hit.id)
        line = format_line(hit, now)
        cost = estimate_tokens(line) + 1  # the newline
        if len(ids) >= max_items or used + cost > max_tokens:
            dropped.append(hit.id)
            continue
        lines.append(line)
        ids.append(hit.id)
        used += cost
    if not ids:
        return Bundle(text='', max_tokens=max_tokens, dropped=dropped)
    return Bundle(
        text='\n'.join([HEADER, *lines]),
        ids=ids,
        tokens=used,
        max_tokens=max_tokens,
        dropped=dropped,
    )
