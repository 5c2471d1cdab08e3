"""`mnemos mcp` spoken to by the `mcp` client library: over stdio (a real subprocess) and over
streamable HTTP, against a real service on a loopback port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from api.client import MnemosClient
from api.mcp_server import TOOLS
from recall.schemas import SearchRequest
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('mcp-data')) as base:
        yield base


def stdio_params(url: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=['-m', 'api.cli', 'mcp', '--url', url],
        env={'KG_API_TOKEN': TOKEN, 'PYTHONPATH': str(ROOT)},
        cwd=str(ROOT),
    )


async def session_calls(server: Any, scope: str) -> dict[str, Any]:
    """List the tools, then add, search, get, bundle, graph-search and delete through them."""
    out: dict[str, Any] = {}
    async with Client(server, read_timeout_seconds=60) as client:
        out['tools'] = {t.name: t for t in (await client.list_tools()).tools}
        added = await client.call_tool(
            'memory_add', {'scope': scope, 'text': 'Remember that Dana works at Initech.'}
        )
        out['added'] = added
        memory_id = added.structured_content['stored'][0]['id']
        out['search'] = await client.call_tool(
            'memory_search', {'query': 'Where does Dana work?', 'scope': scope, 'top_k': 3}
        )
        out['get'] = await client.call_tool('memory_get', {'id': memory_id})
        out['bundle'] = await client.call_tool(
            'recall_bundle', {'scope': scope, 'message': 'Where does Dana work these days?'}
        )
        deadline = time.monotonic() + 30
        while True:
            graph = await client.call_tool(
                'knowledge_graph_search', {'query': 'Dana', 'scope': scope, 'hops': 1}
            )
            if graph.structured_content['facts'] or time.monotonic() > deadline:
                break
            await anyio.sleep(0.2)
        out['graph'] = graph
        out['bad'] = await client.call_tool('memory_search', {'query': '', 'scope': scope})
        out['delete'] = await client.call_tool('memory_delete', {'id': memory_id})
        out['gone'] = await client.call_tool('memory_get', {'id': memory_id})
    return out


def check_session(out: dict[str, Any], scope: str) -> None:
    tools = out['tools']
    assert set(tools) >= {
        'memory_search',
        'knowledge_graph_search',
        'memory_add',
        'memory_get',
        'memory_delete',
        'recall_bundle',
    }
    assert tools['memory_search'].input_schema == SearchRequest.model_json_schema()
    assert not out['added'].is_error
    hits = out['search'].structured_content['hits']
    assert hits[0]['text'] == 'Dana works at Initech'  # capture distils the turn
    assert out['search'].structured_content['receipt']['channels']
    assert out['get'].structured_content['scope'] == scope
    assert 'Initech' in out['bundle'].structured_content['text']
    facts = out['graph'].structured_content['facts']
    assert [(f['subject'], f['object']) for f in facts] == [('Dana', 'Initech')]
    assert out['bad'].is_error
    assert out['bad'].structured_content['details'][0]['loc'] == ['query']
    assert not out['delete'].is_error
    assert out['gone'].is_error and out['gone'].structured_content['status'] == 404


def test_stdio_session_lists_and_calls_every_tool(url: str) -> None:
    scope = f'agent:m{uuid.uuid4().hex[:10]}'
    out = anyio.run(session_calls, stdio_params(url), scope)
    check_session(out, scope)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


async def http_session_calls(mcp_url: str, scope: str) -> dict[str, Any]:
    """`session_calls` over streamable HTTP, with the admin token as this caller's bearer."""
    async with create_mcp_http_client(headers={'Authorization': f'Bearer {TOKEN}'}) as http:
        return await session_calls(streamable_http_client(mcp_url, http_client=http), scope)


def test_streamable_http_serves_the_same_tools(url: str) -> None:
    port = free_port()
    cmd = [sys.executable, '-m', 'api.cli', 'mcp', '--url', url, '--http', str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, 'mcp --http never up'
                time.sleep(0.1)
        scope = f'agent:h{uuid.uuid4().hex[:10]}'
        check_session(anyio.run(http_session_calls, f'http://127.0.0.1:{port}/mcp', scope), scope)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_every_tool_schema_is_its_request_model() -> None:
    for tool in TOOLS:
        assert tool.spec().input_schema == tool.model.model_json_schema()
        assert tool.spec().input_schema['type'] == 'object'
        assert tool.spec().output_schema == tool.output.model_json_schema(mode='serialization')


def test_service_errors_become_tool_errors(url: str) -> None:
    from api.mcp_server import call_tool

    with MnemosClient(url, 'not-a-token') as stranger:
        result = call_tool(stranger, 'memory_get', {'id': str(uuid.uuid4())})
    assert result.is_error and result.structured_content['status'] == 401
