"""The snapshot format: Core memories as Markdown with one metadata comment per memory."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core import jsonsafe
from core.clock import storable
from recall.models import Chunk
from recall.tiers import Kind, Source

_ENTRY = re.compile(r'^<!-- mnemos:memory (\{.*\}) -->[ \t]*$', re.MULTILINE)
_SNAPSHOT_FIELDS = (
    'id', 'user_id', 'kind', 'importance', 'importance_label', 'confidence', 'pinned',
    'access_count', 'created_at', 'stated_at', 'updated_at', 'accessed_at', 'expires_at', 'source',
    'source_ref', 'trust', 'tags', 'entity_key', 'abstract', 'metadata', 'speaker', 'stale',
)  # fmt: skip


class SnapshotEntry(BaseModel):
    """One Core memory parsed from a snapshot; `text` is the Markdown body under its heading."""

    model_config = ConfigDict(extra='ignore')

    text: str = Field(min_length=1)
    user_id: str | None = None
    kind: Kind = Kind.NOTE
    importance: float = Field(default=0.7, ge=0.0, le=1.0)
    importance_label: str | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    pinned: bool = False
    access_count: int = Field(default=0, ge=0)
    created_at: datetime | None = None
    stated_at: datetime | None = None
    updated_at: datetime | None = None
    accessed_at: datetime | None = None
    expires_at: datetime | None = None
    source: Source | None = None
    source_ref: str | None = None
    trust: str | None = None
    tags: list[str] = Field(default_factory=list)
    entity_key: str | None = None
    abstract: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # whose first-person facts these are, and which of them later memories replaced: what
    # supersession after a hydrate compares, as it did before
    speaker: str | None = None
    stale: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator('created_at', 'stated_at', 'updated_at', 'accessed_at', 'expires_at')
    @classmethod
    def _storable(cls, value: datetime | None) -> datetime | None:
        return storable(value) if value is not None else None  # epoch seconds must read back


def _title(text: str) -> str:
    first = ' '.join(text.split())
    return first if len(first) <= 60 else first[:57].rstrip() + '...'


def render_snapshot(scope: str, chunks: Sequence[Chunk], taken_at: datetime) -> str:
    """Markdown of Core memories: a heading and a metadata comment per memory, then its text."""
    lines = [
        f'# Core memories of {scope}',
        '',
        f'- scope: `{scope}`',
        f'- memories: {len(chunks)}',
        f'- taken_at: {taken_at.isoformat()}',
        '',
    ]
    for number, chunk in enumerate(chunks, 1):
        data = chunk.model_dump(mode='json')
        meta = {k: data[k] for k in _SNAPSHOT_FIELDS if data.get(k) not in (None, [], {})}
        lines += [
            f'## {number}. {_title(chunk.text)}',
            f'<!-- mnemos:memory {json.dumps(meta, ensure_ascii=False, sort_keys=True)} -->',
            '',
            chunk.text.strip(),
            '',
        ]
    return '\n'.join(lines)


def parse_snapshot(markdown: str) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
    """(entry number, raw fields incl. text) per entry, and whether the text was a snapshot."""
    matches = list(_ENTRY.finditer(markdown))
    if not matches:
        return [], False
    entries: list[tuple[int, dict[str, Any]]] = []
    for index, match in enumerate(matches):
        end = len(markdown)
        if index + 1 < len(matches):
            # the body ends where the next entry's heading line starts
            next_start = matches[index + 1].start()
            heading = markdown.rfind('\n', 0, max(next_start - 1, 0))
            end = heading + 1 if heading >= match.end() else next_start
        body = markdown[match.end() : end].strip()
        try:
            meta = jsonsafe.loads(match.group(1))
        except jsonsafe.NotJson:
            meta = None
        if not isinstance(meta, dict):
            entries.append((index + 1, {'_invalid': 'metadata comment is not a JSON object'}))
            continue
        if jsonsafe.too_deep(meta) is not None:
            problem = f'metadata comment is nested deeper than {jsonsafe.MAX_DEPTH} levels'
            entries.append((index + 1, {'_invalid': problem}))
            continue
        entries.append((index + 1, {**meta, 'text': body}))
    return entries, True
