"""Pydantic models of chunk memory: the stored chunk and its collection specs."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.clock import from_epoch, to_epoch
from recall.tiers import ImportanceLabel, Kind, Source, Tier, Trust
from vectors.models import CollectionSpec

# Fixed namespace so chunk ids are stable across processes, versions and machines.
CHUNK_NAMESPACE = uuid.UUID('5b0e3c1e-6f1d-4d57-9a57-6d6e656d6f73')

MEMORIES = 'memories'
ANY_USER = '*'
EPISODES = 'episodes'


def memories_spec(dense_dim: int) -> CollectionSpec:
    """The `memories` collection: every field a filter or a stat touches is indexed."""
    return CollectionSpec(
        name=MEMORIES,
        dense_dim=dense_dim,
        keyword_fields=(
            'scope',
            'owner',
            'user_id',
            'kind',
            'tier',
            'importance_label',
            'trust',
            'source',
            'content_hash',
            'entity_key',
            'tags',
            'slots',
            'doc_path',
            'speaker',
            'prev_id',
            # the supersession records naming a memory: a delete finds them by these
            'superseded_by',
            'stale[].by',
        ),
        bool_fields=('pinned', 'superseded', 'staged'),
        float_fields=('importance', 'created_at', 'accessed_at', 'updated_at', 'expires_at'),
        integer_fields=('access_count',),
        # what every search filters on; the high-cardinality keyword maps (content_hash,
        # prev_id) stay on disk, since loading them into RAM is most of a restart's shard load
        ram_fields=('scope', 'owner', 'trust', 'superseded', 'staged'),
    )


def episodes_spec(dense_dim: int) -> CollectionSpec:
    """The `episodes` collection (L1)."""
    return CollectionSpec(
        name=EPISODES,
        dense_dim=dense_dim,
        keyword_fields=('scope', 'user_id', 'session_key', 'topics'),
        bool_fields=('promoted',),
        float_fields=('started_at', 'ended_at', 'expires_at', 'created_at'),
    )


# ---- domain level --------------------------------------------------------------------------

_TIME_FIELDS = ('created_at', 'stated_at', 'accessed_at', 'updated_at', 'expires_at')
# merge records kept per memory (the latest ones; `merge_count` counts every merge): a text
# captured on every turn merges into one memory thousands of times
MERGE_RECORDS = 20


class MemoryVersion(BaseModel):
    """An earlier state of a memory's editable fields, kept when an edit replaced it."""

    model_config = ConfigDict(extra='ignore')

    version: int = Field(ge=1, description='1 is the memory as first written')
    text: str
    tags: list[str] = Field(default_factory=list)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    pinned: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    since: datetime = Field(description='when this version was written')
    replaced_at: datetime | None = Field(
        default=None, description='when an edit replaced it; null for the current version'
    )
    changed: list[str] = Field(default_factory=list, description='the fields the edit changed')
    reason: str | None = Field(default=None, description="the edit's reason, if one was given")


class MergeRecord(BaseModel):
    """A write that merged into this memory instead of becoming a memory of its own."""

    model_config = ConfigDict(extra='ignore')

    at: datetime
    text: str = Field(description='the merged text as written (the memory keeps its own)')
    reason: str = Field(description='same text, same entity key or similar text')
    source: Source = Source.USER
    trust: Trust = Trust.TRUSTED


class Chunk(BaseModel):
    """A memory chunk (L0); stored as the point payload of the `memories` collection."""

    model_config = ConfigDict(extra='ignore')

    id: str
    scope: str
    user_id: str | None = None
    kind: Kind = Kind.NOTE
    text: str
    abstract: str | None = None
    tier: Tier = Tier.WORKING
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    importance_label: ImportanceLabel = ImportanceLabel.UNKNOWN
    pinned: bool = False
    access_count: int = 0
    created_at: datetime
    # the latest event time it was stated at, when a restatement merged into it later than
    # `created_at` (which keeps the first): supersession orders facts by it
    stated_at: datetime | None = None
    accessed_at: datetime | None = None
    updated_at: datetime
    expires_at: datetime | None = None
    source: Source = Source.USER
    source_ref: str | None = None
    trust: Trust = Trust.TRUSTED
    tags: list[str] = Field(default_factory=list)
    content_hash: str
    entity_key: str | None = None
    superseded: bool = False
    # a document chunk stored while its document is being indexed: hidden from search until the
    # whole document is in, so an index stopped half-way leaves the old version, not a mix
    staged: bool = False
    superseded_by: str | None = None
    # why it was superseded, and every fact of it a later memory replaced (slot, both values,
    # by whom): recall.write.supersession records them
    supersession: dict[str, Any] | None = None
    stale: list[dict[str, Any]] = Field(default_factory=list)
    # the slots its facts fill (lives_in, likes, …): a later fact of a slot finds it by them
    slots: list[str] = Field(default_factory=list)
    doc_path: str | None = None
    chunk_index: int | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # who said it ("Name:" prefix, metadata.speaker or the user) and the memory written just
    # before it in its scope: recall.read.context reads both
    speaker: str | None = None
    prev_id: str | None = None
    # the memory written just after it (set when that one is written): neighbours by id. A
    # payload without the key predates it and is found by its successors' `prev_id` instead
    next_id: str | None = None
    # what an edit replaced (oldest first) and what merged into it: history, never searched
    versions: list[MemoryVersion] = Field(default_factory=list)
    merges: list[MergeRecord] = Field(default_factory=list)
    merge_count: int = 0

    def to_payload(self) -> dict[str, Any]:
        """JSON payload; datetimes become epoch seconds so range filters work in Qdrant."""
        data = self.model_dump(mode='json')
        # Qdrant cannot match null, so a user-less memory gets an explicit owner key
        data['owner'] = self.user_id or ANY_USER
        for name in _TIME_FIELDS:
            value = getattr(self, name)
            data[name] = to_epoch(value) if value is not None else None
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Chunk:
        """Inverse of `to_payload`."""
        data = dict(payload)
        data.pop('owner', None)
        for name in _TIME_FIELDS:
            if isinstance(data.get(name), int | float):
                data[name] = from_epoch(float(data[name]))
        return cls.model_validate(data)


def chunk_id(scope: str, user_id: str | None, normalized_text: str) -> str:
    """uuid5 of (scope, user, normalized text): writing the same memory twice hits one id."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f'{scope}\x1f{user_id or ""}\x1f{normalized_text}'))


class Supersession(BaseModel):
    """Why one fact of a memory is no longer current: the slot, both values, and by what."""

    model_config = ConfigDict(frozen=True)

    slot: str
    subject: str = Field(description='whose fact: a name, a user id or "self"')
    old_value: str
    new_value: str
    by: str = Field(description='the id of the memory that replaced it')
    rule: str = Field(description='slot, negation, retracted, corrected or older_event')
    clause: int = Field(default=0, description='the clause of the memory that stated it')
