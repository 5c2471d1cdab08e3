"""Pydantic models of consolidation: completed sessions and episodes (L1)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from core.clock import from_epoch, storable, to_epoch
from core.scopes import Identifier, ScopeId

# Fixed namespace: an episode id is the same in every process, version and replay.
EPISODE_NAMESPACE = uuid.UUID('9d3c1f57-2a8e-4b0c-8f6e-6d6e656d6f4c')
SESSION_KEY_RE = re.compile(r'^[A-Za-z0-9_.:-]{1,200}\Z')
MAX_MESSAGES = 2000
MAX_CONTENT_BYTES = 32 * 1024


class SessionMessage(BaseModel):
    """One message of a completed session."""

    model_config = ConfigDict(extra='forbid')

    role: Literal['user', 'assistant', 'system', 'tool']
    content: str = Field(min_length=1)
    ts: AwareDatetime

    @field_validator('content')
    @classmethod
    def _size(cls, value: str) -> str:
        size = len(value.encode('utf-8'))
        if size > MAX_CONTENT_BYTES:
            raise ValueError(f'content is {size} bytes; the limit is {MAX_CONTENT_BYTES}')
        return value

    @field_validator('ts')
    @classmethod
    def _storable(cls, value: datetime) -> datetime:
        return storable(value)  # episodes keep it as epoch seconds, which must read back

    @field_validator('ts', mode='before')
    @classmethod
    def _naive_is_utc(cls, value: Any) -> Any:
        # ISO 8601 without an offset is taken as UTC, as elsewhere in the API
        if isinstance(value, str) and value and not _has_offset(value):
            try:
                return datetime.fromisoformat(value).replace(tzinfo=UTC)
            except ValueError:
                return value
        return value


def _has_offset(text: str) -> bool:
    return text.endswith(('Z', 'z')) or bool(re.search(r'[+-]\d{2}:?\d{2}$', text[10:]))


class SessionIn(BaseModel):
    """Body of `POST /v1/sessions/<session_key>/complete`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    user_id: Identifier | None = None
    messages: list[SessionMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    summary: str | None = Field(default=None, min_length=1)
    compaction_count: int = Field(default=0, ge=0, le=1_000_000)

    @field_validator('summary')
    @classmethod
    def _summary_size(cls, value: str | None) -> str | None:
        if value is not None:
            if not value.strip():
                raise ValueError('summary must not be blank')
            if len(value.encode('utf-8')) > MAX_CONTENT_BYTES:
                raise ValueError(f'summary exceeds {MAX_CONTENT_BYTES} bytes')
        return value


def is_session_key(value: str) -> bool:
    """True when `value` is a well-formed session key."""
    return bool(SESSION_KEY_RE.match(value))


def source_id(session_key: str, compaction_count: int) -> str:
    """`sessionKey:compactionCount`, the episode's source id."""
    return f'{session_key}:{compaction_count}'


def episode_id(scope: str, session_key: str, compaction_count: int) -> str:
    """uuid5 of (scope, sessionKey:compactionCount): a replayed session maps to one episode.

    The scope is part of the name so that two tenants using the same session key never collide.
    """
    name = f'{scope}\x1f{source_id(session_key, compaction_count)}'
    return str(uuid.uuid5(EPISODE_NAMESPACE, name))


SummarySource = Literal['given', 'extractive', 'llm']
_TIME_FIELDS = ('started_at', 'ended_at', 'created_at', 'updated_at', 'expires_at', 'promoted_at')


class Episode(BaseModel):
    """An episode (L1): one summarised session; stored as the `episodes` point payload.

    The payload also carries the chunk fields recall ranks on (`text`, `kind`, `tier`, `owner`,
    `content_hash`…), so `memory_search` with the `episodic` kind can rank episodes like chunks.
    """

    model_config = ConfigDict(extra='ignore')

    id: str
    scope: str
    user_id: str | None = None
    session_key: str
    compaction_count: int = 0
    source_id: str
    summary: str
    summary_source: SummarySource = 'extractive'
    abstract: str
    topics: list[str] = Field(default_factory=list)
    message_count: int = 0
    started_at: datetime
    ended_at: datetime
    created_at: datetime
    updated_at: datetime
    expires_at: datetime
    promoted: bool = False
    promoted_at: datetime | None = None
    content_hash: str

    def to_payload(self) -> dict[str, Any]:
        """JSON payload; datetimes as epoch seconds (range filters), plus chunk-shaped fields."""
        data = self.model_dump(mode='json')
        for name in _TIME_FIELDS:
            value = getattr(self, name)
            data[name] = to_epoch(value) if value is not None else None
        data.update(
            text=self.summary,
            kind='episodic',
            tier='working',
            owner=self.user_id or '*',
            trust='trusted',
            superseded=False,
            source='consolidation',
            source_ref=self.source_id,
            metadata={'episode_id': self.id, 'abstract': self.abstract, 'topics': self.topics},
        )
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Episode:
        """Inverse of `to_payload`."""
        data = dict(payload)
        for name in _TIME_FIELDS:
            if isinstance(data.get(name), int | float):
                data[name] = from_epoch(float(data[name]))
        return cls.model_validate(data)


class EpisodeOut(BaseModel):
    """An episode as `GET /v1/episodes` returns it."""

    id: str
    scope: str
    user_id: str | None
    session_key: str
    compaction_count: int
    summary: str
    summary_source: str
    abstract: str
    topics: list[str]
    message_count: int
    started_at: datetime
    ended_at: datetime
    created_at: datetime
    expires_at: datetime
    promoted: bool
    promoted_at: datetime | None
