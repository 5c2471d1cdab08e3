"""Who said a memory: the speaker of a dialogue turn, and the speakers a question names.

Clients that log a chat write "Name: words" (LoCoMo, most agent transcripts) and rarely send
`metadata.speaker`. Only a turn has a speaker: a field note ("Maya's Gender: female",
"李娜的性别：女"), a labelled note ("Note: ...", "发布流程：...") and a block of several
speakers' lines are not one person's words. The write
side records a memory's speaker; the read side boosts a turn whose speaker the question names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from core.text_cache import text_cache

# "Caroline: ...", "Dr. Lee: ...", "东升: ..." — a short name before a colon at the very start;
# Latin names must be capitalised so "Note: buy milk" style labels need more than a colon
_NAME = r'((?:[A-Z][\w.\'-]{0,30})(?: [A-Z][\w.\'-]{0,30}){0,2}|[\u4e00-\u9fff]{1,6})\s*[:：]'
_PREFIX = re.compile(rf'^\s*{_NAME}\s*\S')
_NON_NAMES = frozenset({'q', 'a', 'user', 'assistant', 'system', 'http', 'https'})
# "Note: ...", "Meeting Notes: ...", "发布流程：...", "更正：...": a label whose head (its last
# word; for Chinese its last two characters, or all of it) is a heading noun introduces a note,
# not words someone said; the same rule in both languages, read from the label alone, so a write
# and a read agree without looking at the rest of the scope
_LABEL_WORDS = """
    note notes update updates address todo todos summary summaries reminder reminders warning
    important tip tips fyi ps re subject title date time when where location place question
    questions answer answers step steps result results conclusion conclusions status goal goals
    plan plans agenda action actions decision decisions correction corrections fix bug issue
    error example examples source sources reference references link links url email phone tag
    tags category topic context background description definition name age gender birthday
    occupation job hobby hobbies preference preferences password username price cost budget
    deadline due meeting event events task tasks idea ideas observation observations highlight
    highlights key rule rules policy procedure process recipe ingredients instructions
    output input response request prompt query items item list detail details fact facts info
    overview abstract changelog fixed added changed removed caution tldr edit p.s
    流程 更正 注意 备注 说明 总结 结论 步骤 问题 答案 地址 时间 日期 提醒 要点 原因 方法 结果
    目标 计划 记录 电话 邮箱 密码 账号 规定 政策 事项 清单 配置 命令 链接 标题 主题 任务 待办
    提示 补充 背景 需求 方案 进度 状态 名称 类型 版本 价格 费用 预算 原则 规则 建议 偏好 习惯
    爱好 例子 示例 定义 概要 摘要 笔记 备忘 议程 决定 反馈 意见 症状 诊断 过敏 生日 性别 年龄
    职业 更新 修正 警告 重点 地点 位置 来源 参考 描述 简介 特点 优点 缺点 用法 要求 条件 注
    """
_LABEL_HEADS = frozenset(_LABEL_WORDS.split())
_POSSESSIVE = re.compile(r"['’]s\b|s['’](?:\s|$)|的")
# the speaker of every line of a dialogue block
_LINE_PREFIX = re.compile(rf'^\s*{_NAME}', re.MULTILINE)
_WORD = re.compile(r'[^\W_]+', re.UNICODE)
_HAN = re.compile(r'[\u4e00-\u9fff]+')


def speaker_of(text: str, metadata: Mapping[str, Any], user_id: str | None = None) -> str | None:
    """Who said this memory: `metadata.speaker`, else its turn's "Name:" prefix, else the user
    id."""
    given = metadata.get('speaker')
    if isinstance(given, str) and given.strip():
        return given.strip()[:80]
    return prefix_speaker(text) or user_id


def prefix_speaker(text: str) -> str | None:
    """The name of a "Name: words" turn; None for a field note ("X's Gender: female": a
    possessive is no name) and for lines of several speakers (a dialogue, not one turn)."""
    return _read_prefix(text)


# a search reads the speaker of each of its ~200 candidates and of their neighbours, and the
# same memories come back for many queries: each text is read once, and as many are kept as
# recall.read.context keeps the terms of (400 searches of a 10k store read ~7,500 distinct
# texts, and with 4,096 kept read them ~9,600 times; a write reads its text first). Memories
# are short (core.text_cache keeps 20,000 keys of up to 512 characters, 1,250 up to 4,096).
# Worst case, both full: ~18 MB of ASCII, ~35 MB of Chinese (one cache of 20,000 keys of 4,096
# held ~80 MB of ASCII); 20,000 LoCoMo turns ~6 MB (bench/text_cache_rss.py)
READ_CACHE = 20_000


@text_cache(READ_CACHE)
def _read_prefix(text: str) -> str | None:
    match = _PREFIX.match(text)
    if not match:
        return None
    name = match.group(1)
    if name.casefold() in _NON_NAMES or _POSSESSIVE.search(name) or _is_label(name):
        return None
    if '\n' in text:
        others = {m.group(1) for m in _LINE_PREFIX.finditer(text)}
        if others - {name}:
            return None
    return name


def _is_label(name: str) -> bool:
    """A heading label rather than a name: its head word is a heading noun."""
    if _HAN.fullmatch(name):
        # a Chinese name is two to four characters (欧阳娜娜); a longer label is a heading
        # "更正一下：", "补充一下：": a heading said as a verb
        verb = name[:2] in _LABEL_HEADS and name[2:] in ('一下', '下')
        return len(name) > 4 or name in _LABEL_HEADS or name[-2:] in _LABEL_HEADS or verb
    words = name.split()
    return words[-1].casefold().rstrip('.') in _LABEL_HEADS


def turn_speaker(payload: Mapping[str, Any]) -> str | None:
    """The speaker of a dialogue turn at read time: `metadata.speaker` or the text's own
    prefix; never the user id a write falls back to (every note of that user would count)."""
    metadata = payload.get('metadata')
    given = metadata.get('speaker') if isinstance(metadata, dict) else None
    if isinstance(given, str) and given.strip():
        return given.strip()[:80]
    return prefix_speaker(str(payload.get('text', '')))


@lru_cache(maxsize=4096)
def name_keys(name: str) -> frozenset[str]:
    """The casefolded words a query may use for a speaker ("Dr. Lee Chen" → dr, lee, chen)."""
    if _HAN.fullmatch(name):
        return frozenset({name})
    return frozenset(w.casefold() for w in _WORD.findall(name) if len(w) > 1)


def query_names(query: str, speakers: set[str]) -> frozenset[str]:
    """The speakers (as given) that the query names, by whole word or, for CJK, substring."""
    words = {w.casefold() for w in _WORD.findall(query)}
    named = set()
    for speaker in speakers:
        for key in name_keys(speaker):
            if (key in query) if _HAN.fullmatch(key) else (key in words):
                named.add(speaker)
                break
    return frozenset(named)


def is_turn(payload: Mapping[str, Any]) -> bool:
    """A dialogue turn: someone is said to speak it (metadata or a "Name:" prefix)."""
    return turn_speaker(payload) is not None
