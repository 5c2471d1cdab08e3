"""A typed, synchronous Python client of the Mnemos HTTP API.

Requests are validated with the same pydantic models the service uses (`recall.schemas`,
`kg.models`, `consolidation.models`) before they leave the process, and answers are parsed into
them. An error answer raises a `MnemosError` subclass that carries the service's JSON error.

    from api.client import MnemosClient

    with MnemosClient('http://127.0.0.1:8765', token='...') as mnemos:
        mnemos.remember('agent:main', 'Alice prefers green tea', kind='preference')
        for hit in mnemos.search('what does Alice drink?', 'agent:main').hits:
            print(hit.score, hit.text)
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, Field

from api.capture import BundleIn, CaptureIn
from consolidation.models import FINAL_STATES, EpisodeOut, JobInfo, SessionIn
from kg.models import EntityDetail, EntityOut, KGSearchRequest, KGSearchResponse
from recall.admin.service import Dedupe, ImportReport
from recall.history import MemoryHistory, UserList
from recall.schemas import ChunkOut, MemoryIn, Receipt, SearchRequest, SearchResponse, Stats
from recall.schemas import WriteResult as _WriteResult
from recall.write.updates import MemoryPatch

DEFAULT_URL = 'http://127.0.0.1:8765'

# ---- errors -------------------------------------------------------------------------------------


class MnemosError(Exception):
    """An error answer of the service (or no answer at all: `status` 0).

    `error` is the stable code (`not_found`, `invalid_request`…), `message` the service's text,
    `details` always a list of objects (older services sent a dict or null; both are wrapped).
    """

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        details: Any = None,
        body: Any = None,
    ) -> None:
        super().__init__(f'{status} {error}: {message}' if status else message)
        self.status = status
        self.error = error
        self.message = message
        self.details: list[dict[str, Any]] = normalize_details(details)
        self.body = body


class ConnectionFailed(MnemosError):
    """The service did not answer (refused, timed out, DNS)."""


class BadRequest(MnemosError):
    """400: the body is not JSON, or not a JSON object."""


class Unauthorized(MnemosError):
    """401: no token, or one the service does not know."""


class Forbidden(MnemosError):
    """403: the token may not touch this scope or operation."""


class NotFound(MnemosError):
    """404: no such memory, entity, job… in a scope the token can read."""


class Conflict(MnemosError):
    """409: the request contradicts stored state."""


class PayloadTooLarge(MnemosError):
    """413: a text or the body exceeds the service's limit."""


class InvalidRequest(MnemosError):
    """422: a field is invalid; `details[i]['loc']` names it."""


class ServerError(MnemosError):
    """5xx: the service failed (503: a store is unavailable)."""


