"""The requests and answers of the Mnemos HTTP API as pydantic models of the client's own.

They mirror the service's OpenAPI document (`/openapi.json`); a test holds every request model's
fields equal to the service's and every answer model's fields within it. Requests forbid unknown
fields, as the service does, so a misspelt option fails here naming it. Answers allow unknown
fields: a newer service may add some, and this client keeps them (`model_extra`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# ---- enumerations -----------------------------------------------------------------------------

Kind = Literal[
    'entity',
    'preference',
    'fact',
    'procedure',
    'project_state',
    'relationship',
    'remember',
    'summary',
    'lesson',
    'failure',
    'note',
    'document',
    'episodic',
    'dream',
]
Tier = Literal['core', 'working', 'peripheral']
ImportanceLabel = Literal['must_remember', 'nice_to_have', 'ignore', 'unknown']
Source = Literal['user', 'operator', 'tool', 'import', 'system', 'consolidation']
Trust = Literal['trusted', 'untrusted', 'quarantined']
SearchMode = Literal['hybrid', 'dense', 'bm25']
FusionMethod = Literal['learned', 'rrf', 'weighted']
Channel = Literal['dense', 'bm25', 'graph', 'context']
Role = Literal['user', 'assistant', 'system', 'tool']
WriteStatus = Literal['created', 'merged', 'superseded_older', 'skipped']
JobStatus = Literal['queued', 'running', 'done', 'failed', 'cancelled']
Dedupe = Literal['none', 'id', 'id_text']
EntityType = Literal[
    'person', 'org', 'place', 'project', 'tool', 'product', 'event', 'concept', 'other'
]

FINAL_JOB_STATES: frozenset[str] = frozenset({'done', 'failed', 'cancelled'})

# `global`, `agent:<id>`, `agent:<id>:<sub>` or `team:<id>`; ids of letters, digits, `_.-`
ID_PATTERN = r'[A-Za-z0-9_.-]{1,128}'
SCOPE_PATTERN = rf'^(?:global|agent:{ID_PATTERN}(?::{ID_PATTERN})?|team:{ID_PATTERN})$'
Scope = Annotated[str, Field(pattern=SCOPE_PATTERN, description='e.g. agent:main')]


class Request(BaseModel):
    """A request body: unknown fields are an error, as on the service."""

    model_config = ConfigDict(extra='forbid')


class Answer(BaseModel):
    """An answer body: fields a newer service adds are kept, not refused."""

    model_config = ConfigDict(extra='allow')


# ---- requests ---------------------------------------------------------------------------------


class MemoryIn(Request):
    """One memory to write (`POST /v1/memories`)."""

    scope: Scope
    text: str = Field(min_length=1)
    kind: Kind = 'note'
    user_id: str | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    importance_label: ImportanceLabel | None = None
    pinned: bool = False
    created_at: datetime | None = None
    expires_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    source: Source = 'user'
    source_ref: str | None = Field(default=None, max_length=512)
    trust: Trust = 'trusted'
    tags: list[str] = Field(default_factory=list, max_length=64)
    tier: Tier | None = None
    entity_key: str | None = Field(default=None, min_length=3, max_length=256)


class MemoryPatch(Request):
    """Changes to a memory (`PATCH /v1/memories/{id}`); tags and metadata are replaced."""

    text: str | None = None
    tags: list[str] | None = None
    importance: float | None = None
    pinned: bool | None = None
    metadata: dict[str, Any] | None = None
    reason: str | None = None


class SearchFilters(Request):
    """Restrict a search to kinds, tiers, a user, tags, pinned state or a creation window."""

    kinds: list[Kind] | None = None
    tiers: list[Tier] | None = None
    user_id: str | None = None
    tags: list[str] | None = None
    pinned: bool | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None


class SearchRequest(Request):
    """Hybrid recall (`POST /v1/memory_search`)."""

    query: str = Field(min_length=1, max_length=8000)
    scope: Scope
    user_id: str | None = None
    top_k: int = Field(default=10, ge=1, le=100)
    mode: SearchMode = 'hybrid'
    fusion: FusionMethod | None = None
    filters: SearchFilters = Field(default_factory=SearchFilters)
    graph: bool | None = None
    hops: int = Field(default=1, ge=1, le=2)
    include_superseded: bool = False
    weights: dict[Channel, float] | None = None
    min_score: float | None = Field(default=None, ge=0.0, le=1.0)
    touch: bool = True
    explain: bool = False
    abstracts: bool = False


class CaptureIn(Request):
    """A conversation turn offered for capture (`POST /v1/memories/capture`)."""

    scope: Scope
    text: str = Field(max_length=32000)
    role: Role = 'user'
    channel: str | None = Field(default=None, max_length=128)
    source: str | None = Field(default=None, max_length=128)
    user_id: str | None = None
    created_at: datetime | None = None


class BundleIn(Request):
    """The message about to be sent, for which to pack memories (`POST /v1/recall/bundle`)."""

    scope: Scope
    message: str = Field(max_length=8000)
    channel: str | None = Field(default=None, max_length=128)
    max_tokens: int = Field(default=800, ge=16, le=8000)
    user_id: str | None = None
    min_score: float = Field(default=0.5, ge=0.0, le=1.0)


class KGSearchRequest(Request):
    """Entities and facts valid at `as_of` (`POST /v1/knowledge_graph_search`)."""

    query: str = Field(min_length=1, max_length=2000)
    scope: Scope
    as_of: datetime | None = None
    hops: int = Field(default=2, ge=1, le=3)
    limit: int = Field(default=10, ge=1, le=100)
    user_id: str | None = None
    include_history: bool = False


class SessionMessage(Request):
    """One message of a finished session."""

    role: Role
    content: str
    ts: datetime


class SessionIn(Request):
    """A finished session handed to consolidation (`POST /v1/sessions/{key}/complete`)."""

    scope: Scope
    user_id: str | None = None
    messages: list[SessionMessage] = Field(min_length=1, max_length=2000)
    summary: str | None = Field(default=None, min_length=1)
    compaction_count: int = Field(default=0, ge=0, le=1_000_000)


class ForgetIn(Request):
    """Forget a user, a scope, or a user within a scope, in every store (admin)."""

    scope: Scope | None = None
    user_id: str | None = None


class HydrateIn(Request):
    """A snapshot's Markdown written back into a scope (admin)."""

    scope: Scope
    markdown: str


