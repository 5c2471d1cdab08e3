"""Write guards of capture: system channels and injected runtime/system/test prompts never become
memory (seed 001: filter injected and system prompts)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from recall.normalize import content_hash
from recall.read.bundle import RECALL_MARKER

SYSTEM_CHANNELS = frozenset({'heartbeat', 'cron', 'system'})
# runtime-built user-role messages carry one of these tags (seed 001: source=internal|banner|…)
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
        (
            'recall_block',
            re.escape(RECALL_MARKER) + r'|##\s*relevant memor|<recalled[_-]?memor'
            r'|\[memory context\]|<memory[_-]?context|<relevant[_-]?memor',
        ),
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
    for name, pattern in _FINGERPRINTS:
        if pattern.search(text):
            return name
    return None


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
# Credentials and payment numbers never become memory (seed 004: "skip secrets-like strings"):
# a recalled memory is pasted into prompts and exports, so a stored key would leak again and
# again. Each pattern names its kind; the skip reason is `secret:<kind>`.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, flags))
    for name, pattern, flags in (
        (
            'private_key',
            # the whole block when it ends, else everything after its header
            r'-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----'
            r'(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)',
            re.DOTALL,
        ),
        ('api_key', r'\b(?:sk|pk|rk)[-_](?:(?:live|test|proj|ant)[-_])?[A-Za-z0-9_-]{16,}', 0),
        ('aws_access_key', r'\b(?:AKIA|ASIA)[0-9A-Z]{16}\b', 0),
        ('github_token', r'\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})', 0),
        ('slack_token', r'\bxox[abposr]-[A-Za-z0-9-]{10,}', 0),
        ('google_api_key', r'\bAIza[0-9A-Za-z_-]{35}\b', 0),
        ('jwt', r'\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}', 0),
        ('bearer_token', r'\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*', re.IGNORECASE),
        (
            'password',
            r'(?:\b(?:password|passwd|passphrase|pwd|pw|passcode|pin code)\b'
            r'(?:\s+(?:is|=|:)|\s*[:=：])\s*["\']?\S{3,}'
            r'|(?:密码|口令|登录密码|支付密码)\s*(?:是|为|:|：|=)\s*\S{3,})',
            re.IGNORECASE,
        ),
    )
)
# 13-19 digits, optionally grouped by single spaces or dashes; not part of a longer number,
# word, path or URL (ids in upload URLs pass Luhn one time in ten), not a phone number written
# with `+`; a Luhn check then drops nine random digit runs in ten
_CARD = re.compile(r'(?<![\w+/.])(?<!\+ )[2-6]\d{3}(?:[ -]?\d){9,15}(?![\w/])')
# a digit run the writer labels as a card number is one whether or not it passes Luhn (people
# mistype, and a mistyped card number is still private)
_CARD_LABEL = re.compile(
    r'(?:card\s*(?:number|no\.?|#)|credit\s*card|debit\s*card|卡号|银行卡|信用卡|储蓄卡)'
    r'[^\d\n]{0,12}$',
    re.IGNORECASE,
)
_IBAN = re.compile(r'\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b')


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _CARD.finditer(text):
        digits = re.sub(r'\D', '', match.group())
        if not (13 <= len(digits) <= 19 and len(set(digits)) > 1):
            continue
        labelled = _CARD_LABEL.search(text[max(0, match.start() - 40) : match.start()])
        if labelled or _luhn(digits):
            spans.append(match.span())
    return spans


def _iban_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _IBAN.finditer(text):
        compact = match.group().replace(' ', '')
        if not 15 <= len(compact) <= 34:
            continue
        # ISO 13616: move the first four characters to the end, letters to numbers, mod 97 == 1
        moved = compact[4:] + compact[:4]
        number = ''.join(str(int(ch, 36)) for ch in moved)
        if int(number) % 97 == 1:
            spans.append(match.span())
    return spans


def secret_spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret-looking span in `text`, in order."""
    found = [(kind, *m.span()) for kind, rx in _SECRET_PATTERNS for m in rx.finditer(text)]
    found += [('card_number', *span) for span in _card_spans(text)]
    found += [('iban', *span) for span in _iban_spans(text)]
    return sorted(found, key=lambda f: (f[1], -f[2]))


def secret_kind(text: str) -> str | None:
    """The kind of the first secret in `text` (api_key, password, card_number, ...), or None."""
    spans = secret_spans(text)
    return spans[0][0] if spans else None


def redact_secrets(text: str) -> str:
    """`text` with each secret-looking span replaced by `[redacted:<kind>]`."""
    out: list[str] = []
    at = 0
    for kind, start, end in secret_spans(text):
        if start < at:
            continue  # overlaps a span already redacted
        out.append(text[at:start])
        out.append(f'[redacted:{kind}]')
        at = end
    out.append(text[at:])
    return ''.join(out)


def explicit_skip(text: str) -> str | None:
    """Why an explicit write is skipped: `injected:<fingerprint>` or `secret:<kind>`, or None."""
    injected = explicit_injection(text)
    if injected is not None:
        return f'injected:{injected}'
    kind = secret_kind(text)
    return f'secret:{kind}' if kind is not None else None


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, list):
        return [_redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    return value


def redact_history(entries: list[Any], redact: Callable[[Any], Any]) -> list[Any]:
    """History entries (earlier versions, merged writes) with `redact` applied to their free
    text only: their timestamps must stay readable."""
    return [
        {k: redact(v) if k in ('text', 'tags', 'metadata') else v for k, v in e.items()}
        if isinstance(e, dict)
        else e
        for e in entries
    ]


def redact_secret_fields(record: dict[str, Any]) -> dict[str, Any]:
    """An exported chunk record with secret-looking spans masked in every free-text field."""
    out = dict(record)
    for name in ('text', 'abstract', 'source_ref', 'metadata', 'tags', 'entity_key'):
        if out.get(name) is not None:
            out[name] = _redact_value(out[name])
    for name in ('versions', 'merges'):  # a memory's history holds its earlier texts
        if out.get(name):
            out[name] = redact_history(out[name], _redact_value)
    if out.get('text') != record.get('text') and 'content_hash' in out:
        out['content_hash'] = content_hash(out['text'])
    return out
