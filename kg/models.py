"""Pydantic models of the temporal knowledge graph (L2): entities, bi-temporal facts, mentions."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.clock import aware, aware_or_none
from core.scopes import Identifier, ScopeId

# Fixed namespace: entity and relation ids are stable across processes and re-ingestion.
KG_NAMESPACE = uuid.UUID('8d1f6c2a-4b7e-4f0e-9c3d-6b6e6f77676b')

MAX_QUERY_CHARS = 2_000


class EntityType(StrEnum):
    """Coarse entity kinds; NER labels and parse cues both map onto these."""

    PERSON = 'person'
    ORG = 'org'
    PLACE = 'place'
    PROJECT = 'project'
    TOOL = 'tool'
    PRODUCT = 'product'
    EVENT = 'event'
    CONCEPT = 'concept'
    OTHER = 'other'


SourceKind = Literal['chunk', 'episode']


def entity_id(scope: str, canonical_name: str) -> str:
    """uuid5 of (scope, canonical name): the first writer of a name fixes its id."""
    return str(uuid.uuid5(KG_NAMESPACE, f'e\x1f{scope}\x1f{canonical_name}'))


def relation_id(
    scope: str, subject_id: str, predicate: str, object_id: str, valid_from: datetime | None
) -> str:
    """uuid5 of the fact and its start: re-extracting the same text yields the same id."""
    start = aware(valid_from).isoformat() if valid_from else ''
    key = f'r\x1f{scope}\x1f{subject_id}\x1f{predicate}\x1f{object_id}\x1f{start}'
    return str(uuid.uuid5(KG_NAMESPACE, key))


class Entity(BaseModel):
    """A node of one scope's graph; merged duplicates keep existing with `merged_into` set."""

    model_config = ConfigDict(extra='forbid')

    id: str
    scope: str
    name: str = Field(min_length=1, description='display name, as first seen')
    canonical_name: str = Field(min_length=1, description='normalised key used for matching')
    type: EntityType = EntityType.OTHER
    aliases: list[str] = Field(default_factory=list, description='other surface names seen')
    summary: str = ''
    mention_count: int = Field(default=0, ge=0)
    attributes: dict[str, list[str]] = Field(
        default_factory=dict, description='deterministic captures: phones, emails, ids'
    )
    created_at: datetime
    updated_at: datetime
    merged_into: str | None = None

    @field_validator('created_at', 'updated_at')
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        return aware(value)


class Relation(BaseModel):
    """A fact `subject -predicate-> object`, valid in world time and recorded in system time."""

    model_config = ConfigDict(extra='forbid')

    id: str
    scope: str
    subject_id: str
    predicate: str = Field(min_length=1)
    object_id: str
    fact: str = Field(default='', description='the sentence the fact was read from')
    valid_from: datetime | None = Field(default=None, description='world time it became true')
    valid_to: datetime | None = Field(default=None, description='world time it stopped being true')
    recorded_at: datetime = Field(description='system time it was written')
    expired_at: datetime | None = Field(
        default=None, description='system time it was retracted (merged away, not superseded)'
    )
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source_chunk: str | None = None
    source_episode: str | None = None

    @field_validator('valid_from', 'valid_to', 'recorded_at', 'expired_at')
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return aware_or_none(value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def to_micros(value: datetime | None) -> int | None:
    """Microseconds since the epoch, exact (a float would lose the last digit)."""
    return None if value is None else (aware(value) - _EPOCH) // _MICRO


def from_micros(value: int | None) -> datetime | None:
    """The aware UTC datetime of `to_micros`."""
    return None if value is None else _EPOCH + timedelta(microseconds=value)


class RelationRow(NamedTuple):
    """A Relation as a tuple with integer-microsecond times, for bulk reads and in-memory
    copies (a third of a Relation model's memory)."""

    id: str
    scope: str
    subject_id: str
    predicate: str
    object_id: str
    fact: str
    valid_from: int | None
    valid_to: int | None
    recorded_at: int
    expired_at: int | None
    confidence: float
    source_chunk: str | None
    source_episode: str | None

    @classmethod
    def of(cls, rel: Relation) -> RelationRow:
        """The row of a validated Relation."""
        return cls(
            rel.id,
            rel.scope,
            rel.subject_id,
            rel.predicate,
            rel.object_id,
            rel.fact,
            to_micros(rel.valid_from),
            to_micros(rel.valid_to),
            to_micros(rel.recorded_at),  # type: ignore[arg-type]
            to_micros(rel.expired_at),
            rel.confidence,
            rel.source_chunk,
            rel.source_episode,
        )

    def model(self) -> Relation:
        """Back to a Relation (construct: the row came from a validated one)."""
        return Relation.model_construct(
            id=self.id,
            scope=self.scope,
            subject_id=self.subject_id,
            predicate=self.predicate,
            object_id=self.object_id,
            fact=self.fact,
            valid_from=from_micros(self.valid_from),
            valid_to=from_micros(self.valid_to),
            recorded_at=from_micros(self.recorded_at),
            expired_at=from_micros(self.expired_at),
            confidence=self.confidence,
            source_chunk=self.source_chunk,
            source_episode=self.source_episode,
        )

    def valid_at(self, as_of: int) -> bool:
        """kg.temporal.valid_at on a row (`as_of` in microseconds)."""
        if self.expired_at is not None:
            return False
        if self.valid_from is not None and self.valid_from > as_of:
            return False
        return self.valid_to is None or as_of < self.valid_to


class MentionRow(NamedTuple):
    """A Mention as a tuple, `at` in microseconds."""

    entity_id: str
    source_id: str
    kind: SourceKind
    scope: str
    at: int


class RelationUpdate(BaseModel):
    """A change to a stored relation's time fields (facts are never deleted)."""

    id: str
    subject_id: str = Field(description='lets stores find the edge from its indexed endpoint')
    valid_to: datetime | None = None
    expired_at: datetime | None = None
    reopen: bool = Field(
        default=False,
        description='clear valid_to: the fact that ended it was retracted (kg.forget), so it '
        'holds again; a valid_to given as well is applied instead',
    )


class Mention(BaseModel):
    """`entity` was named in a chunk or an episode."""

    entity_id: str
    source_id: str
    scope: str
    kind: SourceKind = 'chunk'
    at: datetime


# ---- extraction -----------------------------------------------------------------------------


class SourceText(BaseModel):
    """A text to extract from, with the time relative dates resolve against."""

    text: str
    at: datetime
    speaker: str | None = None


# the predicate of "I'm Maya Patel": its subject (the speaker) and object are one person
NAMED = 'named'


class EntityMention(BaseModel):
    """An entity named in a text (before resolution against the graph)."""

    name: str
    type: EntityType = EntityType.OTHER
    attributes: dict[str, list[str]] = Field(default_factory=dict)
    speaker: bool = Field(default=False, description='the text\'s speaker ("I", "my")')
    certain: bool = Field(
        default=False,
        description='the type follows from a fact the text states (an employer is an org)',
    )


class RelationMention(BaseModel):
    """A fact read from a text; subject and object are entity mention names."""

    subject: str
    predicate: str
    object: str
    fact: str = ''
    valid_from: datetime | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)


