"""Response bodies of the routes that answer with more than one service model.

The OpenAPI document (api/openapi.py) is built from these and from the service models the
routes already return (`ChunkOut`, `SearchResponse`, `KGSearchResponse`…); a test checks that
every documented response validates against them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from consolidation.models import EpisodeOut
from jobs.models import JobInfo
from kg.models import EntityOut
from recall.schemas import ChunkOut, Receipt, WriteStatus
from recall.write.capture import Skipped


class ErrorDetail(BaseModel):
    """One problem of a failed request."""

    model_config = ConfigDict(extra='allow')

    loc: list[str | int] | None = Field(
        default=None, description='where in the request: field path, `body`, or a path parameter'
    )
    msg: str = Field(description='what is wrong, for people')
    type: str = Field(description="pydantic's error type for validation errors, else the code")


class ErrorBody(BaseModel):
    """Every error response: a stable code, a message, and at least one detail."""

    error: str = Field(description='machine-readable code, e.g. invalid_request, not_found')
    message: str
    details: list[ErrorDetail] = Field(min_length=1)


class Health(BaseModel):
    """`GET /healthz`: the process is up (no store is probed; see `/readyz`)."""

    status: Literal['ok']
    mode: Literal['embedded', 'server']
    embedder: str
    graph: bool


class Check(BaseModel):
    """One store probe of `/readyz`."""

    ok: bool
    ms: float
    error: str | None = None


class Ready(BaseModel):
    """`GET /readyz`: every store answered (200) or one did not (503)."""

    status: Literal['ready', 'unavailable']
    version: str
    mode: Literal['embedded', 'server']
    checks: dict[str, Check]


class MemoryWritten(BaseModel):
    """`POST /v1/memories`: what the write did, and the stored memory."""

    id: str | None
    status: WriteStatus
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(default_factory=list)
    memory: ChunkOut | None = None


class BatchItemError(BaseModel):
    """The error of one batch item, shaped like a whole error response plus its status."""

    error: str
    status: int
    message: str
    details: list[ErrorDetail]


class BatchItem(BaseModel):
    """Outcome of one batch item: a write status, or `error` with the reason."""

    index: int
    status: Literal['created', 'merged', 'superseded_older', 'skipped', 'error']
    id: str | None = None
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(default_factory=list)
    error: BatchItemError | None = None


class BatchWritten(BaseModel):
    """`POST /v1/memories/batch`: one result per item, in order, and counts by status."""

    results: list[BatchItem]
    counts: dict[str, int]


class Deleted(BaseModel):
    """The id of what was deleted."""

    deleted: str


class MemoryList(BaseModel):
    """`GET /v1/memories`: a page of memories; pass `next` as `offset` for the next page."""

    items: list[ChunkOut]
    next: str | None


class JobAccepted(BaseModel):
    """`POST /v1/sessions/{session_key}/complete`: the job to follow and the episode it makes."""

    job_id: str
    episode_id: str
    status_url: str


class EpisodeList(BaseModel):
    """`GET /v1/episodes`."""

    episodes: list[EpisodeOut]
    count: int


class JobList(BaseModel):
    """`GET /v1/jobs`: newest first."""

    jobs: list[JobInfo]


class DocumentDeleted(BaseModel):
    """`DELETE /v1/documents`: chunks removed."""

    scope: str
    path: str
    deleted: int


class TokenOut(BaseModel):
    """A registered token (never its secret) with what it may write and read as fallback."""

    token_id: str
    agent_id: str
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None = None
    writable: list[str]
    read_fallback: list[str]


class TokenCreated(TokenOut):
    """`POST /v1/tokens`: the secret is shown only here."""

    token: str


class TokenList(BaseModel):
    """`GET /v1/tokens`."""

    items: list[TokenOut]


class TokenRevoked(BaseModel):
    """`DELETE /v1/tokens/{token_id}`."""

    token_id: str
    agent_id: str
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None


class WhoAmI(BaseModel):
    """`GET /v1/whoami`: the caller as the service sees its token."""

    name: str = Field(description='`admin`, or `agent:<agent_id>`')
    admin: bool
    agent_id: str | None = None
    scope: str | None = Field(
        description="an agent's own scope (`agent:<agent_id>`); null for admin"
    )
    writable: list[str] = Field(description='scopes it may write (`*`: every scope)')
    read_fallback: list[str] = Field(description="team leaders' scopes it reads, never writes")


class TeamOut(BaseModel):
    """A team and its leader's scope."""

    team_id: str
    leader: str
    members: list[str]
    updated_at: datetime
    leader_scope: str


class CapturedMemory(BaseModel):
    """One memory a capture wrote (or merged, or skipped as a duplicate)."""

    id: str | None
    kind: str
    text: str
    status: WriteStatus
    reason: str | None


class CaptureOut(BaseModel):
    """`POST /v1/memories/capture`: what was stored, and why anything was not."""

    stored: list[CapturedMemory]
    skipped: str | None
    skipped_items: list[Skipped]
    candidates: int


class BundleOut(BaseModel):
    """`POST /v1/recall/bundle`: text to put before the model's turn, or why there is none."""

    skipped: str | None
    text: str
    ids: list[str]
    tokens: int
    receipt: Receipt | None


class EntityList(BaseModel):
    """`GET /v1/kg/entities`: a page of live entities, most mentioned first, and how many match."""

    items: list[EntityOut]
    total: int