class DocumentIn(Request):
    """A Markdown document indexed as chunks (`POST /v1/documents`)."""

    scope: Scope
    path: str
    markdown: str
    user_id: str | None = None


class TokenIn(Request):
    """An agent token to create (admin)."""

    agent_id: str
    scopes: list[str] = Field(default_factory=list)


class TeamIn(Request):
    """A team: its leader and members (admin)."""

    leader: str
    members: list[str]


# ---- answers ----------------------------------------------------------------------------------


class ErrorDetail(Answer):
    """One problem of an error answer; `loc` names the field."""

    loc: list[str | int] | None = None
    msg: str
    type: str


class Supersession(Answer):
    """A fact of a memory that a later memory replaced: the slot, both values and the rule."""

    slot: str
    subject: str
    old_value: str
    new_value: str
    by: str
    rule: str
    clause: int = 0


class LineRedaction(Answer):
    """Secret-looking spans masked in one line of an import or hydrate (`<field>:<kind>`)."""

    line: int
    redacted: list[str]


class Memory(Answer):
    """A stored memory; `stale` lists its facts later memories replaced."""

    id: str
    scope: str
    user_id: str | None
    kind: str
    text: str
    tier: str
    importance: float
    importance_label: str
    pinned: bool
    access_count: int
    created_at: datetime
    updated_at: datetime
    accessed_at: datetime | None
    expires_at: datetime | None
    source: str
    trust: str
    tags: list[str]
    superseded_by: str | None
    doc_path: str | None = None
    entity_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    stale: list[Supersession] = Field(default_factory=list)
    supersession: Supersession | None = None


class WriteResult(Answer):
    """Outcome of `remember`: what happened, and the stored memory (absent when skipped)."""

    id: str | None
    status: WriteStatus
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(default_factory=list)
    memory: Memory | None = None


class MemoryVersion(Answer):
    """One state of a memory: its text and fields from `since` until `replaced_at`."""

    version: int
    text: str
    tags: list[str] = Field(default_factory=list)
    importance: float = 0.5
    pinned: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    since: datetime
    replaced_at: datetime | None = None
    changed: list[str] = Field(default_factory=list)
    reason: str | None = None


