"""Personal data (emails, phone numbers) masked in exports with `redact=true`, and secret spans
masked in every imported or hydrated memory."""

from __future__ import annotations

import re
from typing import Any

from core.text import EMAIL_PATTERN
from recall.admin.reports import Redactions
from recall.models import Chunk
from recall.normalize import content_hash
from recall.write.guards import redact_chunk, redact_history

_EMAIL = re.compile(EMAIL_PATTERN)
_PHONE_CANDIDATE = re.compile(r'(?<![\w.])\+?\(?\d[\d\s().-]{5,}\d(?![\w.])')
_NOT_PHONE = re.compile(
    r'^\d{4}[-./]\d{1,2}[-./]\d{1,2}$'  # dates
    r'|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$'
    r'|^\d{1,3}(?:\.\d{1,3}){3}$'  # IPv4 addresses
)
EMAIL_PLACEHOLDER = '[email]'
PHONE_PLACEHOLDER = '[phone]'


def _phone(match: re.Match[str]) -> str:
    found = match.group(0)
    digits = sum(ch.isdigit() for ch in found)
    # dates, addresses and short numbers are not phone numbers; E.164 allows 7 to 15 digits
    if not 7 <= digits <= 15 or _NOT_PHONE.match(found.strip()):
        return found
    return PHONE_PLACEHOLDER


def redact_text(text: str) -> str:
    """`text` with email addresses and phone numbers replaced by placeholders."""
    return _PHONE_CANDIDATE.sub(_phone, _EMAIL.sub(EMAIL_PLACEHOLDER, text))


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [_redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    return value


def redact_record(record: dict[str, Any]) -> dict[str, Any]:
    """A chunk record with personal data redacted from every free-text field."""
    out = dict(record)
    for name in ('text', 'abstract', 'source_ref', 'metadata', 'tags'):
        if out.get(name) is not None:
            out[name] = _redact_value(out[name])
    for name in ('versions', 'merges'):  # a memory's history holds its earlier texts
        if out.get(name):
            out[name] = redact_history(out[name], _redact_value)
    if out.get('entity_key'):
        # entity keys such as `phone:+15550100` embed the value itself
        kind, _, _value = str(out['entity_key']).partition(':')
        out['entity_key'] = f'{kind}:[redacted]'
    if out.get('text') != record.get('text'):
        out['content_hash'] = content_hash(out['text'])
    return out


def masked(chunk: Chunk, number: int, report: Redactions) -> Chunk:
    """`chunk` with secret spans masked in every free-text field, reported by line."""
    clean, found = redact_chunk(chunk)
    if found:
        report.add_redaction(number, found)
    return clean
