"""`mnemos mcp`: Mnemos as MCP tools, over stdio or streamable HTTP.

Each tool's input schema is the JSON schema of the pydantic model the HTTP API validates with
(`SearchRequest`, `KGSearchRequest`, `CaptureIn`, `BundleIn`, `MemoryIn`), and each call goes
through the synchronous `MnemosClient`. The `mcp` package is async; asyncio stays in this module:
the client runs in a worker thread per call, and the rest of Mnemos never sees an event loop.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from api.capture import BundleIn, CaptureIn
from api.client import UUID_PATTERN, Bundle, CaptureResult, MnemosClient, MnemosError, WriteResult
from kg.models import KGSearchRequest, KGSearchResponse
from recall.schemas import ChunkOut, MemoryIn, SearchRequest, SearchResponse

SERVER_NAME = 'mnemos'


class MemoryRef(BaseModel):
    """One memory by id."""

    model_config = ConfigDict(extra='forbid')

    id: str = Field(
        pattern=UUID_PATTERN, description='the memory id (a uuid) from a search or a write'
    )


class Deleted(BaseModel):
    """`memory_delete`: the id that is gone."""

    deleted: str


@dataclass(frozen=True)
class MnemosTool:
    """An MCP tool: its input and output models and the client call that answers it."""

    name: str
    description: str
    model: type[BaseModel]
    output: type[BaseModel]
    call: Callable[[MnemosClient, Any], BaseModel]
    read_only: bool = True

    def spec(self) -> types.Tool:
        """The tool as `tools/list` shows it."""
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.model.model_json_schema(),
            output_schema=self.output.model_json_schema(mode='serialization'),
            annotations=types.ToolAnnotations(
                read_only_hint=self.read_only, destructive_hint=self.name == 'memory_delete'
            ),
        )


def _deleted(client: MnemosClient, ref: MemoryRef) -> Deleted:
    client.delete(ref.id)
    return Deleted(deleted=ref.id)


TOOLS: tuple[MnemosTool, ...] = (
    MnemosTool(
        'memory_search',
        'Hybrid search of long-term memory (dense + BM25 + knowledge-graph channels, fused). '
        'Returns the hits best first and a receipt: the top ids of each channel and the scopes '
        'read.',
        SearchRequest,
        SearchResponse,
        lambda c, req: c.search(req),
    ),
    MnemosTool(
        'knowledge_graph_search',
        'Search the temporal knowledge graph: entities, facts valid at `as_of` (default now) '
        'with their validity window and source, and the paths connecting them.',
        KGSearchRequest,
        KGSearchResponse,
        lambda c, req: c.kg_search(req),
    ),
    MnemosTool(
        'memory_add',
        'Offer a conversation turn for long-term memory: durable facts, preferences and '
        'decisions are distilled and stored (deduplicated); chit-chat is skipped with a reason.',
        CaptureIn,
        CaptureResult,
        lambda c, req: c.capture(**req.model_dump(exclude_unset=True)),
        read_only=False,
    ),
    MnemosTool(
        'memory_remember',
        'Store one memory verbatim (no distillation), with its kind, importance, tags and '
        'metadata.',
        MemoryIn,
        WriteResult,
        lambda c, req: c.remember(req),
        read_only=False,
    ),
    MnemosTool(
        'memory_get',
        'Read one memory by id.',
        MemoryRef,
        ChunkOut,
        lambda c, ref: c.get(ref.id),
    ),
    MnemosTool(
        'memory_delete',
        'Delete one memory by id.',
        MemoryRef,
        Deleted,
        _deleted,
        read_only=False,
    ),
    MnemosTool(
        'recall_bundle',
        'Memories relevant to the message about to be answered, packed under a token budget as '
        'one text block to put in the prompt for this turn only.',
        BundleIn,
        Bundle,
        lambda c, req: c.bundle(**req.model_dump(exclude_unset=True)),
    ),
)


def _text(data: Any) -> list[types.ContentBlock]:
    return [types.TextContent(text=json.dumps(data, ensure_ascii=False, indent=1))]


def call_tool(
    client: MnemosClient, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    """Run one tool synchronously; bad input and service errors become `is_error` results the
    model can read and correct."""
    tool = next((t for t in TOOLS if t.name == name), None)
    if tool is None:
        return types.CallToolResult(
            content=_text({'error': 'unknown_tool', 'tool': name}), is_error=True
        )
    try:
        request = tool.model.model_validate(arguments or {})
        answer = tool.call(client, request)
    except ValidationError as exc:
        details = [
            {'loc': list(e['loc']), 'msg': e['msg'], 'type': e['type']}
            for e in exc.errors(include_url=False, include_context=False, include_input=False)
        ]
        error: dict[str, Any] = {
            'error': 'invalid_request',
            'message': f'invalid arguments for {name}',
            'details': details,
        }
        return types.CallToolResult(content=_text(error), structured_content=error, is_error=True)
    except MnemosError as exc:
        error = {
            'error': exc.error,
            'status': exc.status,
            'message': exc.message,
            'details': exc.details,
        }
        return types.CallToolResult(content=_text(error), structured_content=error, is_error=True)
    data = answer.model_dump(mode='json')
    return types.CallToolResult(content=_text(data), structured_content=data)


def build_server(client_for: Callable[[Any], MnemosClient]) -> Server[Any]:
    """The low-level MCP server (low-level: the schemas are ours, verbatim); `client_for`
    gives the client a call runs with from the HTTP request that carried it (None on stdio)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[t.spec() for t in TOOLS])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        client = client_for(ctx.request)
        # the client is synchronous: run it off the event loop
        return await anyio.to_thread.run_sync(call_tool, client, params.name, params.arguments)

    from api.version import version

    return Server(
        SERVER_NAME,
        version=version(),
        instructions='Long-term memory of this agent: search before answering, add what lasts.',
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
    )


def run_stdio(url: str, token: str) -> int:
    """Serve over stdio with `token` until stdin closes."""
    # one log line per service call would drown the MCP client's stderr log
    logging.getLogger('httpx').setLevel(logging.WARNING)
    with MnemosClient(url, token) as client:
        anyio.run(_serve_stdio, build_server(lambda _request: client))
    return 0


def run_http(
    url: str,
    port: int,
    *,
    host: str = '127.0.0.1',
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> int:
    """Serve streamable HTTP on `host:port` until stopped: each request needs its own bearer
    token (see api/mcp_http.py), and every call runs with it."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from api.mcp_http import Gatekeeper, TokenVerifier, allowed_hosts, allowed_origins, caller_token

    logging.getLogger('httpx').setLevel(logging.WARNING)
    verifier = TokenVerifier(url)
    server = build_server(lambda request: verifier.client(caller_token(request)))
    hosts = allowed_hosts(host, allow_hosts)
    origins = allowed_origins(hosts, allow_origins)
    # the SDK's own Host/Origin check stays on too, with the same lists
    security = TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)
    app = server.streamable_http_app(host=host, transport_security=security)
    try:
        uvicorn.run(
            Gatekeeper(app, verifier, hosts=hosts, origins=origins),
            host=host,
            port=port,
            log_level='warning',
        )
    finally:
        verifier.close()
    return 0


async def _serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