class MergeRecord(Answer):
    """A write merged into a memory."""

    at: datetime
    text: str
    reason: str
    source: str = 'user'
    trust: str = 'trusted'


class Superseder(Answer):
    """What superseded a memory, when and why."""

    id: str | None
    text: str | None
    at: datetime | None
    reason: str | None
    details: dict[str, Any] = Field(default_factory=dict)


class SupersededMemory(Answer):
    """A memory this one superseded."""

    id: str
    text: str
    at: datetime | None


class MemoryHistory(Answer):
    """A memory's versions (oldest first, then `current`), merges and supersession."""

    id: str
    scope: str
    version: int
    current: MemoryVersion
    versions: list[MemoryVersion]
    merges: list[MergeRecord]
    merge_count: int
    superseded: bool
    superseded_by: Superseder | None
    supersedes: list[SupersededMemory]
    stale: list[Supersession] = Field(default_factory=list)


class UserCount(Answer):
    """A user and how many memories of a scope are theirs."""

    user_id: str
    memories: int


class UserList(Answer):
    """The users with memories in a scope, most first."""

    scope: str
    users: list[UserCount]


class BatchItemError(Answer):
    """The error of one batch item."""

    error: str
    status: int
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)


class BatchItemResult(Answer):
    """One item of `remember_batch`: its write result, or `status='error'` with the error."""

    index: int
    status: Literal['created', 'merged', 'superseded_older', 'skipped', 'error']
    id: str | None = None
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(default_factory=list)
    error: BatchItemError | None = None


class BatchResult(Answer):
    """`remember_batch`: one result per item, in order, and counts by status."""

    results: list[BatchItemResult]
    counts: dict[str, int]


class MemoryPage(Answer):
    """One page of `list_memories`; pass `next` as `offset` for the following one."""

    items: list[Memory]
    next: str | None = None


class Deleted(Answer):
    """What a delete removed."""

    deleted: str


class Hit(Answer):
    """One search result with its score and the score of each channel."""

    id: str
    text: str
    score: float
    components: dict[str, float] = Field(default_factory=dict)
    kind: str
    tier: str
    scope: str
    user_id: str | None
    importance: float
    pinned: bool
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    abstract: str | None = None
    overview: str | None = None
    superseded_by: str | None = None
    stale: list[Supersession] = Field(default_factory=list)
    supersession: Supersession | None = None


class Receipt(Answer):
    """How a search found its hits: each channel's ids, the fused order, timings."""

    channels: dict[str, list[str]]
    fused: list[str]
    scopes: list[str]
    fallback: str | None = None
    policy_tier: str | None = None
    skip_reason: str | None = None
    latency_ms: dict[str, float]
    min_score: float | None = None
    below_floor: int = 0
    candidates: dict[str, list[tuple[str, float]]] | None = None
    factors: dict[str, dict[str, float]] | None = None
    speakers: list[str] = Field(default_factory=list)


class SearchResponse(Answer):
    """Hits, best first, and the receipt."""

    hits: list[Hit]
    receipt: Receipt


class Stats(Answer):
    """Counts by tier, kind and scope."""

    total: int
    by_tier: dict[str, int]
    by_kind: dict[str, int]
    by_scope: dict[str, int]
    pinned: int
    superseded: int


class CapturedItem(Answer):
    """A memory that `capture` stored (or merged)."""

    id: str | None
    kind: str
    text: str
    status: WriteStatus
    reason: str | None = None


class SkippedItem(Answer):
    """A candidate that `capture` did not store, and why."""

    text: str
    reason: str
    detail: str | None = None


class CaptureResult(Answer):
    """`capture`: what was stored, and why the rest was skipped."""

    stored: list[CapturedItem]
    skipped: str | None = None
    skipped_items: list[SkippedItem] = Field(default_factory=list)
    candidates: int = 0


class Bundle(Answer):
    """`bundle`: memories packed for the current turn, with the search receipt."""

    skipped: str | None = None
    text: str
    ids: list[str]
    tokens: int
    receipt: Receipt | None = None


class Entity(Answer):
    """An entity of the knowledge graph."""

    id: str
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list)
    summary: str = ''
    mention_count: int = 0
    attributes: dict[str, list[str]] = Field(default_factory=dict)
    score: float = 0.0
    seed: bool = False


