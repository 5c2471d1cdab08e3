"""Chunk-memory routes: write, read, pin, delete, list, search, stats."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response, jsonify
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from api.common import (
    RequestInvalid,
    check_storable,
    json_body,
    memory_path_id,
    model_json,
    parse_args,
    parse_json,
    principal,
    pydantic_details,
    require_read,
    require_write,
    services,
)
from api.documented import MEMORY_ID, SCOPED, documented
from api.errors import MalformedRequest, error_details, status_of
from api.observability import observe_receipt
from api.responses import BatchWritten, Deleted, MemoryList, MemoryWritten
from core.errors import Forbidden, InvalidInput, KnowledgeStoreError, NotFound
from core.scopes import ScopeId
from recall.models import Chunk
from recall.schemas import (
    ChunkOut,
    MemoryIn,
    SearchMode,
    SearchRequest,
    SearchResponse,
    Stats,
    WriteStatus,
)
from recall.tiers import Kind
from recall.write.trust import check_agent_labels

bp = Blueprint('memory', __name__, url_prefix='/v1')


def _outs(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """JSON views of chunks with the entities each mentions (one graph read for all)."""
    return [c.model_dump(mode='json') for c in services().recall.describe(chunks)]


def _out(chunk: Chunk) -> dict[str, Any]:
    return _outs([chunk])[0]


def _memory(ident: str, *, write: bool = False) -> Chunk:
    # ids are uuids; anything else cannot exist, and unreadable ones must not leak existence
    memory_path_id(ident)
    chunk = services().recall.get(ident)
    caller = principal()
    if not caller.can_read(chunk.scope):
        raise NotFound('memory', ident)
    if write:
        caller.require_write(chunk.scope)
    return chunk


@bp.post('/memories')
@documented(
    'Write one memory',
    responses={201: MemoryWritten, 200: MemoryWritten},
    body=MemoryIn,
    errors=SCOPED,
    description='201 when new; 200 when it merged into, or was skipped as, a duplicate.',
)
def create_memory() -> tuple[Response, int]:
    """Write one memory; 201 when new, 200 when it merged into an existing one."""
    item = parse_json(MemoryIn)
    require_write(item.scope)
    if not principal().admin:
        check_agent_labels(item)
    [result] = services().writer.remember([item])
    body: dict[str, Any] = result.model_dump(mode='json')
    if result.id is not None:
        body['memory'] = _out(services().recall.get(result.id))
    return jsonify(body), 201 if result.status == WriteStatus.CREATED else 200


class BatchIn(BaseModel):
    model_config = ConfigDict(extra='forbid')

    items: list[dict[str, Any]] = Field(min_length=1)


@bp.post('/memories/batch')
@documented(
    'Write many memories',
    responses={200: BatchWritten},
    body=BatchIn,
    description='Each item is a MemoryIn, validated on its own: a bad item gets its error '
    'in `results`, the others are written.',
)
def create_memories() -> tuple[Response, int]:
    """Write up to `max_batch_items` memories; each item gets its own result or error."""
    # values are checked per item below: one unstorable item must not sink the other 99
    data = json_body(check_values=False)
    if not isinstance(data, dict):
        raise MalformedRequest('body must be a JSON object', details={'loc': ['body']})
    try:
        batch = BatchIn.model_validate(data)
    except ValidationError as exc:
        raise RequestInvalid(exc) from None
    limit = services().settings.max_batch_items
    if len(batch.items) > limit:
        raise InvalidInput('items', f'at most {limit} items per batch, got {len(batch.items)}')
    caller = principal()
    results: list[dict[str, Any] | None] = [None] * len(batch.items)
    valid: list[tuple[int, MemoryIn]] = []
    for index, raw in enumerate(batch.items):
        try:
            check_storable(raw, ('items', index))
            item = MemoryIn.model_validate(raw)
            caller.require_write(item.scope)
            if not caller.admin:
                check_agent_labels(item, ('items', index))
            services().writer.check_text(item.text, f'items.{index}.text')
            services().writer.check_event_time(item.created_at, f'items.{index}.created_at')
        except ValidationError as exc:
            results[index] = _item_error(
                index, 'invalid_request', 422, pydantic_details(exc, ('items', index))
            )
            continue
        except KnowledgeStoreError as exc:
            results[index] = _item_error(index, exc.code, status_of(exc), exc.details, exc.message)
            continue
        valid.append((index, item))
    if valid:
        written = services().writer.remember([item for _, item in valid])
        for (index, _), result in zip(valid, written, strict=True):
            results[index] = {'index': index, **result.model_dump(mode='json')}
    counts: dict[str, int] = {}
    for entry in results:
        assert entry is not None
        counts[entry['status']] = counts.get(entry['status'], 0) + 1
    return jsonify(results=results, counts=counts), 200


def _item_error(
    index: int, code: str, status: int, details: Any, message: str | None = None
) -> dict[str, Any]:
    return {
        'index': index,
        'status': 'error',
        'error': {
            'error': code,
            'status': status,
            'message': message or code,
            'details': error_details(details, message or code, code),
        },
    }


@bp.get('/memories/<ident>')
@documented(
    'One memory',
    responses={200: ChunkOut},
    path_params=MEMORY_ID,
)
def get_memory(ident: str) -> Response:
    """One memory by id."""
    return jsonify(_out(_memory(ident)))


@bp.delete('/memories/<ident>')
@documented(
    'Delete one memory',
    responses={200: Deleted},
    path_params=MEMORY_ID,
    errors=SCOPED,
)
def delete_memory(ident: str) -> Response:
    """Delete one memory."""
    _memory(ident, write=True)
    services().writer.delete(ident)
    return jsonify(deleted=ident)


@bp.post('/memories/<ident>/pin')
@documented(
    'Pin: Core, never demoted',
    responses={200: ChunkOut},
    path_params=MEMORY_ID,
    errors=SCOPED,
)
def pin_memory(ident: str) -> Response:
    """Pin: the memory becomes Core and is never demoted."""
    _memory(ident, write=True)
    return jsonify(_out(services().writer.set_pinned(ident, True)))


@bp.post('/memories/<ident>/unpin')
@documented(
    'Unpin: decays again',
    responses={200: ChunkOut},
    path_params=MEMORY_ID,
    errors=SCOPED,
)
def unpin_memory(ident: str) -> Response:
    """Unpin: the memory decays again from the working tier."""
    _memory(ident, write=True)
    return jsonify(_out(services().writer.set_pinned(ident, False)))


class ListArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId | None = None
    kind: Kind | None = None
    q: str | None = Field(default=None, min_length=1, max_length=2000)
    limit: int = Field(default=50, ge=1, le=500)
    offset: str | None = Field(default=None, max_length=64)


@bp.get('/memories')
@documented(
    "List (or search) a scope's memories",
    responses={200: MemoryList},
    query=ListArgs,
    errors=SCOPED,
)
def list_memories() -> Response:
    """List a scope's memories (id order, paged) or search them with `q`."""
    args = parse_args(ListArgs)
    caller = principal()
    if args.scope is None and not caller.admin:
        raise InvalidInput('scope', 'required for agent tokens')
    if args.scope is not None:
        require_read(args.scope)
    recall = services().recall
    if args.q is not None:
        if args.scope is None:
            raise InvalidInput('scope', 'required with q')
        if args.offset is not None:
            raise InvalidInput('offset', 'paging is not available with q')
        found = recall.search(
            SearchRequest(
                query=args.q,
                scope=args.scope,
                top_k=min(args.limit, 100),
                mode=SearchMode.HYBRID,
                filters={'kinds': [args.kind]} if args.kind else {},  # type: ignore[arg-type]
            ),
            caller,
        )
        observe_receipt(found.receipt)
        chunks = [recall.get(h.id) for h in found.hits]
        return jsonify(items=_outs(chunks), next=None)
    if args.offset is not None:
        try:
            uuid.UUID(args.offset)
        except ValueError:
            raise InvalidInput('offset', 'not an offset returned by this API') from None
    chunks, nxt = recall.list_chunks(
        [args.scope] if args.scope else None,
        kinds=[args.kind] if args.kind else None,
        limit=args.limit,
        offset=args.offset,
    )
    return jsonify(items=_outs(chunks), next=nxt)


@bp.post('/memory_search')
@documented(
    'Hybrid recall with a receipt',
    responses={200: SearchResponse},
    body=SearchRequest,
    errors=SCOPED,
)
def memory_search() -> Response:
    """Hybrid recall (dense + BM25 + graph) with a receipt."""
    req = parse_json(SearchRequest)
    result = services().recall.search(req, principal())
    observe_receipt(result.receipt)
    return model_json(result)


class StatsArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId | None = None


@bp.get('/memory/stats')
@documented(
    'Counts by tier, kind and scope',
    responses={200: Stats},
    query=StatsArgs,
    errors=SCOPED,
    description='Without `scope`, every scope: admin token only.',
)
def memory_stats() -> Response:
    """Counts by tier, kind and scope (one scope, or all for the admin)."""
    args = parse_args(StatsArgs)
    caller = principal()
    if args.scope is None:
        if not caller.admin:
            raise Forbidden('only the admin token may read stats across all scopes')
        return jsonify(services().recall.stats(None).model_dump(mode='json'))
    require_read(args.scope)
    return jsonify(services().recall.stats([args.scope]).model_dump(mode='json'))


__all__ = ['bp']
