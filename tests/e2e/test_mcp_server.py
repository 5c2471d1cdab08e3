"""`mnemos mcp` spoken to by the `mcp` client library: over stdio (a real subprocess) and over
streamable HTTP, against a real service on a loopback port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mnemos_client import Mnemos
from mnemos_client.mcp.tools import TOOLS
from tests.live import TOKEN, listening, live_service
from tests.waiting import DEADLINE_S, wait_until, wait_until_async

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# the size of the tool list an LLM reads: 26,891 bytes before the tools were made for a model
MAX_TOOLS_LIST_BYTES = 26_891 // 2


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('mcp-data')) as base:
        yield base


def stdio_params(url: str, env: dict[str, str], *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=['-m', 'api.cli', 'mcp', '--url', url, *args],
        env={'PYTHONPATH': str(ROOT), **env},
        cwd=str(ROOT),
    )


async def session_calls(server: Any, where: dict[str, str]) -> dict[str, Any]:
    """List the tools, then add, search, get, bundle, graph-search and delete through them;
    `where` is the scope argument ({} when the server has a default scope)."""
    out: dict[str, Any] = {}
    async with Client(server, read_timeout_seconds=60) as client:
        out['tools'] = {t.name: t for t in (await client.list_tools()).tools}
        added = await client.call_tool(
            'memory_add', {**where, 'text': 'Remember that Dana works at Initech.'}
        )
        out['added'] = added
        memory_id = added.structured_content['stored'][0]['id']
        out['search'] = await client.call_tool(
            'memory_search', {**where, 'query': 'Where does Dana work?', 'top_k': 3}
        )
        out['get'] = await client.call_tool('memory_get', {'id': memory_id})
        out['bundle'] = await client.call_tool(
            'recall_bundle', {**where, 'message': 'Where does Dana work these days?'}
        )

        async def graph() -> Any:
            found = await client.call_tool('knowledge_graph_search', {**where, 'query': 'Dana'})
            return found if found.structured_content['facts'] else None

        # graph extraction runs as a job
        out['graph'] = await wait_until_async(graph, 'the graph never saw where Dana works', 120)
        out['bad'] = await client.call_tool('memory_search', {**where, 'query': ''})
        out['knob'] = await client.call_tool(
            'memory_search', {**where, 'query': 'Dana', 'fusion': 'rrf'}
        )
        out['delete'] = await client.call_tool('memory_delete', {'id': memory_id})
        out['gone'] = await client.call_tool('memory_get', {'id': memory_id})
    return out


def check_session(out: dict[str, Any], scope: str) -> None:
    tools = out['tools']
    assert set(tools) == {t.name for t in TOOLS}
    for tool in TOOLS:
        assert tools[tool.name].input_schema == tool.input_schema()
    assert not out['added'].is_error
    hits = out['search'].structured_content['hits']
    assert hits[0]['text'] == 'Dana works at Initech'  # capture distils the turn
    assert out['get'].structured_content['scope'] == scope
    assert 'Initech' in out['bundle'].structured_content['text']
    facts = out['graph'].structured_content['facts']
    assert [(f['subject'], f['object']) for f in facts] == [('Dana', 'Initech')]
    assert out['bad'].is_error
    assert out['bad'].structured_content['details'][0]['loc'] == ['query']
    # ranking knobs are not tool arguments
    assert out['knob'].is_error
    assert out['knob'].structured_content['details'][0]['loc'] == ['fusion']
    assert not out['delete'].is_error
    assert out['gone'].is_error and out['gone'].structured_content['status'] == 404


def test_stdio_session_needs_no_scope_argument(url: str) -> None:
    scope = f'agent:m{uuid.uuid4().hex[:10]}'
    params = stdio_params(url, {'KG_API_TOKEN': TOKEN, 'MNEMOS_SCOPE': scope})
    out = anyio.run(session_calls, params, {})
    check_session(out, scope)


def test_the_client_package_serves_the_same_session_without_the_server_cli(url: str) -> None:
    # `python -m mnemos_client.mcp`: URL and token from the client's own variables
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    params = StdioServerParameters(
        command=sys.executable,
        args=['-m', 'mnemos_client.mcp', '--scope', scope],
        env={'PYTHONPATH': str(ROOT), 'MNEMOS_URL': url, 'MNEMOS_API_KEY': TOKEN},
        cwd=str(ROOT),
    )
    out = anyio.run(session_calls, params, {})
    check_session(out, scope)


def test_the_client_package_without_a_token_says_how_to_give_one(url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(('KG_', 'MNEMOS_'))}
    ran = subprocess.run(
        [sys.executable, '-m', 'mnemos_client.mcp', '--url', url],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert ran.returncode != 0
    assert 'no token: pass --token, or set MNEMOS_API_KEY' in ran.stderr


def test_stdio_reads_the_token_file_and_takes_scope_and_user_flags(
    url: str, tmp_path: Path
) -> None:
    (tmp_path / 'api_token').write_text(TOKEN + '\n', encoding='utf-8')
    scope = f'agent:u{uuid.uuid4().hex[:10]}'
    params = stdio_params(url, {'KG_DATA_DIR': str(tmp_path)}, '--scope', scope, '--user', 'ann')

    async def calls() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params, read_timeout_seconds=60) as client:
            written = await client.call_tool(
                'memory_remember', {'text': 'Ann keeps bees in the garden', 'kind': 'fact'}
            )
            out['written'] = written
            ident = written.structured_content['id']
            out['update'] = await client.call_tool(
                'memory_update', {'id': ident, 'text': 'Ann keeps bees on the roof'}
            )
            out['pin'] = await client.call_tool('memory_pin', {'id': ident})
            out['list'] = await client.call_tool('memory_list', {})
            out['unpin'] = await client.call_tool('memory_unpin', {'id': ident})
            out['unconfirmed'] = await client.call_tool('forget_my_data', {})
            out['forget'] = await client.call_tool('forget_my_data', {'confirm': True})
            out['after'] = await client.call_tool('memory_list', {})
        return out

    out = anyio.run(calls)
    assert not out['written'].is_error
    assert out['update'].structured_content['text'] == 'Ann keeps bees on the roof'
    assert out['update'].structured_content['user_id'] == 'ann'
    assert out['pin'].structured_content['pinned'] is True
    listed = out['list'].structured_content['items']
    assert [(m['text'], m['scope']) for m in listed] == [('Ann keeps bees on the roof', scope)]
    assert out['unpin'].structured_content['pinned'] is False
    assert out['unconfirmed'].is_error
    assert out['forget'].structured_content['memories'] == 1
    assert out['after'].structured_content['items'] == []


def test_without_any_default_scope_the_tool_error_names_scope(url: str) -> None:
    params = stdio_params(url, {'KG_API_TOKEN': TOKEN})

    async def calls() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool('memory_search', {'query': 'anything'})

    result = anyio.run(calls)
    assert result.is_error
    assert result.structured_content['details'][0]['loc'] == ['scope']


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


async def http_session_calls(mcp_url: str, token: str, where: dict[str, str]) -> dict[str, Any]:
    """`session_calls` over streamable HTTP, with `token` as this caller's bearer."""
    async with create_mcp_http_client(headers={'Authorization': f'Bearer {token}'}) as http:
        return await session_calls(streamable_http_client(mcp_url, http_client=http), where)


