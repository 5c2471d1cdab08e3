"""Typed keyword options of the client's calls: each is the request model's optional fields, so a
type checker and an editor know every option, and a misspelt one fails before anything is sent.
Times are `datetime`s or ISO 8601 strings (validated by the request model)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from typing_extensions import TypedDict

from mnemos_client.models import (
    Channel,
    FusionMethod,
    ImportanceLabel,
    Kind,
    Role,
    SearchFilters,
    SearchMode,
    Source,
    Tier,
    Trust,
)


class MemoryOptions(TypedDict, total=False):
    """Options of `remember` (`MemoryIn` less `scope` and `text`)."""

    kind: Kind
    user_id: str | None
    importance: float | None
    importance_label: ImportanceLabel | None
    pinned: bool
    created_at: datetime | str | None
    expires_at: datetime | str | None
    metadata: dict[str, Any]
    source: Source
    source_ref: str | None
    trust: Trust
    tags: list[str]
    tier: Tier | None
    entity_key: str | None


class MemoryChanges(TypedDict, total=False):
    """Changes of `update` (`MemoryPatch`)."""

    text: str | None
    tags: list[str] | None
    importance: float | None
    pinned: bool | None
    metadata: dict[str, Any] | None
    reason: str | None


class SearchOptions(TypedDict, total=False):
    """Options of `search` (`SearchRequest` less `query` and `scope`)."""

    user_id: str | None
    top_k: int
    mode: SearchMode
    fusion: FusionMethod | None
    filters: SearchFilters | dict[str, Any]
    graph: bool | None
    hops: int
    include_superseded: bool
    weights: dict[Channel, float] | None
    min_score: float | None
    touch: bool
    explain: bool
    abstracts: bool


class CaptureOptions(TypedDict, total=False):
    """Options of `capture` (`CaptureIn` less `scope` and `text`)."""

    role: Role
    channel: str | None
    source: str | None
    user_id: str | None
    created_at: datetime | str | None


class BundleOptions(TypedDict, total=False):
    """Options of `bundle` (`BundleIn` less `scope` and `message`)."""

    channel: str | None
    max_tokens: int
    user_id: str | None
    min_score: float


class GraphSearchOptions(TypedDict, total=False):
    """Options of `kg_search` (`KGSearchRequest` less `query` and `scope`)."""

    as_of: datetime | str | None
    hops: int
    limit: int
    user_id: str | None
    include_history: bool


class SessionOptions(TypedDict, total=False):
    """Options of `complete_session` (`SessionIn` less `scope` and `messages`)."""

    user_id: str | None
    summary: str | None
    compaction_count: int
