"""Commands and results of the recall service: the pydantic models at the API boundary."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
)

from core import jsonsafe
from core.clock import aware_or_none, storable
from core.scopes import Identifier, ScopeId
from recall.models import Supersession
from recall.tiers import ImportanceLabel, Kind, Source, Tier, Trust

MAX_QUERY_CHARS = 8_000


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError('text must not be blank')
    return value


def _aware(value: datetime | None) -> datetime | None:
    # naive timestamps from clients are taken as UTC rather than rejected; stored as epoch
    # seconds, they must read back (storable refuses 0001-01-01T00:00:00+14:00 and the like)
    return aware_or_none(storable(value)) if value is not None else None


def _storable(value: Any) -> Any:
    # HTTP bodies are checked where they are parsed (naming the exact path); this covers the
    # other ways in (MCP, scripts) so nothing the store would refuse or round reaches it
    bad = jsonsafe.unstorable(value)
    if bad is not None:
        where = '.'.join(map(str, bad[0]))
        raise ValueError(f'{where}: {bad[1]}' if where else bad[1])
    return value


EARLIEST_EVENT = datetime(1900, 1, 1, tzinfo=UTC)


def event_time(value: datetime | None) -> datetime | None:
    """A message's time as given (aware UTC), refusing one before 1900: a typo or a default,
    never a conversation, and it would order every later fact after it."""
    value = _aware(value)
    if value is not None and value < EARLIEST_EVENT:
        raise ValueError('an event time must not be before 1900-01-01')
    return value


# a memory's text: at least one character, and not whitespace only
MemoryText = Annotated[str, Field(min_length=1), AfterValidator(_not_blank)]
Metadata = Annotated[dict[str, Any], AfterValidator(_storable)]
Tags = Annotated[list[str], Field(max_length=64), AfterValidator(_storable)]


class MemoryIn(BaseModel):
    """One memory to write."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    text: MemoryText
    kind: Kind = Kind.NOTE
    user_id: Identifier | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    importance_label: ImportanceLabel | None = None
    pinned: bool = False
    created_at: datetime | None = Field(default=None, description='event time; default now')
    expires_at: datetime | None = None
    metadata: Metadata = Field(default_factory=dict)
    source: Source = Source.USER
    source_ref: str | None = Field(default=None, max_length=512)
    trust: Trust = Trust.TRUSTED
    tags: Tags = Field(default_factory=list)
    tier: Tier | None = None
    entity_key: str | None = Field(
        default=None, min_length=3, max_length=256, description='e.g. phone:+4930123; dedup key'
    )

    @field_validator('created_at', 'expires_at')
    @classmethod
    def _tz(cls, value: datetime | None) -> datetime | None:
        return _aware(value)

    @field_validator('created_at')
    @classmethod
    def _event_time(cls, value: datetime | None) -> datetime | None:
        return event_time(value)


class WriteStatus(StrEnum):
    """What a write did."""

    CREATED = 'created'
    MERGED = 'merged'
    SUPERSEDED = 'superseded_older'
    SKIPPED = 'skipped'


class WriteResult(BaseModel):
    """Outcome of one write: the chunk id and what happened to it."""

    id: str | None
    status: WriteStatus
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(
        default_factory=list, description='memories this one outdates entirely (now hidden)'
    )
    supersessions: list[Supersession] = Field(
        default_factory=list,
        description='every fact of an older memory this one replaces: slot, both values, rule',
    )
    superseded_by: str | None = Field(
        default=None, description='set when a memory with a later event time outdates this one'
    )
    redacted: list[str] = Field(
        default_factory=list,
        description='secret spans masked before storing, as <field>:<kind> (text:password)',
    )

    def still_superseding(self, revived: set[str]) -> WriteResult:
        """This result without the memories a later merge of its batch made current again."""
        kept = [i for i in self.superseded if i not in revived]
        if kept == self.superseded:
            return self
        return self.model_copy(update={'superseded': kept, 'reason': self.reason if kept else None})


class ChunkOut(BaseModel):
    """A stored memory as returned to clients."""

    id: str
    scope: str
    user_id: str | None
    kind: Kind
    text: str
    tier: Tier
    importance: float
    importance_label: ImportanceLabel
    pinned: bool
    access_count: int
    created_at: datetime
    updated_at: datetime
    accessed_at: datetime | None
    expires_at: datetime | None
    source: Source
    trust: Trust
    tags: list[str]
    superseded_by: str | None
    supersession: Supersession | None = Field(
        default=None, description='why it is no longer current: the slot, both values, by whom'
    )
    stale: list[Supersession] = Field(
        default_factory=list, description='each of its facts a later memory replaced'
    )
    doc_path: str | None = None
    entity_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any]


class SearchMode(StrEnum):
    """Which channels a search uses."""

    HYBRID = 'hybrid'
    DENSE = 'dense'
    BM25 = 'bm25'


class FusionMethod(StrEnum):
    """How channel lists are combined."""

    LEARNED = 'learned'
    RRF = 'rrf'
    WEIGHTED = 'weighted'


ChannelName = Literal['dense', 'bm25', 'graph', 'context']


class SearchFilters(BaseModel):
    """Metadata filters applied inside the store."""

    model_config = ConfigDict(extra='forbid')

    kinds: list[Kind] | None = Field(default=None, min_length=1)
    tiers: list[Tier] | None = Field(default=None, min_length=1)
    user_id: Identifier | None = None
    tags: list[str] | None = Field(default=None, min_length=1)
    pinned: bool | None = None
    created_after: AwareDatetime | None = None
    created_before: AwareDatetime | None = None