_BY_STATUS: dict[int, type[MnemosError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: InvalidRequest,
}


def normalize_details(details: Any) -> list[dict[str, Any]]:
    """The service's `details` as a list of objects, whatever shape the service sent."""
    if details is None:
        return []
    if isinstance(details, Mapping):
        return [dict(details)]
    if isinstance(details, list):
        return [dict(d) if isinstance(d, Mapping) else {'msg': str(d)} for d in details]
    return [{'msg': str(details)}]


def error_from_response(response: httpx.Response) -> MnemosError:
    """The typed exception of an error response."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and 'error' in body:
        code = str(body.get('error'))
        message = str(body.get('message') or code)
        details = body.get('details')
    else:
        code = response.reason_phrase.lower().replace(' ', '_') or 'error'
        message = response.text[:500] or code
        details = None
    cls = _BY_STATUS.get(response.status_code)
    if cls is None:
        cls = ServerError if response.status_code >= 500 else MnemosError
    return cls(response.status_code, code, message, details, body)


# ---- ids in URL paths ----------------------------------------------------------------------

UUID_PATTERN = r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

# The shape of each id the service takes in a URL path. An id is checked against its shape and
# percent-encoded before it is put in a path: a `/` or a `..` in an id would otherwise walk the
# request to another route (`../teams/core` from a memory id deletes a team).
PATH_ID_PATTERNS: dict[str, str] = {
    'memory_id': UUID_PATTERN,
    'entity_id': UUID_PATTERN,
    'job_id': UUID_PATTERN,
    'session_key': r'^[A-Za-z0-9_.:-]{1,200}$',
    'token_id': r'^tok_[0-9a-f]{16}$',
    'team_id': r'^[A-Za-z0-9_.-]{1,128}$',
}


def path_segment(field: str, value: object) -> str:
    """`value` as one percent-encoded URL path segment, after checking it has the shape of a
    `field` id; `InvalidRequest` (nothing sent) naming `field` when it has not."""
    pattern = PATH_ID_PATTERNS[field]
    if not isinstance(value, str) or value in ('.', '..') or not re.match(pattern, value):
        message = f'{field}: not a valid id (expected {pattern})'
        detail = {'loc': [field], 'msg': f'must match {pattern}', 'type': 'value_error'}
        raise InvalidRequest(422, 'invalid_request', message, [detail])
    return quote(value, safe='')


# ---- answers that have no model on the server side ------------------------------------------


class WriteResult(_WriteResult):
    """Outcome of `remember`: what happened, and the stored memory (absent when skipped)."""

    memory: ChunkOut | None = None


class BatchItemResult(BaseModel):
    """One item of `remember_batch`: its write result, or `status='error'` with the error."""

    model_config = ConfigDict(extra='allow')

    index: int
    status: str
    id: str | None = None
    reason: str | None = None
    merged_into: str | None = None
    superseded: list[str] = Field(default_factory=list)
    error: dict[str, Any] | None = None


class BatchResult(BaseModel):
    """`remember_batch`: one result per item, in order, and counts by status."""

    results: list[BatchItemResult]
    counts: dict[str, int]


class CapturedItem(BaseModel):
    """A memory that `capture` stored (or merged)."""

    id: str | None
    kind: str
    text: str
    status: str
    reason: str | None = None


class CaptureResult(BaseModel):
    """`capture`: what was stored, and why the rest was skipped."""

    stored: list[CapturedItem]
    skipped: str | None = None
    skipped_items: list[dict[str, Any]] = Field(default_factory=list)
    candidates: int = 0


class Bundle(BaseModel):
    """`bundle`: memories packed for the current turn, with the search receipt."""

    skipped: str | None = None
    text: str
    ids: list[str]
    tokens: int
    receipt: Receipt | None = None


class MemoryPage(BaseModel):
    """One page of `list_memories`; pass `next` as `offset` for the following one."""

    items: list[ChunkOut]
    next: str | None = None


class SessionAccepted(BaseModel):
    """`complete_session`: the consolidation job and the episode it will write."""

    job_id: str
    episode_id: str
    status_url: str


class EntityList(BaseModel):
    """`entities`: live entities of a scope, most mentioned first."""

    items: list[EntityOut]
    total: int


# ---- the client -----------------------------------------------------------------------------


def _model_of(model: type[BaseModel], value: BaseModel | Mapping[str, Any] | None, **fields: Any):  # type: ignore[no-untyped-def]
    if isinstance(value, model):
        return value.model_copy(update=fields) if fields else value
    data = dict(value.model_dump() if isinstance(value, BaseModel) else (value or {}))
    data.update({k: v for k, v in fields.items() if v is not None})
    return model.model_validate(data)


def _memory_segment(memory_id: str) -> str:
    return path_segment('memory_id', memory_id)


def _body(model: BaseModel) -> dict[str, Any]:
    # only what the caller set: server defaults stay the server's
    return model.model_dump(mode='json', exclude_unset=True)


class MnemosClient:
    """Sync client of one Mnemos service; thread-safe like `httpx.Client`.

    `url` defaults to `KG_URL` or http://127.0.0.1:8765 and `token` to `KG_API_TOKEN`.
    """

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = (url or os.environ.get('KG_URL') or DEFAULT_URL).rstrip('/')
        token = token if token is not None else os.environ.get('KG_API_TOKEN')
        headers = {'User-Agent': 'mnemos-client'}
        if token:
            headers['Authorization'] = f'Bearer {token}'
        self._http = httpx.Client(
            base_url=self.url, headers=headers, timeout=timeout, transport=transport
        )

    # ---- plumbing -----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        content: bytes | Iterable[bytes] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One request; a non-2xx answer raises its `MnemosError` subclass."""
        clean = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        try:
            response = self._http.request(
                method, path, json=json_body, params=clean, content=content, headers=headers
            )
        except httpx.HTTPError as exc:
            raise ConnectionFailed(0, 'connection_failed', f'{self.url}: {exc}') from exc
        if response.is_error:
            raise error_from_response(response)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs).json()

    # ---- service ------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """`GET /healthz` (no token needed)."""
        return dict(self._json('GET', '/healthz'))

    # ---- memories -----------------------------------------------------------------------

    def remember(
        self, scope_or_memory: str | MemoryIn, text: str | None = None, **fields: Any
    ) -> WriteResult:
        """Write one memory: `remember('agent:main', 'text', kind='preference', …)` or a
        `MemoryIn`; 'created', or 'merged' into an equal one."""
        if isinstance(scope_or_memory, MemoryIn):
            item = scope_or_memory
        else:
            item = MemoryIn.model_validate({'scope': scope_or_memory, 'text': text, **fields})
        return WriteResult.model_validate(self._json('POST', '/v1/memories', json_body=_body(item)))

    def remember_batch(self, items: Sequence[MemoryIn | Mapping[str, Any]]) -> BatchResult:
        """Write many memories; each item gets its own result or error (validated here first)."""
        body = [_body(_model_of(MemoryIn, i)) for i in items]
        data = self._json('POST', '/v1/memories/batch', json_body={'items': body})
        return BatchResult.model_validate(data)

    def capture(self, scope: str, text: str, **fields: Any) -> CaptureResult:
        """Offer a conversation turn: durable facts are distilled and stored, the rest skipped."""
        req = CaptureIn.model_validate({'scope': scope, 'text': text, **fields})
        data = self._json('POST', '/v1/memories/capture', json_body=_body(req))
        return CaptureResult.model_validate(data)

    def search(
        self, query: str | SearchRequest, scope: str | None = None, **fields: Any
    ) -> SearchResponse:
        """Hybrid recall (`top_k`, `mode`, `fusion`, `filters`, `graph`, `hops`…) with a receipt."""
        if isinstance(query, SearchRequest):
            req = query
        else:
            req = SearchRequest.model_validate({'query': query, 'scope': scope, **fields})
        data = self._json('POST', '/v1/memory_search', json_body=_body(req))
        return SearchResponse.model_validate(data)

    def get(self, memory_id: str) -> ChunkOut:
        """One memory by id."""
        return ChunkOut.model_validate(
            self._json('GET', f'/v1/memories/{_memory_segment(memory_id)}')
        )

    def delete(self, memory_id: str) -> None:
        """Delete one memory."""
        self.request('DELETE', f'/v1/memories/{_memory_segment(memory_id)}')

    def pin(self, memory_id: str) -> ChunkOut:
        """Pin: the memory becomes Core and is never demoted."""
        return ChunkOut.model_validate(
            self._json('POST', f'/v1/memories/{_memory_segment(memory_id)}/pin')
        )

    def unpin(self, memory_id: str) -> ChunkOut:
        """Unpin: the memory decays again."""
        return ChunkOut.model_validate(
            self._json('POST', f'/v1/memories/{_memory_segment(memory_id)}/unpin')
        )

    def update(self, memory_id: str, **changes: Any) -> ChunkOut:
        """Edit a memory: `text`, `tags`, `importance`, `pinned`, `metadata` (tags and metadata
        are replaced) and a `reason`; the state it replaces is kept in its history."""
        body = _body(MemoryPatch.model_validate(changes))
        path = f'/v1/memories/{_memory_segment(memory_id)}'
        return ChunkOut.model_validate(self._json('PATCH', path, json_body=body))

    def history(self, memory_id: str) -> MemoryHistory:
        """A memory's versions, the writes merged into it and what superseded it (and why)."""
        path = f'/v1/memories/{_memory_segment(memory_id)}/history'
        return MemoryHistory.model_validate(self._json('GET', path))

    def users(self, scope: str, limit: int = 100) -> UserList:
        """The users with memories in `scope`, most memories first."""
        data = self._json('GET', '/v1/users', params={'scope': scope, 'limit': limit})
        return UserList.model_validate(data)

    def list_memories(
        self,
        scope: str | None = None,
        *,
        kind: str | None = None,
        q: str | None = None,
        limit: int = 50,
        offset: str | None = None,
    ) -> MemoryPage:
        """One page of a scope's memories (id order), or those matching `q`."""
        params = {'scope': scope, 'kind': kind, 'q': q, 'limit': limit, 'offset': offset}
        return MemoryPage.model_validate(self._json('GET', '/v1/memories', params=params))

    def iter_memories(
        self, scope: str | None = None, *, kind: str | None = None
    ) -> Iterator[ChunkOut]:
        """Every memory of a scope, page after page."""
        offset: str | None = None
        while True:
            page = self.list_memories(scope, kind=kind, limit=500, offset=offset)
            yield from page.items
            if not page.next:
                return
            offset = page.next

    def stats(self, scope: str | None = None) -> Stats:
        """Counts by tier, kind and scope (all scopes: admin token only)."""
        return Stats.model_validate(self._json('GET', '/v1/memory/stats', params={'scope': scope}))

    def bundle(self, scope: str, message: str, **fields: Any) -> Bundle:
        """Memories for the message about to be sent, packed under `max_tokens`."""
        req = BundleIn.model_validate({'scope': scope, 'message': message, **fields})
        return Bundle.model_validate(self._json('POST', '/v1/recall/bundle', json_body=_body(req)))

    # ---- knowledge graph ------------------------------------------------------------------

    def kg_search(
        self, query: str | KGSearchRequest, scope: str | None = None, **fields: Any
    ) -> KGSearchResponse:
        """Entities and facts valid at `as_of` (default now), with connecting paths."""
        if isinstance(query, KGSearchRequest):
            req = query
        else:
            req = KGSearchRequest.model_validate({'query': query, 'scope': scope, **fields})
        data = self._json('POST', '/v1/knowledge_graph_search', json_body=_body(req))
        return KGSearchResponse.model_validate(data)

    def entity(self, entity_id: str, scope: str) -> EntityDetail:
        """One entity: aliases, current facts and the full fact history."""
        data = self._json(
            'GET',
            '/v1/kg/entities/' + path_segment('entity_id', entity_id),
            params={'scope': scope},
        )
        return EntityDetail.model_validate(data)

    def entities(self, scope: str, q: str | None = None, limit: int = 50) -> EntityList:
        """Live entities of a scope (name or alias containing `q`), most mentioned first."""
        params = {'scope': scope, 'q': q, 'limit': limit}
        return EntityList.model_validate(self._json('GET', '/v1/kg/entities', params=params))

    # ---- sessions, jobs, episodes -----------------------------------------------------------

    def complete_session(
        self, session_key: str, session: SessionIn | Mapping[str, Any] | None = None, **fields: Any
    ) -> SessionAccepted:
        """Hand a finished session to consolidation (episode, graph facts, dreaming)."""
        key = path_segment('session_key', session_key)
        req = _model_of(SessionIn, session, **fields)
        data = self._json('POST', f'/v1/sessions/{key}/complete', json_body=_body(req))
        return SessionAccepted.model_validate(data)

    def job(self, job_id: str) -> JobInfo:
        """A job's state: queued, running, done, failed or cancelled."""
        return JobInfo.model_validate(
            self._json('GET', '/v1/jobs/' + path_segment('job_id', job_id))
        )

    def wait_job(self, job_id: str, timeout: float = 60.0, poll: float = 0.2) -> JobInfo:
        """Poll a job until it is done, failed or cancelled; TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.job(job_id)
            if info.state in FINAL_STATES:
                return info
            if time.monotonic() > deadline:
                raise TimeoutError(f'job {job_id} still {info.state} after {timeout} s')
            time.sleep(poll)

    def episodes(self, scope: str, user_id: str | None = None, limit: int = 20) -> list[EpisodeOut]:
        """Live episodes of a scope, newest session first."""
        params = {'scope': scope, 'user_id': user_id, 'limit': limit}
        data = self._json('GET', '/v1/episodes', params=params)
        return [EpisodeOut.model_validate(e) for e in data['episodes']]

    # ---- admin: export / import -------------------------------------------------------------

    def export_count(self, scope: str | None = None) -> int:
        """How many records `export(scope)` would yield (admin token; a HEAD request)."""
        response = self.request('HEAD', '/v1/admin/export', params={'scope': scope})
        return int(response.headers.get('X-Mnemos-Count', '0'))

    def export(
        self, scope: str | None = None, *, redact: bool | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every chunk record (all scopes, or one), streamed line by line (admin token).

        `redact`: None masks secret-looking spans (the service's default), True also emails and
        phone numbers, False nothing (what a re-import needs).
        """
        params = _clean({'scope': scope, 'redact': _param(redact) if redact is not None else None})
        try:
            with self._http.stream('GET', '/v1/admin/export', params=params) as response:
                if response.is_error:
                    response.read()
                    raise error_from_response(response)
                for line in response.iter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.HTTPError as exc:
            raise ConnectionFailed(0, 'connection_failed', f'{self.url}: {exc}') from exc

    def import_records(
        self,
        records: Iterable[Mapping[str, Any] | str | bytes],
        *,
        dedupe: Dedupe | str = Dedupe.ID,
        dry_run: bool = False,
    ) -> ImportReport:
        """Import chunk records (dicts, or JSONL lines) as one streamed request (admin token)."""
        body = (_jsonl(r) for r in records)
        params = {'dedupe': Dedupe(dedupe).value, 'dry_run': dry_run}
        data = self._json(
            'POST',
            '/v1/admin/import',
            params=params,
            content=body,
            headers={'Content-Type': 'application/x-ndjson'},
        )
        return ImportReport.model_validate(data)


def _jsonl(record: Mapping[str, Any] | str | bytes) -> bytes:
    if isinstance(record, bytes):
        return record if record.endswith(b'\n') else record + b'\n'
    if isinstance(record, str):
        return (record if record.endswith('\n') else record + '\n').encode('utf-8')
    return (json.dumps(record, ensure_ascii=False) + '\n').encode('utf-8')


def _param(value: Any) -> Any:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return value


def _clean(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


__all__ = [
    'BadRequest',
    'BatchResult',
    'Bundle',
    'CaptureResult',
    'Conflict',
    'ConnectionFailed',
    'EntityList',
    'Forbidden',
    'InvalidRequest',
    'MemoryPage',
    'MnemosClient',
    'MnemosError',
    'NotFound',
    'PATH_ID_PATTERNS',
    'PayloadTooLarge',
    'ServerError',
    'SessionAccepted',
    'Unauthorized',
    'WriteResult',
    'path_segment',
]