def test_streamable_http_serves_the_same_tools_with_the_callers_own_scope(url: str) -> None:
    agent = f'h{uuid.uuid4().hex[:10]}'
    with Mnemos(url, TOKEN) as admin:
        token = admin.request('POST', '/v1/tokens', json={'agent_id': agent}).json()['token']
    port = free_port()
    cmd = [sys.executable, '-m', 'api.cli', 'mcp', '--url', url, '--http', str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        wait_until(lambda: listening(proc, port), 'mcp --http never listened', 2 * DEADLINE_S)
        # an agent token's own scope is the default: no scope argument
        mcp_url = f'http://127.0.0.1:{port}/mcp'
        check_session(anyio.run(http_session_calls, mcp_url, token, {}), f'agent:{agent}')
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)


def test_tool_schemas_are_compact_and_described() -> None:
    specs = [t.spec().model_dump(mode='json', by_alias=True, exclude_none=True) for t in TOOLS]
    size = len(json.dumps({'tools': specs}, separators=(',', ':')))
    assert size <= MAX_TOOLS_LIST_BYTES, size
    for spec in specs:
        assert spec['inputSchema']['type'] == 'object'
        for name, prop in spec['inputSchema']['properties'].items():
            assert prop.get('description'), (spec['name'], name)
        for name in ('fusion', 'weights', 'touch', 'explain', 'min_score', 'mode', 'hops'):
            assert name not in spec['inputSchema']['properties'], (spec['name'], name)
        if 'scope' in spec['inputSchema']['properties']:
            assert spec['inputSchema']['properties']['scope']['pattern'].startswith('^(global|')
            assert 'scope' not in spec['inputSchema'].get('required', [])


def test_service_errors_become_tool_errors(url: str) -> None:
    from mnemos_client.mcp.server import call_tool

    with Mnemos(url, 'not-a-token') as stranger:
        result = call_tool(stranger, 'memory_get', {'id': str(uuid.uuid4())})
    assert result.is_error and result.structured_content['status'] == 401


def test_i_in_a_graph_question_is_the_servers_default_user(url: str) -> None:
    from mnemos_client.mcp.server import call_tool
    from mnemos_client.mcp.tools import Caller, Defaults

    scope = f'agent:g{uuid.uuid4().hex[:10]}'
    question = {'query': 'Where do I work?'}
    with Mnemos(url, TOKEN) as client:
        client.remember(scope, 'I work at Initech.', user_id='maya')
        client.remember(scope, 'I work at Globex.', user_id='omar')
        omar = Caller(client, Defaults(scope=scope, user_id='omar'))

        def answered() -> Any:  # graph extraction runs as jobs; an error fails below
            found = call_tool(omar, 'knowledge_graph_search', question)
            return found if found.is_error or found.structured_content['facts'] else None

        found = wait_until(answered, 'the graph never answered where Omar works', 120)
        anyone = call_tool(
            Caller(client, Defaults(scope=scope)), 'knowledge_graph_search', question
        )
    objects = {f['object'] for f in found.structured_content['facts']}
    assert 'Globex' in objects and 'Initech' not in objects, objects
    assert found.structured_content['warnings'] == []
    # two users and no default: the model reads why "I" found nothing
    [warning] = anyone.structured_content['warnings']
    assert 'user_id' in warning and 'maya' in warning and 'omar' in warning, warning
