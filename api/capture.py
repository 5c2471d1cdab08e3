"""Capture (turn -> distilled memories) and the auto-recall bundle."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from flask import Blueprint, Response, jsonify
from pydantic import BaseModel, ConfigDict, Field, field_validator

from api.common import parse_json, principal, require_read, require_write, services
from api.documented import SCOPED, documented
from api.observability import observe_receipt
from api.responses import BundleOut, CaptureOut
from core.scopes import Identifier, ScopeId
from recall.read.bundle import is_trivial, pack
from recall.read.weights import BUNDLE_MIN_SCORE
from recall.schemas import SearchRequest, event_time
from recall.write.guards import is_system_channel

bp = Blueprint('capture', __name__, url_prefix='/v1')

MAX_MESSAGE_CHARS = 8_000


class CaptureIn(BaseModel):
    """One conversation turn offered for capture."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    text: str = Field(max_length=32_000)
    role: Literal['user', 'assistant', 'system', 'tool'] = 'user'
    channel: str | None = Field(default=None, max_length=128)
    source: str | None = Field(default=None, max_length=128)
    user_id: Identifier | None = None
    created_at: datetime | None = Field(
        default=None,
        description="the message's time: the memories' event time and the reference of relative "
        'dates in it ("last month", "去年"); default now, never before 1900 or in the future',
    )

    @field_validator('created_at')
    @classmethod
    def _event_time(cls, value: datetime | None) -> datetime | None:
        return event_time(value)


@bp.post('/memories/capture')
@documented(
    'Capture a conversation turn',
    responses={200: CaptureOut},
    body=CaptureIn,
    errors=SCOPED,
)
def capture_turn() -> Response:
    """Store what a turn says durably (distilled, deduplicated); say what was skipped and why."""
    req = parse_json(CaptureIn)
    require_write(req.scope)
    decision, results = services().writer.capture(
        req.scope,
        req.text,
        user_id=req.user_id,
        role=req.role,
        channel=req.channel,
        source=req.source,
        at=req.created_at,
    )
    stored = [
        {
            'id': r.id,
            'kind': c.kind.value,
            'text': c.text,
            'status': r.status.value,
            'reason': r.reason,
        }
        for c, r in zip(decision.candidates, results, strict=True)
    ]
    return jsonify(
        stored=stored,
        skipped=decision.reason.value if decision.reason else None,
        skipped_items=[s.model_dump(mode='json') for s in decision.skipped],
        candidates=len(decision.candidates),
    )


class BundleIn(BaseModel):
    """A message about to be sent to the model, for which to recall memories."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    message: str = Field(max_length=MAX_MESSAGE_CHARS)
    channel: str | None = Field(default=None, max_length=128)
    max_tokens: int = Field(default=800, ge=16, le=8000)
    user_id: Identifier | None = None
    min_score: float = Field(
        default=BUNDLE_MIN_SCORE,
        ge=0.0,
        le=1.0,
        description='relevance floor on hit confidence: a prompt gets no memory rather than an '
        'unrelated one',
    )


@bp.post('/recall/bundle')
@documented(
    'Memories packed for one turn',
    responses={200: BundleOut},
    body=BundleIn,
    errors=SCOPED,
)
def recall_bundle() -> Response:
    """Top memories packed under a token budget, escaped, marked for the current turn only."""
    req = parse_json(BundleIn)
    require_read(req.scope)
    if is_system_channel(req.channel):
        return jsonify(skipped='system_channel', text='', ids=[], tokens=0, receipt=None)
    trivial = is_trivial(req.message)
    if trivial.trivial:
        return jsonify(skipped=trivial.reason, text='', ids=[], tokens=0, receipt=None)
    found = services().recall.search(
        SearchRequest(
            query=req.message,
            scope=req.scope,
            user_id=req.user_id,
            top_k=12,
            min_score=req.min_score,
        ),
        principal(),
    )
    observe_receipt(found.receipt)
    bundle = pack(found.hits, req.max_tokens, now=services().clock.now())
    return jsonify(
        skipped=None if bundle.ids else (found.receipt.skip_reason or 'no_match'),
        text=bundle.text,
        ids=bundle.ids,
        tokens=bundle.tokens,
        receipt=found.receipt.model_dump(mode='json'),
    )
