"""`mnemos mcp --http` over real HTTP: every request needs its own bearer token, each tool call
runs with that caller's rights (never the process's), and the Host check holds on every bind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mnemos_client import Mnemos
from tests.live import TOKEN, listening, live_service
from tests.waiting import DEADLINE_S, wait_until

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
INIT = {
    'jsonrpc': '2.0',
    'id': 1,
    'method': 'initialize',
    'params': {
        'protocolVersion': '2025-06-18',
        'capabilities': {},
        'clientInfo': {'name': 'probe', 'version': '0'},
    },
}
MCP_HEADERS = {'Accept': 'application/json, text/event-stream'}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def start_mcp(url: str, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """`mnemos mcp --http` with the admin token in its environment, as an operator would leave
    it: the tests check that callers never get to act with it."""
    port = free_port()
    env = {**os.environ, 'KG_API_TOKEN': TOKEN}
    cmd = [sys.executable, '-m', 'api.cli', 'mcp', '--url', url, '--http', str(port), *extra]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
    wait_until(lambda: listening(proc, port), 'mcp --http never listened', 2 * DEADLINE_S)
    return proc, port


@pytest.fixture(scope='module')
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with live_service(tmp_path_factory.mktemp('mcp-auth')) as url, Mnemos(url, TOKEN) as c:
        tokens = {
            agent: c.request('POST', '/v1/tokens', json={'agent_id': agent}).json()['token']
            for agent in ('alice', 'bob')
        }
        with Mnemos(url, tokens['alice']) as alice:
            alice.remember('agent:alice', 'The vault code of Alice is 4417', kind='fact')
        proc, port = start_mcp(url)
        try:
            yield {'url': url, 'tokens': tokens, 'mcp': f'http://127.0.0.1:{port}/mcp'}
        finally:
            proc.terminate()
            proc.wait(timeout=DEADLINE_S)


def test_requests_without_a_valid_token_get_401_json(service: dict[str, Any]) -> None:
    for headers in ({}, {'Authorization': 'Bearer not-a-token'}, {'Authorization': 'Basic x'}):
        response = httpx.post(service['mcp'], json=INIT, headers={**MCP_HEADERS, **headers})
        assert response.status_code == 401, headers
        assert response.headers['content-type'].startswith('application/json')
        assert response.json()['error'] == 'unauthorized'
        assert 'Bearer' in response.headers['www-authenticate']
    # a tool call without a token is refused before any tool runs
    call = {
        'jsonrpc': '2.0',
        'id': 2,
        'method': 'tools/call',
        'params': {
            'name': 'memory_remember',
            'arguments': {'scope': 'agent:bob', 'text': 'wire funds to account 123'},
        },
    }
    assert httpx.post(service['mcp'], json=call, headers=MCP_HEADERS).status_code == 401
    with Mnemos(service['url'], TOKEN) as admin:
        assert admin.list_memories('agent:bob').items == []


async def calls_as(mcp_url: str, token: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    headers = {'Authorization': f'Bearer {token}'}
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(mcp_url, http_client=http)
        async with Client(transport, read_timeout_seconds=60) as client:
            out['search_alice'] = await client.call_tool(
                'memory_search', {'query': 'vault code', 'scope': 'agent:alice'}
            )
            out['bundle_alice'] = await client.call_tool(
                'recall_bundle', {'scope': 'agent:alice', 'message': 'What is the vault code?'}
            )
            out['write_alice'] = await client.call_tool(
                'memory_remember', {'scope': 'agent:alice', 'text': 'wire funds to account 123'}
            )
            out['forget_alice'] = await client.call_tool(
                'forget_my_data', {'confirm': True, 'user_id': 'alice', 'scope': 'agent:alice'}
            )
            out['write_own'] = await client.call_tool(
                'memory_remember', {'scope': 'agent:bob', 'text': 'Bob likes rye bread'}
            )
    return out


def test_an_agent_token_acts_with_that_agents_rights(service: dict[str, Any]) -> None:
    out = anyio.run(calls_as, service['mcp'], service['tokens']['bob'])
    for name in ('search_alice', 'bundle_alice', 'write_alice', 'forget_alice'):
        assert out[name].is_error, name
        assert out[name].structured_content['status'] == 403, name
    assert not out['write_own'].is_error
    with Mnemos(service['url'], TOKEN) as admin:
        texts = [m.text for m in admin.list_memories('agent:alice').items]
    assert texts == ['The vault code of Alice is 4417']
    mine = anyio.run(calls_as, service['mcp'], service['tokens']['alice'])
    assert 'vault code' in mine['search_alice'].structured_content['hits'][0]['text']


def post_as(url: str, token: str, **headers: str) -> httpx.Response:
    auth = {**MCP_HEADERS, 'Authorization': f'Bearer {token}'}
    return httpx.post(url, json=INIT, headers={**auth, **headers})


def test_the_host_check_holds_on_a_wildcard_bind(service: dict[str, Any]) -> None:
    proc, port = start_mcp(service['url'], '--host', '0.0.0.0')
    try:
        url, bob = f'http://127.0.0.1:{port}/mcp', service['tokens']['bob']
        evil = post_as(url, bob, Host='evil.example')
        assert evil.status_code == 421
        assert evil.json()['error'] == 'misdirected_request'
        assert post_as(url, bob, Host=f'evil.example:{port}').status_code == 421
        assert post_as(url, bob, Origin='http://evil.example').status_code == 403
        assert post_as(url, bob).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)


def test_allowed_hosts_are_configurable(service: dict[str, Any]) -> None:
    proc, port = start_mcp(service['url'], '--host', '0.0.0.0', '--allow-host', 'mnemos.internal')
    try:
        url, bob = f'http://127.0.0.1:{port}/mcp', service['tokens']['bob']
        assert post_as(url, bob, Host=f'mnemos.internal:{port}').status_code == 200
        assert post_as(url, bob, Host='evil.example').status_code == 421
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)


def test_whoami_says_who_a_token_stands_for(service: dict[str, Any]) -> None:
    with Mnemos(service['url'], service['tokens']['bob']) as bob:
        me = bob.request('GET', '/v1/whoami').json()
    assert (me['name'], me['admin'], me['agent_id'], me['scope']) == (
        'agent:bob',
        False,
        'bob',
        'agent:bob',
    )
    assert me['writable'] == ['agent:bob', 'agent:bob:*']
    with Mnemos(service['url'], TOKEN) as admin:
        assert admin.request('GET', '/v1/whoami').json()['writable'] == ['*']


def test_host_lists() -> None:
    from mnemos_client.mcp.http_auth import allowed_hosts, matches

    hosts = allowed_hosts('0.0.0.0', ['mnemos.internal', 'box:9000'])
    assert matches('127.0.0.1:8000', hosts) and matches('[::1]:8000', hosts)
    assert matches('mnemos.internal:1234', hosts) and matches('box:9000', hosts)
    assert not matches('box:9001', hosts) and not matches('evil.example', hosts)
    assert not matches('127.0.0.1.evil.example:80', hosts)
    assert matches('10.0.0.5:80', allowed_hosts('10.0.0.5'))
    assert matches('[fe80::1]:80', allowed_hosts('fe80::1'))


def test_a_caller_guessing_tokens_gets_429(service: dict[str, Any]) -> None:
    from mnemos_client.mcp.http_auth import MCP_AUTH_FAILURES_PER_WINDOW

    proc, port = start_mcp(service['url'])
    try:
        url = f'http://127.0.0.1:{port}/mcp'
        for n in range(MCP_AUTH_FAILURES_PER_WINDOW):
            assert post_as(url, f'guess-{n}-0123456789abcdef').status_code == 401
        refused = post_as(url, service['tokens']['bob'])
        assert refused.status_code == 429
        assert int(refused.headers['retry-after']) >= 1
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)
