"""Write guards of capture: system channels and injected runtime/system/test prompts never become
memory (seed 001: filter injected and system prompts)."""

from __future__ import annotations

import json
import re

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
