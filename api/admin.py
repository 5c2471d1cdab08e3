"""Admin routes (export, import, forget, snapshot, hydrate) and Markdown documents."""

from __future__ import annotations

import json
from collections.abc import Iterator

from flask import Blueprint, Response, jsonify, request, stream_with_context
from pydantic import BaseModel, ConfigDict, Field, field_validator

from api.common import parse_args, parse_json, principal, require_write, services
from api.documented import SCOPED, Raw, documented
from api.responses import DocumentDeleted
from consolidation.forget import ForgetIn, ForgetReport, forget
from core.errors import Forbidden, InvalidInput
from core.scopes import Identifier, ScopeId
from recall.admin.reports import Dedupe, HydrateReport, ImportReport
from recall.admin.snapshot import render_snapshot
from recall.documents.index import MAX_PATH_CHARS, DocumentIndex, DocumentReport, check_path
from recall.documents.markdown import chunk_texts
from recall.write.guards import redact_secret_fields

bp = Blueprint('admin', __name__, url_prefix='/v1')


def _require_admin() -> None:
    if not principal().admin:
        raise Forbidden('only the admin token may use /v1/admin')


# ---- export / import --------------------------------------------------------------------------


class ExportArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId | None = None
    redact: bool | None = Field(
        default=None,
        description='unset: secret-looking spans (keys, passwords, card numbers) are masked; '
        'true: emails and phone numbers too; false: nothing is masked',
    )


@bp.get('/admin/export')
@documented(
    'Export memories as JSONL (admin)',
    responses={200: Raw('application/x-ndjson', 'one chunk object per line')},
    query=ExportArgs,
    errors=(403,),
    tag='admin',
)
def export() -> Response:
    """JSONL, one chunk per line, ordered by scope then id; secrets masked unless `redact=false`,
    emails and phones too with `redact=true`."""
    _require_admin()
    args = parse_args(ExportArgs)
    transfer = services().transfer
    total = transfer.count(args.scope)
    secrets = args.redact is not False

    def lines() -> Iterator[str]:
        for record in transfer.export(args.scope, redact=args.redact is True):
            out = redact_secret_fields(record) if secrets else record
            yield json.dumps(out, ensure_ascii=False, sort_keys=True) + '\n'

    response = Response(stream_with_context(lines()), mimetype='application/x-ndjson')
    response.headers['X-Mnemos-Count'] = str(total)
    response.headers['Content-Disposition'] = 'attachment; filename="mnemos-export.jsonl"'
    return response


class ImportArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    dedupe: Dedupe = Dedupe.ID
    dry_run: bool = False


@bp.post('/admin/import')
@documented(
    'Import JSONL chunk records (admin)',
    responses={200: ImportReport},
    body=Raw('application/x-ndjson', 'one chunk object per line'),
    query=ImportArgs,
    errors=(403,),
    tag='admin',
)
def import_() -> Response:
    """Append JSONL chunk records (ids kept, texts re-embedded); counts and invalid line numbers."""
    _require_admin()
    args = parse_args(ImportArgs)
    report = services().transfer.import_lines(
        request.stream, dedupe=args.dedupe, dry_run=args.dry_run
    )
    if report.read == 0:
        raise InvalidInput('body', 'no JSONL records: send one chunk object per line')
    return jsonify(report.model_dump(mode='json'))


# ---- forget -----------------------------------------------------------------------------------


@bp.post('/admin/forget')
@documented(
    'Forget a user or a scope: memories, episodes, graph mentions and facts (admin; an '
    'agent token within a scope it may write)',
    responses={200: ForgetReport},
    body=ForgetIn,
    errors=(403,),
    tag='admin',
)
def forget_() -> Response:
    """Forget a user (in every scope or one) or a whole scope: memories, episodes, graph. An
    agent token forgets only within a scope it may write (a user asking to be forgotten)."""
    body = parse_json(ForgetIn)
    if not principal().admin:
        if body.scope is None:
            raise InvalidInput('scope', 'agent tokens forget within one scope they may write')
        require_write(body.scope)
    return jsonify(forget(services().consolidation, body).model_dump(mode='json'))


# ---- snapshot / hydrate ---------------------------------------------------------------------


class SnapshotArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId


@bp.get('/admin/snapshot')
@documented(
    "Markdown of a scope's Core memories",
    responses={200: Raw('text/markdown', 'the snapshot, readable by POST /v1/admin/hydrate')},
    query=SnapshotArgs,
    errors=(403,),
    tag='admin',
)
def snapshot() -> Response:
    """Markdown of the scope's Core memories, with the metadata hydrate needs."""
    _require_admin()
    args = parse_args(SnapshotArgs)
    chunks = services().snapshots.core_chunks(args.scope)
    body = render_snapshot(args.scope, chunks, services().clock.now())
    response = Response(body, mimetype='text/markdown')
    response.headers['X-Mnemos-Count'] = str(len(chunks))
    return response


class HydrateIn(BaseModel):
    """`POST /v1/admin/hydrate` body."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    markdown: str = Field(min_length=1)


@bp.post('/admin/hydrate')
@documented(
    'Write a snapshot back as Core memories',
    responses={200: HydrateReport},
    body=HydrateIn,
    errors=(403,),
    tag='admin',
)
def hydrate() -> Response:
    """Write a snapshot's memories (or plain Markdown's chunks) into `scope` as Core memories."""
    _require_admin()
    body = parse_json(HydrateIn)
    report = services().snapshots.hydrate(body.scope, body.markdown, chunker=chunk_texts)
    return jsonify(report.model_dump(mode='json'))


# ---- documents --------------------------------------------------------------------------------


class DocumentIn(BaseModel):
    """`POST /v1/documents` body: a Markdown document to index into `scope`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS)
    markdown: str
    user_id: Identifier | None = None

    @field_validator('path')
    @classmethod
    def _markdown_only(cls, value: str) -> str:
        try:
            return check_path(value)
        except InvalidInput as exc:
            raise ValueError(exc.details[0]['msg']) from None


class DocumentArgs(BaseModel):
    model_config = ConfigDict(extra='forbid')

    scope: ScopeId
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS)


def _documents() -> DocumentIndex:
    return services().documents


@bp.post('/documents')
@documented(
    'Index a Markdown document',
    responses={200: DocumentReport},
    body=DocumentIn,
    errors=SCOPED,
    tag='documents',
)
def index_document() -> Response:
    """Index a Markdown document; re-indexing a path replaces it and reuses unchanged chunks."""
    body = parse_json(DocumentIn)
    require_write(body.scope)
    report = _documents().index(body.scope, body.path, body.markdown, user_id=body.user_id)
    return jsonify(report.model_dump(mode='json'))


@bp.delete('/documents')
@documented(
    "Delete a document's chunks",
    responses={200: DocumentDeleted},
    query=DocumentArgs,
    errors=SCOPED,
    tag='documents',
)
def delete_document() -> Response:
    """Delete every chunk of a document."""
    args = parse_args(DocumentArgs)
    require_write(args.scope)
    deleted = _documents().delete(args.scope, args.path)
    return jsonify(scope=args.scope, path=args.path, deleted=deleted)
