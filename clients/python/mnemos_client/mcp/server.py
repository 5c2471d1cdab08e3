"""`mnemos mcp`: Mnemos as MCP tools, over stdio or streamable HTTP.

The tools are in `tools.py`; each call goes through the synchronous `Mnemos`. The
`mcp` package is async; asyncio stays in this module: the client runs in a worker thread per
call, and the rest of Mnemos never sees an event loop. Over HTTP, `http_auth.py` checks the
Host and each request's bearer token, and a call runs with the token of its request.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from pydantic import ValidationError

from mnemos_client import Mnemos, MnemosError, __version__
from mnemos_client.mcp.tools import NO_DEFAULTS, TOOLS, Caller, Defaults

SERVER_NAME = 'mnemos'


def _text(data: Any) -> list[types.ContentBlock]:
    return [types.TextContent(text=json.dumps(data, ensure_ascii=False, indent=1))]


def call_tool(
    caller: Caller | Mnemos, name: str, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    """Run one tool synchronously (a bare client: no defaults); bad input and service errors
    become `is_error` results the model can read and correct."""
    if isinstance(caller, Mnemos):
        caller = Caller(caller)
    tool = next((t for t in TOOLS if t.name == name), None)
    if tool is None:
        return types.CallToolResult(
            content=_text({'error': 'unknown_tool', 'tool': name}), is_error=True
        )
    try:
        request = tool.model.model_validate(arguments or {})
        answer = tool.call(caller, request)
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
        return _error_result(exc)
    data = answer.model_dump(mode='json')
    return types.CallToolResult(content=_text(data), structured_content=data)


def _error_result(exc: MnemosError) -> types.CallToolResult:
    error = {
        'error': exc.error,
        'status': exc.status,
        'message': exc.message,
        'details': exc.details,
    }
    return types.CallToolResult(content=_text(error), structured_content=error, is_error=True)


def build_server(caller_for: Callable[[Any], Caller]) -> Server[Any]:
    """The low-level MCP server (low-level: the schemas are ours, verbatim); `caller_for`
    gives who a call runs as from the HTTP request that carried it (None on stdio)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[t.spec() for t in TOOLS])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # the client is synchronous: run it (and the caller's lookup) off the event loop
        def run() -> types.CallToolResult:
            try:
                caller = caller_for(ctx.request)
            except MnemosError as exc:
                return _error_result(exc)
            return call_tool(caller, params.name, params.arguments)

        return await anyio.to_thread.run_sync(run)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions='Long-term memory of this agent: search before answering, add what lasts.',
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
    )


def run_stdio(url: str, token: str, defaults: Defaults = NO_DEFAULTS) -> int:
    """Serve over stdio with `token` until stdin closes. Without a default scope, an agent
    token's own scope is the default (asked of the service at the first call)."""
    # one log line per service call would drown the MCP client's stderr log
    logging.getLogger('httpx').setLevel(logging.WARNING)
    with Mnemos(url, token) as client:
        resolved: list[Caller] = []

        def caller_for(_request: Any) -> Caller:
            if not resolved:
                resolved.append(Caller(client, with_own_scope(defaults, _whoami(client))))
            return resolved[0]

        anyio.run(_serve_stdio, build_server(caller_for))
    return 0


def _whoami(client: Mnemos) -> str | None:
    scope = client.request('GET', '/v1/whoami').json().get('scope')
    return str(scope) if scope else None


def with_own_scope(defaults: Defaults, own_scope: str | None) -> Defaults:
    """`defaults` with the token's own scope as the scope when none was configured."""
    if defaults.scope is not None or own_scope is None:
        return defaults
    return Defaults(scope=own_scope, user_id=defaults.user_id)


def run_http(
    url: str,
    port: int,
    *,
    host: str = '127.0.0.1',
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
    defaults: Defaults = NO_DEFAULTS,
) -> int:
    """Serve streamable HTTP on `host:port` until stopped: each request needs its own bearer
    token (see `http_auth.py`), and every call runs with it."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from mnemos_client.mcp.http_auth import (
        Gatekeeper,
        TokenVerifier,
        allowed_hosts,
        allowed_origins,
        caller_token,
    )

    logging.getLogger('httpx').setLevel(logging.WARNING)
    verifier = TokenVerifier(url)

    def caller_for(request: Any) -> Caller:
        token = caller_token(request)
        identity = verifier.identity(token)
        own = identity.scope if identity is not None else None
        return Caller(verifier.client(token), with_own_scope(defaults, own))

    server = build_server(caller_for)
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