class Fact(Answer):
    """A relation between two entities, with its validity window."""

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
    current: bool


class GraphPath(Answer):
    """A path connecting entities of a graph search."""

    entity_ids: list[str]
    fact_ids: list[str]
    text: str


class KGSearchResponse(Answer):
    """Entities, facts and connecting paths of a graph search."""

    entities: list[Entity] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    paths: list[GraphPath] = Field(default_factory=list)
    as_of: datetime | None = None
    asker: str | None = None
    warnings: list[str] = Field(default_factory=list)


class EntityDetail(Answer):
    """One entity: its current facts and the full history."""

    entity: Entity
    current: list[Fact]
    history: list[Fact]
    merged_from: list[str] = Field(default_factory=list)


class EntityList(Answer):
    """Live entities of a scope, most mentioned first."""

    items: list[Entity]
    total: int


class SessionAccepted(Answer):
    """`complete_session`: the consolidation job and the episode it will write."""

    job_id: str
    episode_id: str
    status_url: str


class JobInfo(Answer):
    """A job's state."""

    id: str
    job: str
    state: JobStatus
    attempts: int = 0
    error: str | None = None
    result: Any = None
    worker: str | None = None
    created_at: datetime
    updated_at: datetime


class JobList(Answer):
    """Jobs, newest first."""

    jobs: list[JobInfo]


class Episode(Answer):
    """A consolidated session."""

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


class EpisodeList(Answer):
    """Episodes of a scope, newest first."""

    episodes: list[Episode]
    count: int


class LineError(Answer):
    """A line of an import that was not imported."""

    line: int
    error: str
    message: str
    details: Any = None


class ImportReport(Answer):
    """What an import read, imported and skipped."""

    read: int = 0
    imported: int = 0
    skipped_duplicate: int = 0
    invalid: int = 0
    dry_run: bool = False
    dedupe: Dedupe = 'id'
    errors: list[LineError] = Field(default_factory=list)
    errors_truncated: bool = False
    redacted: int = 0
    redactions: list[LineRedaction] = Field(default_factory=list)


class ForgetReport(Answer):
    """What a forget removed from each store."""

    scope: str | None
    user_id: str | None
    memories: int
    episodes: int
    graph_sources: int
    graph_facts: int | None
    graph_entities: int | None
    jobs: int
    compaction_job: str | None = None


class HydrateReport(Answer):
    """What a hydrate wrote."""

    read: int = 0
    written: int = 0
    skipped_existing: int = 0
    invalid: int = 0
    format: str = 'snapshot'
    errors: list[LineError] = Field(default_factory=list)
    redacted: int = 0
    redactions: list[LineRedaction] = Field(default_factory=list)


class DocumentReport(Answer):
    """Chunks of an indexed document: embedded anew, reused, deleted."""

    scope: str
    path: str
    chunks: int
    embedded: int
    reused: int
    deleted: int
    ids: list[str] = Field(default_factory=list)


class DocumentDeleted(Answer):
    """Chunks removed with a document."""

    scope: str
    path: str
    deleted: int


class Token(Answer):
    """An agent token (without its secret)."""

    token_id: str
    agent_id: str
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None = None
    writable: list[str] = Field(default_factory=list)
    read_fallback: list[str] = Field(default_factory=list)


class TokenCreated(Token):
    """A new agent token; `token` is shown this once."""

    token: str


class TokenList(Answer):
    """Agent tokens."""

    items: list[Token]


class TokenRevoked(Answer):
    """A revoked agent token."""

    token_id: str
    agent_id: str
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None


class Team(Answer):
    """A team and the scope its leader reads."""

    team_id: str
    leader: str
    members: list[str]
    updated_at: datetime
    leader_scope: str


class WhoAmI(Answer):
    """The caller as the service sees its token: admin, or an agent with its scopes."""

    name: str
    admin: bool
    agent_id: str | None = None
    scope: str | None
    writable: list[str]
    read_fallback: list[str]


class Check(Answer):
    """One store probe of `/readyz`."""

    ok: bool
    ms: float
    error: str | None = None


class Health(Answer):
    """`/healthz`: the process answers."""

    status: str
    mode: str
    embedder: str
    graph: bool


class Ready(Answer):
    """`/readyz`: every store answers."""

    status: str
    version: str
    mode: str
    checks: dict[str, Check]
