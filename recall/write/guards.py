"""Write guards of capture: system channels and injected runtime/system/test prompts never become
memory: what the runtime or a system wrote is not what the user said."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from recall.models import Chunk
from recall.normalize import content_hash
from recall.recall_block import FINGERPRINT, RECALL_MARKER, strip_recall_blocks
from recall.schemas import MemoryIn
from recall.write import scanner

SYSTEM_CHANNELS = frozenset({'heartbeat', 'cron', 'system'})
# runtime-built user-role messages carry one of these tags (source=internal|banner|…)
INTERNAL_SOURCES = frozenset(
    {
        'internal',
        'banner',
        'repair',
        'compaction',
        'system',
        'tool',
        'test',
        'recall',
        'heartbeat',
        'cron',
        'injected',
        'preparse',
        'consolidation',
        'assistant',
    }
)


def is_system_channel(channel: str | None) -> bool:
    """True for heartbeat, cron and system channels (also as the last part of a scope)."""
    if not channel:
        return False
    return channel.strip().lower().rsplit(':', 1)[-1] in SYSTEM_CHANNELS


# (name, pattern): fingerprints of prompts the runtime or a test harness wrote, not the user
_FINGERPRINTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE | re.MULTILINE))
    for name, pattern in (
        ('recall_block', FINGERPRINT),
        (
            'system_tag',
            r'</?\s*(system|system[_-]?prompt|instructions?|assistant|tool_result|'
            r'tool_use|function_results?)\s*>|<\|im_start\|>|<\|system\|>|\[/?INST\]|<</?SYS>>',
        ),
        (
            'persona',
            r'\byou are (a|an) (helpful|friendly|ai|large language|honest|harmless)|'
            r'\bas an ai (language )?model\b|\byou are chatgpt\b|\byou are claude\b',
        ),
        (
            'jailbreak',
            r'\bignore (all |any )?(the )?(previous|prior|above) (instructions|prompts?)'
            r'|\bdisregard (all )?(previous|prior) instructions',
        ),
        ('role_line', r'^\s*(system|assistant|developer)\s*:'),
        (
            'task_banner',
            r'ask_user\s*工具|请用\s*ask_user|ask_user tool|write_workspace_file|'
            r'multi-hop task|depth-\d+ chain test|\blead should\b|偏好收集|请按以下顺序完成|'
            r'delegate to agent_',
        ),
        (
            'runtime_line',
            r'^\s*\[(cron:|heartbeat|distilled_|compaction|system)|'
            r'^\s*(heartbeat_ok|no_reply)\b',
        ),
    )
)
# every word, lower-cased, an ASCII match of each fingerprint holds (their Chinese alternatives
# hold a Chinese word, so an ASCII text matches none of them): an ASCII text without any is not
# searched (IGNORECASE matches some other letters to ASCII ones, so another text is)
_FINGERPRINT_WORDS: dict[str, tuple[str, ...]] = {
    'recall_block': (RECALL_MARKER.lower(), 'relevant', '<recalled', '[memory context]', '<memory'),
    'system_tag': ('<', 'inst]'),
    'persona': ('you are', 'as an ai'),
    'jailbreak': ('ignore', 'disregard'),
    'role_line': ('system', 'assistant', 'developer'),
    'task_banner': (
        'ask_user', 'write_workspace_file', 'multi-hop task', 'chain test', 'lead should',
        'delegate to agent_',
    ),
    'runtime_line': ('[', 'heartbeat_ok', 'no_reply'),
}  # fmt: skip
_TOOL_JSON_KEYS = re.compile(
    r'"(tool_calls?|function_call|tool_use|tool_call_id|arguments|tool_result|name)"\s*:'
)


def _tool_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in '[{':
        return False
    if _TOOL_JSON_KEYS.search(stripped):
        return True
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True  # a whole JSON document is tool output, not something the user told us


def injection_reason(text: str, source: str | None = None) -> str | None:
    """Why `text` looks injected (`source:<tag>` or a fingerprint name), or None."""
    tag = (source or '').strip().lower()
    if tag in INTERNAL_SOURCES:
        return f'source:{tag}'
    if _tool_json(text):
        return 'tool_json'
    lowered = text.lower() if text.isascii() else None
    for name, pattern in _FINGERPRINTS:
        if lowered is not None and not _holds_any(lowered, _FINGERPRINT_WORDS[name]):
            continue  # ~7 searches of every write's text, which most match none of
        if pattern.search(text):
            return name
    return None


def _holds_any(lowered: str, words: tuple[str, ...]) -> bool:
    for word in words:  # noqa: SIM110 - a loop: no generator frame per fingerprint
        if word in lowered:
            return True
    return False


def is_injected(text: str, source: str | None = None) -> bool:
    """True for runtime/system/test prompts: by source tag first, else by content fingerprint."""
    return injection_reason(text, source) is not None


def explicit_injection(text: str) -> str | None:
    """The fingerprint of an injected prompt in an explicit write, or None.

    Content fingerprints only: an explicit write's `source` says who wrote it (a tool's write is
    stored as untrusted, not dropped), and a JSON document may be exactly what a client means to
    keep.
    """
    reason = injection_reason(text)
    return None if reason in (None, 'tool_json') else reason


# ---- secrets ----------------------------------------------------------------------------------
# the scanner itself is `recall.write.scanner`; these are the names the write paths call


def secret_spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret-looking span in `text`, in order."""
    return scanner.secret_spans(text)


