"""Auto-recall bundle: skip trivial turns, pack hits under a token budget into a recall block.

What a block looks like (header, one escaped line per memory) is `recall.recall_block`; the
bundle is injected for the current turn only and never written back to history.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from recall.recall_block import HEADER, PackableHit, format_line, render

MAX_ITEMS = 5
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


# ---- token estimate and packing --------------------------------------------------------------


def _is_wide(char: str) -> bool:
    # CJK ideographs, kana, hangul and full-width forms: ~1 token each in common BPE vocabularies
    return unicodedata.east_asian_width(char) in 'WF'


def estimate_tokens(text: str) -> int:
    """Conservative token count: 1 per CJK/wide character, 1 per 4 other characters."""
    wide = sum(1 for c in text if _is_wide(c))
    other = len(text) - wide
    return wide + math.ceil(other / 4)


class Bundle(BaseModel):
    """The packed recall block and what went into it."""

    text: str = Field(description='empty when nothing fitted or nothing was given')
    ids: list[str] = Field(default_factory=list, description='recalled ids, in bundle order')
    tokens: int = 0
    max_tokens: int
    dropped: list[str] = Field(default_factory=list, description='ids left out by the budget')


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
        text=render(lines),
        ids=ids,
        tokens=used,
        max_tokens=max_tokens,
        dropped=dropped,
    )
