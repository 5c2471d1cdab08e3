"""One JSONL line of an import, read into a chunk, or the error that says why it is not one."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator

from core import jsonsafe
from core.clock import storable
from core.scopes import ScopeId
from recall.admin.redaction import masked
from recall.admin.reports import ImportReport, LineError
from recall.models import Chunk, chunk_id
from recall.normalize import content_hash, normalize_text
from recall.schemas import MemoryText


class ImportRecord(Chunk):
    """One JSONL line: a chunk as exported; derived fields may be left out and are recomputed."""

    model_config = ConfigDict(extra='forbid')

    id: str = Field(default='', description='uuid; derived from scope, user and text when empty')
    scope: ScopeId
    text: MemoryText
    created_at: datetime | None = None  # type: ignore[assignment]
    updated_at: datetime | None = None  # type: ignore[assignment]
    content_hash: str | None = None  # type: ignore[assignment]

    @field_validator('id')
    @classmethod
    def _uuid(cls, value: str) -> str:
        if value == '':
            return value
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise ValueError('id must be a UUID') from None

    @field_validator('created_at', 'updated_at', 'accessed_at', 'expires_at')
    @classmethod
    def _storable(cls, value: datetime | None) -> datetime | None:
        return storable(value) if value is not None else None  # epoch seconds must read back

    def to_chunk(self, now: datetime) -> Chunk:
        """The stored chunk; the content hash always follows the text."""
        data = self.model_dump()
        data['id'] = self.id or chunk_id(self.scope, self.user_id, normalize_text(self.text))
        data['created_at'] = self.created_at or now
        data['updated_at'] = self.updated_at or data['created_at']
        data['content_hash'] = content_hash(self.text)
        return Chunk.model_validate(data)


def parse_line(
    number: int, raw: bytes | str, now: datetime, report: ImportReport, *, max_text_bytes: int
) -> Chunk | None:
    """Line `number` as a chunk with its secrets masked; None for a blank line, or for an
    invalid one, which is counted and reported in `report`."""
    try:
        line = raw.decode('utf-8') if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        report.read += 1
        report.add_error(LineError(line=number, error='invalid_encoding', message='not UTF-8'))
        return None
    if not line.strip():
        return None
    report.read += 1
    data = _record(number, line)
    if isinstance(data, LineError):
        report.add_error(data)
        return None
    chunk = _chunk(number, data, now, max_text_bytes)
    if isinstance(chunk, LineError):
        report.add_error(chunk)
        return None
    return masked(chunk, number, report)


def _record(number: int, line: str) -> dict[str, Any] | LineError:
    """The line's JSON object, if it is one the store can hold."""
    try:
        data = jsonsafe.loads(line)
    except jsonsafe.NotJson as exc:
        return LineError(line=number, error='invalid_json', message=str(exc))
    deep = jsonsafe.too_deep(data)
    if deep is not None:
        message = f'nested deeper than {jsonsafe.MAX_DEPTH} levels'
        details = [{'loc': deep, 'msg': message}]
        return LineError(line=number, error='invalid_record', message=message, details=details)
    if not isinstance(data, dict):
        return LineError(line=number, error='invalid_record', message='not a JSON object')
    data.pop('owner', None)  # raw store payloads carry it; it is derived from user_id
    bad = jsonsafe.unstorable(data)
    if bad is not None:  # the store would refuse the whole batch; this record alone fails
        where = '.'.join(map(str, bad[0]))
        return LineError(
            line=number,
            error='invalid_record',
            message=f'invalid fields: {where}: {bad[1]}',
            details=[{'loc': bad[0], 'msg': bad[1]}],
        )
    return data


def _chunk(
    number: int, data: dict[str, Any], now: datetime, max_text_bytes: int
) -> Chunk | LineError:
    """The record as a chunk, if its fields are valid and its text within the limit."""
    try:
        chunk = ImportRecord.model_validate(data).to_chunk(now)
    except ValidationError as exc:
        details = exc.errors(include_url=False, include_context=False, include_input=False)
        fields = ', '.join('.'.join(str(p) for p in d['loc']) for d in details)
        return LineError(
            line=number,
            error='invalid_record',
            message=f'invalid fields: {fields}',
            details=[{'loc': list(d['loc']), 'msg': d['msg']} for d in details],
        )
    size = len(chunk.text.encode('utf-8'))
    if size > max_text_bytes:
        return LineError(
            line=number,
            error='payload_too_large',
            message=f'text is {size} bytes; the limit is {max_text_bytes}',
            details=[{'loc': ['text'], 'msg': 'text too large'}],
        )
    return chunk
