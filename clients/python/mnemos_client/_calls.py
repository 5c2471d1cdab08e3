"""Each operation of the API as a `Call`: method, path, query, body and how to read the answer.
The sync and the async client run the same calls, so they cannot drift apart."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from mnemos_client import models as m
from mnemos_client.errors import InvalidRequest, invalid_request, unexpected_answer

T = TypeVar('T')
RequestModel = TypeVar('RequestModel', bound=pydantic.BaseModel)

DEFAULT_URL = 'http://127.0.0.1:8765'
URL_VARIABLES = ('MNEMOS_URL', 'KG_URL')
# MNEMOS_API_KEY and MNEMOS_TOKEN name the client's token; KG_API_TOKEN is the service's own
# admin token, which a client on the service's machine may use as well
TOKEN_VARIABLES = ('MNEMOS_API_KEY', 'MNEMOS_TOKEN', 'KG_API_TOKEN')


def resolve_url(url: str | None) -> str:
    """`url`, else `MNEMOS_URL`, else `KG_URL`, else http://127.0.0.1:8765."""
    chosen = url or next((os.environ[v] for v in URL_VARIABLES if os.environ.get(v)), DEFAULT_URL)
    return chosen.rstrip('/')


def resolve_token(token: str | None) -> str | None:
    """`token`, else `MNEMOS_API_KEY`, `MNEMOS_TOKEN` or `KG_API_TOKEN` (the first one set)."""
    if token is not None:
        return token
    return next((os.environ[v] for v in TOKEN_VARIABLES if os.environ.get(v)), None)


# ---- ids in URL paths -------------------------------------------------------------------------

UUID_PATTERN = r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

# The shape of each id the service takes in a URL path. An id is checked against its shape and
# percent-encoded before it is put in a path: a `/` or a `..` in an id would otherwise walk the
# request to another route (`../teams/core` as a memory id would delete a team).
PATH_ID_PATTERNS: dict[str, str] = {
    'memory_id': UUID_PATTERN,
    'entity_id': UUID_PATTERN,
    'job_id': UUID_PATTERN,
    'session_key': r'^[A-Za-z0-9_.:-]{1,200}$',
    'token_id': r'^tok_[0-9a-f]{16}$',
    'team_id': r'^[A-Za-z0-9_.-]{1,128}$',
}


def path_segment(name: str, value: object) -> str:
    """`value` as one percent-encoded path segment, after checking it has the shape of a `name`
    id; `InvalidRequest` naming `name` (nothing sent) when it has not."""
    pattern = PATH_ID_PATTERNS[name]
    if not isinstance(value, str) or value in ('.', '..') or not re.match(pattern, value):
        detail = {'loc': [name], 'msg': f'must match {pattern}', 'type': 'value_error'}
        raise InvalidRequest(422, 'invalid_request', f'{name}: not a valid id', [detail])
    return quote(value, safe='')


# ---- calls ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and the reader of its answer."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    json: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    content: bytes | Iterable[bytes] | None = None
    headers: Mapping[str, str] | None = None

    @property
    def replayable(self) -> bool:
        """A streamed body is read once: such a request is never sent twice."""
        return self.content is None or isinstance(self.content, bytes)


def build(model: type[RequestModel], data: Mapping[str, Any]) -> RequestModel:
    """Validate a request here; pydantic's error becomes `InvalidRequest` naming the field."""
    try:
        return model.model_validate(dict(data))
    except pydantic.ValidationError as exc:
        raise invalid_request(exc) from None


def coerce(model: type[RequestModel], value: RequestModel | Mapping[str, Any]) -> RequestModel:
    """A request model from a model or a mapping."""
    return value if isinstance(value, model) else build(model, value)  # type: ignore[arg-type]


def body(request: pydantic.BaseModel) -> dict[str, Any]:
    """Only what the caller set: the service's defaults stay the service's."""
    return request.model_dump(mode='json', exclude_unset=True)