class Extraction(BaseModel):
    """What one text yielded."""

    entities: list[EntityMention] = Field(default_factory=list)
    relations: list[RelationMention] = Field(default_factory=list)


# ---- search ---------------------------------------------------------------------------------


class KGSearchRequest(BaseModel):
    """`knowledge_graph_search` input."""

    model_config = ConfigDict(extra='forbid')

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    scope: ScopeId
    as_of: datetime | None = Field(
        default=None, description='world time; default the time the question names, else now'
    )
    hops: int = Field(default=2, ge=1, le=3)
    limit: int = Field(default=10, ge=1, le=100)
    user_id: Identifier | None = Field(
        default=None,
        description='who "I"/"my"/"我" are in the question (the asking user); default the only '
        'user with memories in the scope, else "I" stays unresolved and `warnings` says so',
    )
    include_history: bool = Field(
        default=False, description='also facts that no longer hold (current: false), latest first'
    )

    @field_validator('as_of')
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return aware_or_none(value)


class EntityOut(BaseModel):
    """An entity in a search answer, with its rank score."""

    id: str
    name: str
    type: EntityType
    aliases: list[str]
    summary: str
    mention_count: int
    attributes: dict[str, list[str]]
    score: float = 0.0
    seed: bool = Field(default=False, description='matched the query directly')


class FactOut(BaseModel):
    """A fact with its validity window and provenance."""

    id: str
    subject_id: str
    subject: str
    predicate: str
    object_id: str
    object: str
    fact: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    expired_at: datetime | None
    confidence: float
    source_chunk: str | None
    source_episode: str | None
    current: bool = Field(description="valid at the request's as_of")


class PathOut(BaseModel):
    """A chain of facts from a seed entity to a ranked one."""

    entity_ids: list[str]
    fact_ids: list[str]
    text: str


class KGSearchResponse(BaseModel):
    """`knowledge_graph_search` output."""

    entities: list[EntityOut] = Field(default_factory=list)
    facts: list[FactOut] = Field(default_factory=list)
    paths: list[PathOut] = Field(default_factory=list)
    as_of: datetime | None = None
    asker: str | None = Field(
        default=None,
        description='who "I"/"my"/"我" in the question were read as: the request\'s user_id, '
        'else the only user with memories in the scope (null when the question does not speak '
        'of its asker, or "I" could not be resolved)',
    )
    warnings: list[str] = Field(
        default_factory=list,
        description='what the answer could not take into account, e.g. an "I" that neither '
        'user_id nor a single-user scope resolves',
    )


class EntityDetail(BaseModel):
    """One entity: aliases, facts valid now, and the full history of its facts."""

    entity: EntityOut
    current: list[FactOut]
    history: list[FactOut]
    merged_from: list[str] = Field(default_factory=list)


class MergeResult(BaseModel):
    """What `merge_duplicates` did: merged pairs (duplicate -> kept) and ambiguous pairs."""

    merged: dict[str, str] = Field(default_factory=dict)
    ambiguous: list[tuple[str, str]] = Field(default_factory=list)
