"""Who said a memory: the speaker of a dialogue turn, and the speakers a question names.

Clients that log a chat write "Name: words" (LoCoMo, most agent transcripts) and rarely send
`metadata.speaker`. Only a turn has a speaker: a field note ("Maya's Gender: female",
"李娜的性别：女") and a block of several speakers' lines are not one person's words. The write
side records a memory's speaker; the read side boosts a turn whose speaker the question names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# "Caroline: ...", "Dr. Lee: ...", "东升: ..." — a short name before a colon at the very start;
# Latin names must be capitalised so "Note: buy milk" style labels need more than a colon
_NAME = r'((?:[A-Z][\w.\'-]{0,30})(?: [A-Z][\w.\'-]{0,30}){0,2}|[\u4e00-\u9fff]{1,6})\s*[:：]'
_PREFIX = re.compile(rf'^\s*{_NAME}\s*\S')
_NON_NAMES = frozenset({'note', 'todo', 'q', 'a', 'user', 'assistant', 'system', 'http', 'https'})
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
    match = _PREFIX.match(text)
    if not match:
        return None
    name = match.group(1)
    if name.casefold() in _NON_NAMES or _POSSESSIVE.search(name):
        return None
    if '\n' in text:
        others = {m.group(1) for m in _LINE_PREFIX.finditer(text)}
        if others - {name}:
            return None
    return name


def turn_speaker(payload: Mapping[str, Any]) -> str | None:
    """The speaker of a dialogue turn at read time: `metadata.speaker` or the text's own
    prefix; never the user id a write falls back to (every note of that user would count)."""
    metadata = payload.get('metadata')
    given = metadata.get('speaker') if isinstance(metadata, dict) else None
    if isinstance(given, str) and given.strip():
        return given.strip()[:80]
    return prefix_speaker(str(payload.get('text', '')))


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
