"""`Mnemos`: the synchronous client (httpx), thread-safe like `httpx.Client`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from typing_extensions import Unpack

from mnemos_client import _calls as calls
from mnemos_client import models as m
from mnemos_client.errors import ConnectionFailed, error_from_response
from mnemos_client.options import (
    BundleOptions,
    CaptureOptions,
    GraphSearchOptions,
    MemoryChanges,
    MemoryOptions,
    SearchOptions,
    SessionOptions,
)
from mnemos_client.retry import Retry

T = TypeVar('T')


def client_headers(token: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    """The headers of every request: the user agent and the bearer token."""
    headers = {'User-Agent': 'mnemos-client', **(extra or {})}
    if token:
        headers['Authorization'] = f'Bearer {token}'
    return headers


class Mnemos:
    """Client of one Mnemos service.

    `url` defaults to `MNEMOS_URL` (or `KG_URL`), else http://127.0.0.1:8765; `token` to
    `MNEMOS_API_KEY`, `MNEMOS_TOKEN` or `KG_API_TOKEN`. Every failure raises a `MnemosError`.

        with Mnemos() as mnemos:
            mnemos.remember('agent:main', 'Alice prefers green tea', kind='preference')
            for hit in mnemos.search('what does Alice drink?', 'agent:main').hits:
                print(hit.score, hit.text)
    """

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        retry: Retry | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = calls.resolve_url(url)
        self.retry = retry or Retry()
        self._http = httpx.Client(
            base_url=self.url,
            headers=client_headers(calls.resolve_token(token), headers),
            timeout=timeout,
            transport=transport,
        )

    # ---- plumbing ---------------------------------------------------------------------------

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

    def run(self, call: calls.Call[T]) -> T:
        """Send one call (with retries) and read its answer."""
        return call.read(self._send(call))

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        """Any route of the service (with retries); a non-2xx answer raises its `MnemosError`."""
        call = calls.Call(
            method, path, calls.no_answer, json=json, params=calls.query(**(params or {}))
        )
        return self._send(call)

    def _send(self, call: calls.Call[Any]) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    call.method,
                    call.path,
                    json=call.json,
                    params=call.params,
                    content=call.content,
                    headers=call.headers,
                )
            except httpx.HTTPError as exc:
                wait = self.retry.wait_after_error(call.method, exc, attempt)
                if wait is None or not call.replayable:
                    raise ConnectionFailed(0, 'connection_failed', f'{self.url}: {exc}') from exc
            else:
                wait = self.retry.wait_after_answer(response, attempt)
                if wait is None or not call.replayable:
                    if response.is_error:
                        raise error_from_response(response)
                    return response
                response.close()
            time.sleep(wait)
            attempt += 1

    # ---- service ----------------------------------------------------------------------------

    def health(self) -> m.Health:
        """`GET /healthz` (no token needed)."""
        return self.run(calls.health())

    def ready(self) -> m.Ready:
        """`GET /readyz`: every store answers (503, raised as `ServerError`, when one does not)."""
        return self.run(calls.ready())

    def whoami(self) -> m.WhoAmI:
        """Who the token stands for: admin, or an agent with its own scope and granted ones."""
        return self.run(calls.whoami())

    # ---- memories ---------------------------------------------------------------------------

    def remember(self, scope: str, text: str, **options: Unpack[MemoryOptions]) -> m.WriteResult:
        """Write one memory: 'created', 'merged' into an equal one, or 'skipped' with a reason."""
        item = calls.build(m.MemoryIn, {'scope': scope, 'text': text, **options})
        return self.run(calls.remember(item))

    def remember_batch(self, items: Sequence[m.MemoryIn | Mapping[str, Any]]) -> m.BatchResult:
        """Write many memories; each item gets its own result or error (validated here first)."""
        return self.run(calls.remember_batch(items))

    def capture(self, scope: str, text: str, **options: Unpack[CaptureOptions]) -> m.CaptureResult:
        """Offer a conversation turn: durable facts are distilled and stored, the rest skipped."""
        request = calls.build(m.CaptureIn, {'scope': scope, 'text': text, **options})
        return self.run(calls.capture(request))

    def search(self, query: str, scope: str, **options: Unpack[SearchOptions]) -> m.SearchResponse:
        """Hybrid recall over dense, BM25, graph and context channels, with a receipt."""
        request = calls.build(m.SearchRequest, {'query': query, 'scope': scope, **options})
        return self.run(calls.search(request))

    def get(self, memory_id: str) -> m.Memory:
        """One memory by id."""
        return self.run(calls.get(memory_id))

    def delete(self, memory_id: str) -> m.Deleted:
        """Delete one memory (and the graph facts only it said)."""
        return self.run(calls.delete(memory_id))

    def pin(self, memory_id: str) -> m.Memory:
        """Pin: the memory becomes Core and is never demoted."""
        return self.run(calls.pin(memory_id, True))

    def unpin(self, memory_id: str) -> m.Memory:
        """Unpin: the memory decays again."""
        return self.run(calls.pin(memory_id, False))

    def update(self, memory_id: str, **changes: Unpack[MemoryChanges]) -> m.Memory:
        """Edit a memory (`text`, `tags`, `importance`, `pinned`, `metadata`, and a `reason`);
        the state it replaces is kept in its history, a new text is embedded and extracted anew."""
        return self.run(calls.update(memory_id, calls.build(m.MemoryPatch, changes)))

    def history(self, memory_id: str) -> m.MemoryHistory:
        """A memory's versions, the writes merged into it and what superseded it (and why)."""
        return self.run(calls.history(memory_id))

    def users(self, scope: str, limit: int = 100) -> m.UserList:
        """The users with memories in `scope`, most memories first."""
        return self.run(calls.users(scope, limit))

    def list_memories(
        self,
        scope: str | None = None,
        *,
        kind: m.Kind | None = None,
        q: str | None = None,
        limit: int = 50,
        offset: str | None = None,
    ) -> m.MemoryPage:
        """One page of a scope's memories (id order), or those whose text contains `q`."""
        return self.run(calls.list_memories(scope, kind, q, limit, offset))

    def iter_memories(
        self, scope: str | None = None, *, kind: m.Kind | None = None
    ) -> Iterator[m.Memory]:
        """Every memory of a scope, page after page."""
        offset: str | None = None
        while True:
            page = self.list_memories(scope, kind=kind, limit=500, offset=offset)
            yield from page.items
            if not page.next:
                return
            offset = page.next

    def stats(self, scope: str | None = None) -> m.Stats:
        """Counts by tier, kind and scope (all scopes: admin token only)."""
        return self.run(calls.stats(scope))

    def bundle(self, scope: str, message: str, **options: Unpack[BundleOptions]) -> m.Bundle:
        """Memories for the message about to be sent, packed under `max_tokens`."""
        request = calls.build(m.BundleIn, {'scope': scope, 'message': message, **options})
        return self.run(calls.bundle(request))

    # ---- knowledge graph --------------------------------------------------------------------

    def kg_search(
        self, query: str, scope: str, **options: Unpack[GraphSearchOptions]
    ) -> m.KGSearchResponse:
        """Entities and facts valid at `as_of` (default now), with connecting paths."""
        request = calls.build(m.KGSearchRequest, {'query': query, 'scope': scope, **options})
        return self.run(calls.kg_search(request))

    def entity(self, entity_id: str, scope: str) -> m.EntityDetail:
        """One entity: aliases, current facts and the full fact history."""
        return self.run(calls.entity(entity_id, scope))

    def entities(self, scope: str, q: str | None = None, limit: int = 50) -> m.EntityList:
        """Live entities of a scope (name or alias containing `q`), most mentioned first."""
        return self.run(calls.entities(scope, q, limit))

    # ---- sessions, jobs, episodes -----------------------------------------------------------

    def complete_session(
        self,
        session_key: str,
        scope: str,
        messages: Sequence[m.SessionMessage | Mapping[str, Any]],
        **options: Unpack[SessionOptions],
    ) -> m.SessionAccepted:
        """Hand a finished session to consolidation (episode, graph facts, dreaming)."""
        data = {'scope': scope, 'messages': list(messages), **options}
        return self.run(calls.complete_session(session_key, calls.build(m.SessionIn, data)))

    def job(self, job_id: str) -> m.JobInfo:
        """A job's state: queued, running, done, failed or cancelled."""
        return self.run(calls.job(job_id))

    def jobs(self, scope: str | None = None, limit: int = 20) -> list[m.JobInfo]:
        """The newest jobs of a scope; without `scope` (admin token only), every job."""
        return self.run(calls.jobs(scope, limit))

    def wait_job(self, job_id: str, timeout: float = 60.0, poll: float = 0.2) -> m.JobInfo:
        """Poll a job until it is done, failed or cancelled; TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.job(job_id)
            if info.state in m.FINAL_JOB_STATES:
                return info
            if time.monotonic() > deadline:
                raise TimeoutError(f'job {job_id} still {info.state} after {timeout} s')
            time.sleep(poll)

    def episodes(self, scope: str, user_id: str | None = None, limit: int = 20) -> list[m.Episode]:
        """Live episodes of a scope, newest session first."""
        return self.run(calls.episodes(scope, user_id, limit))

    # ---- admin ------------------------------------------------------------------------------

    def export_count(self, scope: str | None = None) -> int:
        """How many records `export(scope)` would yield (admin token; a HEAD request)."""
        return self.run(calls.export_count(scope))

    def export(
        self, scope: str | None = None, *, redact: bool | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every memory record (all scopes, or one), streamed line by line (admin token).

        `redact`: None masks secret-looking spans (the service's default), True also emails and
        phone numbers, False nothing (what a re-import needs).
        """
        call = calls.export(scope, redact)
        try:
            with self._http.stream(call.method, call.path, params=call.params) as response:
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
        dedupe: m.Dedupe = 'id',
        dry_run: bool = False,
    ) -> m.ImportReport:
        """Import records (dicts, or JSONL lines) as one streamed request (admin token)."""
        return self.run(calls.import_records(records, dedupe, dry_run))

    def forget(self, *, scope: str | None = None, user_id: str | None = None) -> m.ForgetReport:
        """Forget a user, a scope, or a user within a scope, in every store (admin token)."""
        request = calls.build(m.ForgetIn, {'scope': scope, 'user_id': user_id})
        return self.run(calls.forget(request))

    def snapshot(self, scope: str) -> str:
        """Markdown of a scope's Core memories, with what `hydrate` needs (admin token)."""
        return self.run(calls.snapshot(scope))

    def hydrate(self, scope: str, markdown: str) -> m.HydrateReport:
        """Write a snapshot's memories (or plain Markdown's chunks) into `scope` (admin token)."""
        return self.run(
            calls.hydrate(calls.build(m.HydrateIn, {'scope': scope, 'markdown': markdown}))
        )

    # ---- documents, tokens, teams -----------------------------------------------------------

    def index_document(
        self, scope: str, path: str, markdown: str, *, user_id: str | None = None
    ) -> m.DocumentReport:
        """Index a Markdown document as chunks; unchanged chunks keep their embeddings."""
        data = {'scope': scope, 'path': path, 'markdown': markdown, 'user_id': user_id}
        return self.run(calls.index_document(calls.build(m.DocumentIn, data)))

    def delete_document(self, scope: str, path: str) -> m.DocumentDeleted:
        """Remove a document's chunks."""
        return self.run(calls.delete_document(scope, path))

    def create_token(self, agent_id: str, scopes: Sequence[str] = ()) -> m.TokenCreated:
        """A new agent token (admin token); its secret `token` is shown this once."""
        data = {'agent_id': agent_id, 'scopes': list(scopes)}
        return self.run(calls.create_token(calls.build(m.TokenIn, data)))

    def tokens(
        self, agent_id: str | None = None, *, include_revoked: bool = False
    ) -> list[m.Token]:
        """Agent tokens, without their secrets (admin token)."""
        return self.run(calls.tokens(agent_id, include_revoked))

    def revoke_token(self, token_id: str) -> m.TokenRevoked:
        """Revoke an agent token (admin token)."""
        return self.run(calls.revoke_token(token_id))

    def put_team(self, team_id: str, leader: str, members: Sequence[str]) -> m.Team:
        """Create or replace a team; members read the leader's memory as fallback (admin)."""
        data = {'leader': leader, 'members': list(members)}
        return self.run(calls.put_team(team_id, calls.build(m.TeamIn, data)))

    def team(self, team_id: str) -> m.Team:
        """A team, its members and the scope its leader reads."""
        return self.run(calls.team(team_id))

    def delete_team(self, team_id: str) -> m.Deleted:
        """Delete a team (admin token)."""
        return self.run(calls.delete_team(team_id))