def query(**params: Any) -> dict[str, Any]:
    """Query parameters without the unset ones; booleans as the service spells them."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if value is None:
            continue
        out[key] = ('true' if value else 'false') if isinstance(value, bool) else value
    return out


def reader(model: type[T]) -> Callable[[httpx.Response], T]:
    """Read a JSON answer into `model`; `UnexpectedAnswer` when it does not fit."""
    adapter = pydantic.TypeAdapter(model)

    def read(response: httpx.Response) -> T:
        try:
            data = response.json()
        except ValueError as exc:
            raise unexpected_answer(exc, response.text[:500]) from None
        try:
            return adapter.validate_python(data)
        except pydantic.ValidationError as exc:
            raise unexpected_answer(exc, data) from None

    return read


def no_answer(response: httpx.Response) -> None:
    return None


def health() -> Call[m.Health]:
    return Call('GET', '/healthz', reader(m.Health))


def ready() -> Call[m.Ready]:
    return Call('GET', '/readyz', reader(m.Ready))


def whoami() -> Call[m.WhoAmI]:
    return Call('GET', '/v1/whoami', reader(m.WhoAmI))


def remember(item: m.MemoryIn) -> Call[m.WriteResult]:
    return Call('POST', '/v1/memories', reader(m.WriteResult), json=body(item))


def remember_batch(items: Sequence[m.MemoryIn | Mapping[str, Any]]) -> Call[m.BatchResult]:
    bodies = [body(coerce(m.MemoryIn, i)) for i in items]
    return Call('POST', '/v1/memories/batch', reader(m.BatchResult), json={'items': bodies})


def capture(request: m.CaptureIn) -> Call[m.CaptureResult]:
    return Call('POST', '/v1/memories/capture', reader(m.CaptureResult), json=body(request))


def search(request: m.SearchRequest) -> Call[m.SearchResponse]:
    return Call('POST', '/v1/memory_search', reader(m.SearchResponse), json=body(request))


def get(memory_id: str) -> Call[m.Memory]:
    return Call('GET', f'/v1/memories/{path_segment("memory_id", memory_id)}', reader(m.Memory))


def delete(memory_id: str) -> Call[m.Deleted]:
    path = f'/v1/memories/{path_segment("memory_id", memory_id)}'
    return Call('DELETE', path, reader(m.Deleted))


def pin(memory_id: str, pinned: bool) -> Call[m.Memory]:
    action = 'pin' if pinned else 'unpin'
    path = f'/v1/memories/{path_segment("memory_id", memory_id)}/{action}'
    return Call('POST', path, reader(m.Memory))


def update(memory_id: str, changes: m.MemoryPatch) -> Call[m.Memory]:
    path = f'/v1/memories/{path_segment("memory_id", memory_id)}'
    return Call('PATCH', path, reader(m.Memory), json=body(changes))


def history(memory_id: str) -> Call[m.MemoryHistory]:
    path = f'/v1/memories/{path_segment("memory_id", memory_id)}/history'
    return Call('GET', path, reader(m.MemoryHistory))


def users(scope: str, limit: int) -> Call[m.UserList]:
    return Call('GET', '/v1/users', reader(m.UserList), params=query(scope=scope, limit=limit))


def list_memories(
    scope: str | None, kind: str | None, q: str | None, limit: int, offset: str | None
) -> Call[m.MemoryPage]:
    params = query(scope=scope, kind=kind, q=q, limit=limit, offset=offset)
    return Call('GET', '/v1/memories', reader(m.MemoryPage), params=params)


def stats(scope: str | None) -> Call[m.Stats]:
    return Call('GET', '/v1/memory/stats', reader(m.Stats), params=query(scope=scope))


def bundle(request: m.BundleIn) -> Call[m.Bundle]:
    return Call('POST', '/v1/recall/bundle', reader(m.Bundle), json=body(request))


def kg_search(request: m.KGSearchRequest) -> Call[m.KGSearchResponse]:
    path = '/v1/knowledge_graph_search'
    return Call('POST', path, reader(m.KGSearchResponse), json=body(request))


def entity(entity_id: str, scope: str) -> Call[m.EntityDetail]:
    path = f'/v1/kg/entities/{path_segment("entity_id", entity_id)}'
    return Call('GET', path, reader(m.EntityDetail), params=query(scope=scope))


def entities(scope: str, q: str | None, limit: int) -> Call[m.EntityList]:
    params = query(scope=scope, q=q, limit=limit)
    return Call('GET', '/v1/kg/entities', reader(m.EntityList), params=params)


def complete_session(session_key: str, request: m.SessionIn) -> Call[m.SessionAccepted]:
    path = f'/v1/sessions/{path_segment("session_key", session_key)}/complete'
    return Call('POST', path, reader(m.SessionAccepted), json=body(request))


def job(job_id: str) -> Call[m.JobInfo]:
    return Call('GET', f'/v1/jobs/{path_segment("job_id", job_id)}', reader(m.JobInfo))


def jobs(scope: str | None, limit: int) -> Call[list[m.JobInfo]]:
    read_list = reader(m.JobList)
    params = query(scope=scope, limit=limit)
    return Call('GET', '/v1/jobs', lambda r: read_list(r).jobs, params=params)


def episodes(scope: str, user_id: str | None, limit: int) -> Call[list[m.Episode]]:
    read_list = reader(m.EpisodeList)
    params = query(scope=scope, user_id=user_id, limit=limit)
    return Call('GET', '/v1/episodes', lambda r: read_list(r).episodes, params=params)


def export_count(scope: str | None) -> Call[int]:
    def read(response: httpx.Response) -> int:
        return int(response.headers.get('X-Mnemos-Count', '0'))

    return Call('HEAD', '/v1/admin/export', read, params=query(scope=scope))


def export(scope: str | None, redact: bool | None) -> Call[None]:
    return Call('GET', '/v1/admin/export', no_answer, params=query(scope=scope, redact=redact))


def import_records(
    records: Iterable[Mapping[str, Any] | str | bytes], dedupe: m.Dedupe, dry_run: bool
) -> Call[m.ImportReport]:
    if dedupe not in ('none', 'id', 'id_text'):
        detail = {'loc': ['dedupe'], 'msg': "one of 'none', 'id', 'id_text'", 'type': 'enum'}
        raise InvalidRequest(422, 'invalid_request', 'invalid dedupe', [detail])
    return Call(
        'POST',
        '/v1/admin/import',
        reader(m.ImportReport),
        params=query(dedupe=dedupe, dry_run=dry_run),
        content=(jsonl(r) for r in records),
        headers={'Content-Type': 'application/x-ndjson'},
    )


def forget(request: m.ForgetIn) -> Call[m.ForgetReport]:
    return Call('POST', '/v1/admin/forget', reader(m.ForgetReport), json=body(request))


def snapshot(scope: str) -> Call[str]:
    return Call('GET', '/v1/admin/snapshot', lambda r: r.text, params=query(scope=scope))


def hydrate(request: m.HydrateIn) -> Call[m.HydrateReport]:
    return Call('POST', '/v1/admin/hydrate', reader(m.HydrateReport), json=body(request))


def index_document(request: m.DocumentIn) -> Call[m.DocumentReport]:
    return Call('POST', '/v1/documents', reader(m.DocumentReport), json=body(request))


def delete_document(scope: str, path: str) -> Call[m.DocumentDeleted]:
    params = query(scope=scope, path=path)
    return Call('DELETE', '/v1/documents', reader(m.DocumentDeleted), params=params)


def create_token(request: m.TokenIn) -> Call[m.TokenCreated]:
    return Call('POST', '/v1/tokens', reader(m.TokenCreated), json=body(request))


def tokens(agent_id: str | None, include_revoked: bool) -> Call[list[m.Token]]:
    read_list = reader(m.TokenList)
    params = query(agent_id=agent_id, include_revoked=include_revoked)
    return Call('GET', '/v1/tokens', lambda r: read_list(r).items, params=params)


def revoke_token(token_id: str) -> Call[m.TokenRevoked]:
    path = f'/v1/tokens/{path_segment("token_id", token_id)}'
    return Call('DELETE', path, reader(m.TokenRevoked))


def put_team(team_id: str, request: m.TeamIn) -> Call[m.Team]:
    path = f'/v1/teams/{path_segment("team_id", team_id)}'
    return Call('PUT', path, reader(m.Team), json=body(request))


def team(team_id: str) -> Call[m.Team]:
    return Call('GET', f'/v1/teams/{path_segment("team_id", team_id)}', reader(m.Team))


def delete_team(team_id: str) -> Call[m.Deleted]:
    return Call('DELETE', f'/v1/teams/{path_segment("team_id", team_id)}', reader(m.Deleted))


def jsonl(record: Mapping[str, Any] | str | bytes) -> bytes:
    """One JSONL line of an import."""
    if isinstance(record, bytes):
        return record if record.endswith(b'\n') else record + b'\n'
    if isinstance(record, str):
        return (record if record.endswith('\n') else record + '\n').encode('utf-8')
    return (json.dumps(record, ensure_ascii=False) + '\n').encode('utf-8')