def secret_kind(text: str) -> str | None:
    """The kind of the first secret in `text` (api_key, password, card_number, ...), or None."""
    spans = scanner.secret_spans(text)
    return spans[0][0] if spans else None


def mask_turn(text: str) -> tuple[str, list[str]]:
    """A turn with its secret spans masked ('' when nothing else is left), and the kinds
    masked."""
    clean, kinds = scanner.redact(text)
    return ('' if kinds and scanner.only_secrets(clean) else clean), kinds


def redact_secrets(text: str) -> str:
    """`text` with each secret-looking span replaced by `[redacted:<kind>]`."""
    return scanner.redact(text)[0]


def explicit_skip(text: str, *, scanned_clean: bool = False) -> str | None:
    """Why an explicit write is refused: `injected:<fingerprint>`, or `secret:<kind>` for a text
    that holds a secret or, masked already, nothing but masked secrets (`remember` masks first,
    so only the second case skips a write there). `scanned_clean`: the caller's scan of this
    very text found no secret (`guarded_items` masked nothing in it), so it is not scanned
    again."""
    injected = explicit_injection(text)
    if injected is not None:
        return f'injected:{injected}'
    kind = None if scanned_clean else secret_kind(text)
    if kind is not None:
        return f'secret:{kind}'
    masked = scanner.PLACEHOLDER.search(text)
    if masked is None or not scanner.only_secrets(text):
        return None
    return 'secret:' + masked.group().removeprefix('[redacted:').removesuffix(']')


def redact_item(item: MemoryIn) -> tuple[MemoryIn, list[str]]:
    """A write with secret spans masked in its text, metadata (keys and values), tags,
    source_ref and entity_key, and what was masked (`text:password`, `metadata.pin:...`)."""
    fields = {name: getattr(item, name) for name in scanner.TEXT_FIELDS if hasattr(item, name)}
    clean, found = scanner.redact_fields(fields)
    return (item.model_copy(update=clean) if found else item), found


def without_recall(item: MemoryIn) -> MemoryIn:
    """`item` with injected recall blocks cut from its text (unchanged if nothing remains)."""
    text = strip_recall_blocks(item.text)
    return item.model_copy(update={'text': text}) if text and text != item.text else item


def guarded_items(items: Iterable[MemoryIn]) -> tuple[list[MemoryIn], list[list[str]]]:
    """Writes without injected recall blocks (recall is never persisted; a write that
    is only one keeps its text so the injection guard skips it with its reason) and with secret
    spans masked in every field, and what was masked per write."""
    guarded = [redact_item(without_recall(i)) for i in items]
    return [i for i, _ in guarded], [found for _, found in guarded]


def text_masked(found: Iterable[str]) -> bool:
    """Whether `redact_item` masked a span of the text itself (`found` is what it masked):
    if not, the text it returned is the one it scanned, and holds no secret."""
    return any(f.startswith('text:') for f in found)


def redact_chunk(chunk: Chunk) -> tuple[Chunk, list[str]]:
    """A chunk with secret spans masked in every free-text field; the content hash follows the
    text, the id is kept (imports keep ids)."""
    fields = chunk.model_dump(include={*scanner.TEXT_FIELDS, *scanner.HISTORY_FIELDS})
    clean, found = scanner.redact_fields(fields)
    if not found:
        return chunk, []
    if clean['text'] != chunk.text:
        clean['content_hash'] = content_hash(clean['text'])
    return Chunk.model_validate({**chunk.model_dump(), **clean}), found


def redact_history(entries: list[Any], redact: Callable[[Any], Any]) -> list[Any]:
    """History entries (earlier versions, merged writes) with `redact` applied to their free
    text only: their timestamps must stay readable."""
    return [
        {k: redact(v) if k in scanner.HISTORY_TEXT else v for k, v in e.items()}
        if isinstance(e, dict)
        else e
        for e in entries
    ]


def redact_secret_fields(record: dict[str, Any]) -> dict[str, Any]:
    """An exported chunk record with secret-looking spans masked in every free-text field."""
    out, found = scanner.redact_fields(record)
    if found and out.get('text') != record.get('text') and 'content_hash' in out:
        out['content_hash'] = content_hash(out['text'])
    return out