class SearchRequest(BaseModel):
    """A `memory_search` call."""

    model_config = ConfigDict(extra='forbid')

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    scope: ScopeId
    user_id: Identifier | None = None
    top_k: int = Field(default=10, ge=1, le=100)
    mode: SearchMode = Field(
        default=SearchMode.HYBRID,
        description='hybrid: every channel fused and ranked; bm25 or dense: that channel alone, '
        'in its own order (no boosts, no learned ranking, no relevance floor unless `min_score` '
        'is set)',
    )
    fusion: FusionMethod | None = Field(
        default=None,
        description='learned (a logistic model over channel features, fitted by '
        'cross-validation), rrf or weighted; unset: the calibrated default',
    )
    filters: SearchFilters = Field(default_factory=SearchFilters)
    # unset: the calibrated recipe decides (recall.read.fusion.DEFAULT_FUSION): the graph's slot
    # evidence on, its related-chunks list at the weight cross-validation gives it; false turns
    # both off; a service with KG_GRAPH_ENABLED=false has neither
    graph: bool | None = Field(
        default=None,
        description='fuse the graph channel in hybrid mode: true turns it on (a quarter of '
        "BM25's weight unless `weights.graph` says otherwise), false off; unset: the calibrated "
        'default',
    )
    hops: int = Field(default=1, ge=1, le=2)
    include_superseded: bool = False
    weights: dict[ChannelName, float] | None = Field(
        default=None,
        description='per-channel fusion weights (>= 0; 0 turns a channel off); '
        'unset: the calibrated defaults of recall.read.fusion.DEFAULT_FUSION',
    )
    min_score: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="relevance floor on each hit's `confidence` (0-1: share of query terms "
        'it holds or calibrated cosine); the question is answered at all only when some hit '
        'reaches it by its cosine, the graph, or holding most of the query (`reach` in '
        '`explain` factors); unset: the calibrated default floor in hybrid mode, none in '
        '`mode: bm25` or `dense`',
    )
    touch: bool = Field(
        default=True,
        description='record the recall on the hits (access count, tier); false for '
        'evaluations that must not change the store',
    )
    explain: bool = Field(
        default=False, description='the receipt lists every channel candidate with its score'
    )
    abstracts: bool = Field(
        default=False,
        description='each hit carries its L0 abstract (one line) and L1 overview (key points)',
    )

    @field_validator('weights')
    @classmethod
    def _weights_finite(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is not None:
            for name, weight in value.items():
                if not (weight >= 0.0 and weight < float('inf')):
                    raise ValueError(f'weight of {name} must be a finite number >= 0')
        return value

    @field_validator('query')
    @classmethod
    def _query_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError('query must not be blank')
        return value


class Hit(BaseModel):
    """One recalled memory with the parts of its score."""

    id: str
    text: str
    score: float = Field(
        description='the default search (learned fusion): an estimate, 0-1, of the chance that '
        'the hit answers the query, Platt-scaled on bench/kinds.py with every kind of memory '
        '(dialogue turns, notes, summaries, profile fields, documents, Chinese) weighing the '
        'same, dialogue turns on a scale of their own; the same value means about the same on '
        'every kind (scored on kinds the calibration never saw, a hit is gold within ~0.06 of '
        'its score on average; below 0.2 a hit is gold 2-6 % of the time; bench/README.md, '
        'kinds); times the decay multiplier (at most ~10 %), the user boost (1.2) and the '
        'untrusted factor (0.9). `fusion: rrf` or `weighted`: a fusion value that orders one '
        "response only. `mode: bm25` or `dense`: the channel's reciprocal rank, its own order. "
        '`min_score` filters on `components.confidence`, not on this'
    )
    components: dict[str, float]
    kind: Kind
    tier: Tier
    scope: str
    user_id: str | None
    importance: float
    pinned: bool
    created_at: datetime
    metadata: dict[str, Any]
    supersession: Supersession | None = Field(
        default=None, description='why it is no longer current (with `include_superseded`)'
    )
    stale: list[Supersession] = Field(
        default_factory=list, description='facts of it a later memory replaced'
    )
    abstract: str | None = Field(default=None, description='L0: one line (with `abstracts`)')
    overview: str | None = Field(default=None, description='L1: key points (with `abstracts`)')
    superseded_by: str | None = Field(
        default=None,
        description='a later memory replaced this one: it answers a question about a past time',
    )


class Receipt(BaseModel):
    """Why these hits: per-channel tops, fused order, scopes read and time per stage."""

    channels: dict[str, list[str]]
    fused: list[str]
    scopes: list[str]
    fallback: str | None = None
    policy_tier: str | None = None
    skip_reason: str | None = None
    latency_ms: dict[str, float]
    min_score: float | None = Field(default=None, description='the relevance floor applied')
    below_floor: int = Field(default=0, description='candidates dropped by the floor')
    candidates: dict[str, list[tuple[str, float]]] | None = Field(
        default=None, description='with `explain`: every channel candidate and its raw score'
    )
    factors: dict[str, dict[str, float]] | None = Field(
        default=None,
        description='with `explain`: per candidate the multipliers and confidence ranking used, '
        'and `reach`: how far it goes towards answering the question at all (no hit reaching '
        '`min_score` leaves the question unanswered: no hits, `skip_reason: below_floor`)',
    )
    speakers: list[str] = Field(default_factory=list, description='speakers the query names')


class SearchResponse(BaseModel):
    """Hits best first, and the receipt."""

    hits: list[Hit]
    receipt: Receipt


class Stats(BaseModel):
    """Counts of live memories."""

    total: int
    by_tier: dict[str, int]
    by_kind: dict[str, int]
    by_scope: dict[str, int]
    pinned: int
    superseded: int
