"""`AsyncMnemos`: the asyncio client (httpx); the same calls as `Mnemos`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from typing_extensions import Unpack

from mnemos_client import _calls as calls
from mnemos_client import models as m
from mnemos_client.client import client_headers
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


class AsyncMnemos:
    """Client of one Mnemos service.

    `url` defaults to `MNEMOS_URL` (or `KG_URL`), else http://127.0.0.1:8765; `token` to
    `MNEMOS_API_KEY`, `MNEMOS_TOKEN` or `KG_API_TOKEN`. Every failure raises a `MnemosError`.

        async with AsyncMnemos() as mnemos:
            await mnemos.remember('agent:main', 'Alice prefers green tea', kind='preference')
            for hit in (await mnemos.search('what does Alice drink?', 'agent:main')).hits:
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
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = calls.resolve_url(url)
        self.retry = retry or Retry()
        self._http = httpx.AsyncClient(
            base_url=self.url,
            headers=client_headers(calls.resolve_token(token), headers),
            timeout=timeout,
            transport=transport,
        )

    # ---- plumbing ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def run(self, call: calls.Call[T]) -> T:
        """Send one call (with retries) and read its answer."""
        return call.read(await self._send(call))

    async def request(
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
        return await self._send(call)

    async def _send(self, call: calls.Call[Any]) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
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
                await response.aclose()
            await asyncio.sleep(wait)
            attempt += 1

    # ---- service ----------------------------------------------------------------------------

    async def health(self) -> m.Health:
        """`GET /healthz` (no token needed)."""
        return await self.run(calls.health())

    async def ready(self) -> m.Ready:
        """`GET /readyz`: every store answers (503, raised as `ServerError`, when one does not)."""
        return await self.run(calls.ready())

    async def whoami(self) -> m.WhoAmI:
        """Who the token stands for: admin, or an agent with its own scope and granted ones."""
        return await self.run(calls.whoami())

    # ---- memories ---------------------------------------------------------------------------

    async def remember(
        self, scope: str, text: str, **options: Unpack[MemoryOptions]
    ) -> m.WriteResult:
        """Write one memory: 'created', 'merged' into an equal one, or 'skipped' with a reason."""
        item = calls.build(m.MemoryIn, {'scope': scope, 'text': text, **options})
        return await self.run(calls.remember(item))

    async def remember_batch(
        self, items: Sequence[m.MemoryIn | Mapping[str, Any]]
    ) -> m.BatchResult:
        """Write many memories; each item gets its own result or error (validated here first)."""
        return await self.run(calls.remember_batch(items))

    async def capture(
        self, scope: str, text: str, **options: Unpack[CaptureOptions]
    ) -> m.CaptureResult:
        """Offer a conversation turn: durable facts are distilled and stored, the rest skipped."""
        request = calls.build(m.CaptureIn, {'scope': scope, 'text': text, **options})
        return await self.run(calls.capture(request))

    async def search(
        self, query: str, scope: str, **options: Unpack[SearchOptions]
    ) -> m.SearchResponse:
        """Hybrid recall over dense, BM25, graph and context channels, with a receipt."""
        request = calls.build(m.SearchRequest, {'query': query, 'scope': scope, **options})
        return await self.run(calls.search(request))

    async def get(self, memory_id: str) -> m.Memory:
        """One memory by id."""
        return await self.run(calls.get(memory_id))

    async def delete(self, memory_id: str) -> m.Deleted:
        """Delete one memory (and the graph facts only it said)."""
        return await self.run(calls.delete(memory_id))

    async def pin(self, memory_id: str) -> m.Memory:
        """Pin: the memory becomes Core and is never demoted."""
        return await self.run(calls.pin(memory_id, True))

    async def unpin(self, memory_id: str) -> m.Memory:
        """Unpin: the memory decays again."""
        return await self.run(calls.pin(memory_id, False))

    async def update(self, memory_id: str, **changes: Unpack[MemoryChanges]) -> m.Memory:
        """Edit a memory (`text`, `tags`, `importance`, `pinned`, `metadata`, and a `reason`);
        the state it replaces is kept in its history, a new text is embedded and extracted anew."""
        return await self.run(calls.update(memory_id, calls.build(m.MemoryPatch, changes)))

    async def history(self, memory_id: str) -> m.MemoryHistory:
        """A memory's versions, the writes merged into it and what superseded it (and why)."""
        return await self.run(calls.history(memory_id))

    async def users(self, scope: str, limit: int = 100) -> m.UserList:
        """The users with memories in `scope`, most memories first."""
        return await self.run(calls.users(scope, limit))

    async def list_memories(
        self,
        scope: str | None = None,
        *,
        kind: m.Kind | None = None,
        q: str | None = None,
        limit: int = 50,
        offset: str | None = None,
    ) -> m.MemoryPage:
        """One page of a scope's memories (id order), or those whose text contains `q`."""
        return await self.run(calls.list_memories(scope, kind, q, limit, offset))

    async def iter_memories(
        self, scope: str | None = None, *, kind: m.Kind | None = None
    ) -> AsyncIterator[m.Memory]:
        """Every memory of a scope, page after page."""
        offset: str | None = None
        while True:
            page = await self.list_memories(scope, kind=kind, limit=500, offset=offset)
            for item in page.items:
                yield item
            if not page.next:
                return
            offset = page.next

    async def stats(self, scope: str | None = None) -> m.Stats:
        """Counts by tier, kind and scope (all scopes: admin token only)."""
        return await self.run(calls.stats(scope))

    async def bundle(self, scope: str, message: str, **options: Unpack[BundleOptions]) -> m.Bundle:
        """Memories for the message about to be sent, packed under `max_tokens`."""
        request = calls.build(m.BundleIn, {'scope': scope, 'message': message, **options})
        return await self.run(calls.bundle(request))

    # ---- knowledge graph --------------------------------------------------------------------

    async def kg_search(
        self, query: str, scope: str, **options: Unpack[GraphSearchOptions]
    ) -> m.KGSearchResponse:
        """Entities and facts valid at `as_of` (default now), with connecting paths."""
        request = calls.build(m.KGSearchRequest, {'query': query, 'scope': scope, **options})
        return await self.run(calls.kg_search(request))

    async def entity(self, entity_id: str, scope: str) -> m.EntityDetail:
        """One entity: aliases, current facts and the full fact history."""
        return await self.run(calls.entity(entity_id, scope))

    async def entities(self, scope: str, q: str | None = None, limit: int = 50) -> m.EntityList:
        """Live entities of a scope (name or alias containing `q`), most mentioned first."""
        return await self.run(calls.entities(scope, q, limit))

    # ---- sessions, jobs, episodes -----------------------------------------------------------

    async def complete_session(
        self,
        session_key: str,
        scope: str,
        messages: Sequence[m.SessionMessage | Mapping[str, Any]],
        **options: Unpack[SessionOptions],
    ) -> m.SessionAccepted:
        """Hand a finished session to consolidation (episode, graph facts, dreaming)."""
        data = {'scope': scope, 'messages': list(messages), **options}
        return await self.run(calls.complete_session(session_key, calls.build(m.SessionIn, data)))

    async def job(self, job_id: str) -> m.JobInfo:
        """A job's state: queued, running, done, failed or cancelled."""
        return await self.run(calls.job(job_id))

    async def jobs(self, scope: str | None = None, limit: int = 20) -> list[m.JobInfo]:
        """The newest jobs of a scope; without `scope` (admin token only), every job."""
        return await self.run(calls.jobs(scope, limit))

    async def wait_job(self, job_id: str, timeout: float = 60.0, poll: float = 0.2) -> m.JobInfo:
        """Poll a job until it is done, failed or cancelled; TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            info = await self.job(job_id)
            if info.state in m.FINAL_JOB_STATES:
                return info
            if time.monotonic() > deadline:
                raise TimeoutError(f'job {job_id} still {info.state} after {timeout} s')
            await asyncio.sleep(poll)

    async def episodes(
        self, scope: str, user_id: str | None = None, limit: int = 20
    ) -> list[m.Episode]:
        """Live episodes of a scope, newest session first."""
        return await self.run(calls.episodes(scope, user_id, limit))

    # ---- admin ------------------------------------------------------------------------------

    async def export_count(self, scope: str | None = None) -> int:
        """How many records `export(scope)` would yield (admin token; a HEAD request)."""
        return await self.run(calls.export_count(scope))

    async def export(
        self, scope: str | None = None, *, redact: bool | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every memory record (all scopes, or one), streamed line by line (admin token).

        `redact`: None masks secret-looking spans (the service's default), True also emails and
        phone numbers, False nothing (what a re-import needs).
        """
        call = calls.export(scope, redact)
        try:
            async with self._http.stream(call.method, call.path, params=call.params) as response:
                if response.is_error:
                    await response.aread()
                    raise error_from_response(response)
                async for line in response.aiter_lines():
                    if line.strip():
                        yield json.loads(line)
        except httpx.HTTPError as exc:
            raise ConnectionFailed(0, 'connection_failed', f'{self.url}: {exc}') from exc

    async def import_records(
        self,
        records: Iterable[Mapping[str, Any] | str | bytes],
        *,
        dedupe: m.Dedupe = 'id',
        dry_run: bool = False,
    ) -> m.ImportReport:
        """Import records (dicts, or JSONL lines) as one streamed request (admin token)."""
        return await self.run(calls.import_records(records, dedupe, dry_run))

    async def forget(
        self, *, scope: str | None = None, user_id: str | None = None
    ) -> m.ForgetReport:
        """Forget a user, a scope, or a user within a scope, in every store (admin token)."""
        request = calls.build(m.ForgetIn, {'scope': scope, 'user_id': user_id})
        return await self.run(calls.forget(request))

    async def snapshot(self, scope: str) -> str:
        """Markdown of a scope's Core memories, with what `hydrate` needs (admin token)."""
        return await self.run(calls.snapshot(scope))

    async def hydrate(self, scope: str, markdown: str) -> m.HydrateReport:
        """Write a snapshot's memories (or plain Markdown's chunks) into `scope` (admin token)."""
        return await self.run(
            calls.hydrate(calls.build(m.HydrateIn, {'scope': scope, 'markdown': markdown}))
        )

    # ---- documents, tokens, teams -----------------------------------------------------------

    async def index_document(
        self, scope: str, path: str, markdown: str, *, user_id: str | None = None
    ) -> m.DocumentReport:
        """Index a Markdown document as chunks; unchanged chunks keep their embeddings."""
        data = {'scope': scope, 'path': path, 'markdown': markdown, 'user_id': user_id}
        return await self.run(calls.index_document(calls.build(m.DocumentIn, data)))

    async def delete_document(self, scope: str, path: str) -> m.DocumentDeleted:
        """Remove a document's chunks."""
        return await self.run(calls.delete_document(scope, path))

    async def create_token(self, agent_id: str, scopes: Sequence[str] = ()) -> m.TokenCreated:
        """A new agent token (admin token); its secret `token` is shown this once."""
        data = {'agent_id': agent_id, 'scopes': list(scopes)}
        return await self.run(calls.create_token(calls.build(m.TokenIn, data)))

    async def tokens(
        self, agent_id: str | None = None, *, include_revoked: bool = False
    ) -> list[m.Token]:
        """Agent tokens, without their secrets (admin token)."""
        return await self.run(calls.tokens(agent_id, include_revoked))

    async def revoke_token(self, token_id: str) -> m.TokenRevoked:
        """Revoke an agent token (admin token)."""
        return await self.run(calls.revoke_token(token_id))

    async def put_team(self, team_id: str, leader: str, members: Sequence[str]) -> m.Team:
        """Create or replace a team; members read the leader's memory as fallback (admin)."""
        data = {'leader': leader, 'members': list(members)}
        return await self.run(calls.put_team(team_id, calls.build(m.TeamIn, data)))

    async def team(self, team_id: str) -> m.Team:
        """A team, its members and the scope its leader reads."""
        return await self.run(calls.team(team_id))

    async def delete_team(self, team_id: str) -> m.Deleted:
        """Delete a team (admin token)."""
        return await self.run(calls.delete_team(team_id))
