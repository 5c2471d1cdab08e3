"""`mnemos_client` alone: what importing it loads, and when a call is tried again (over httpx's
in-memory transport: the retry rules are pure logic)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import get_args

import httpx
import pytest

from core.settings import Settings
from mnemos_client import (
    ConnectionFailed,
    Mnemos,
    RateLimited,
    Retry,
    ServerError,
    UnexpectedAnswer,
)
from mnemos_client.models import Kind as ClientKind

SERVER_ONLY = (
    'flask',
    'werkzeug',
    'dramatiq',
    'numpy',
    'spacy',
    'kuzu',
    'qdrant_client',
    'onnxruntime',
)
OURS = ('api', 'core', 'recall', 'kg', 'vectors', 'agents', 'consolidation', 'runtime')
FAST = Retry(retries=3, backoff_s=0.001, max_wait_s=0.01)
HEALTH = {'status': 'ok', 'mode': 'embedded', 'embedder': 'hash', 'graph': True}


def test_importing_the_client_loads_none_of_the_server() -> None:
    code = (
        'import json, sys; before = set(sys.modules); import mnemos_client; '
        'print(json.dumps(sorted(set(sys.modules) - before)))'
    )
    loaded = json.loads(subprocess.check_output([sys.executable, '-c', code]))
    tops = {name.split('.')[0] for name in loaded}
    assert not tops & set(SERVER_ONLY + OURS), sorted(tops & set(SERVER_ONLY + OURS))
    # httpx and pydantic with what they import; the server's `api.client` loaded ~800
    assert len(loaded) < 450, len(loaded)


def test_no_client_module_imports_the_server() -> None:
    # the adapters and the MCP server too, which `import mnemos_client` does not load
    package = Path(__file__).resolve().parents[2] / 'clients' / 'python' / 'mnemos_client'
    assert (package / 'mcp' / 'server.py').is_file()
    for path in package.rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split('.')[0] not in SERVER_ONLY + OURS, (path.name, name)


def test_the_mcp_tools_know_every_kind_of_the_client() -> None:
    from mnemos_client.mcp.tools import Kind

    assert [kind.value for kind in Kind] == list(get_args(ClientKind))


def serving(*answers: httpx.Response | Exception) -> tuple[Mnemos, list[httpx.Request]]:
    """A client whose transport gives `answers` in turn and records the requests."""
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    client = Mnemos(
        'http://mnemos.test', 't' * 32, retry=FAST, transport=httpx.MockTransport(handler)
    )
    return client, seen


def unavailable() -> httpx.Response:
    return httpx.Response(503, json={'error': 'unavailable', 'message': 'qdrant', 'details': []})


def test_503_and_429_are_tried_again_until_an_answer() -> None:
    client, seen = serving(unavailable(), httpx.Response(429), httpx.Response(200, json=HEALTH))
    assert client.health().status == 'ok' and len(seen) == 3


def test_the_last_503_is_raised_once_the_retries_are_spent() -> None:
    client, seen = serving(*[unavailable() for _ in range(4)])
    with pytest.raises(ServerError) as caught:
        client.health()
    assert caught.value.status == 503 and caught.value.error == 'unavailable' and len(seen) == 4
    client, _ = serving(*[httpx.Response(429) for _ in range(4)])
    with pytest.raises(RateLimited):
        client.health()


def test_a_refused_connection_is_tried_again_for_any_method() -> None:
    written = {'id': None, 'status': 'skipped', 'reason': 'empty'}
    refused = httpx.ConnectError('refused')
    client, seen = serving(refused, refused, httpx.Response(200, json=written))
    assert client.remember('agent:x', 'tea').status == 'skipped' and len(seen) == 3


def test_a_write_whose_connection_broke_after_sending_is_not_sent_twice() -> None:
    client, seen = serving(httpx.ReadError('reset'), httpx.Response(200, json={}))
    with pytest.raises(ConnectionFailed):
        client.remember('agent:x', 'tea')
    assert len(seen) == 1
    # a read may be repeated
    client, seen = serving(httpx.ReadError('reset'), httpx.Response(200, json=HEALTH))
    assert client.health().status == 'ok' and len(seen) == 2


def test_a_streamed_import_is_never_sent_twice() -> None:
    client, seen = serving(unavailable(), httpx.Response(200, json={}))
    with pytest.raises(ServerError):
        client.import_records([{'scope': 'agent:x', 'text': 'a'}])
    assert len(seen) == 1


def test_retry_after_is_honoured_within_the_ceiling() -> None:
    retry = Retry(retries=1, max_wait_s=2.0)
    assert retry.wait_after_answer(httpx.Response(429, headers={'Retry-After': '1'}), 0) == 1.0
    assert retry.wait_after_answer(httpx.Response(503, headers={'Retry-After': '60'}), 0) == 2.0
    assert retry.wait_after_answer(httpx.Response(503), 1) is None
    assert retry.wait_after_answer(httpx.Response(500), 0) is None


@pytest.mark.parametrize(
    'answer',
    [
        lambda: httpx.Response(200, text='<html>proxy</html>'),
        lambda: httpx.Response(200, json={'status': 'ok'}),
    ],
)
def test_an_answer_of_the_wrong_shape_is_a_mnemos_error(
    answer: Callable[[], httpx.Response],
) -> None:
    client, _ = serving(answer())
    with pytest.raises(UnexpectedAnswer):
        client.health()


def test_ids_are_percent_encoded_in_paths() -> None:
    memory = '0b5b3c9e-1f2a-4c3d-9e8f-0a1b2c3d4e5f'
    client, seen = serving(httpx.Response(200, json={'deleted': memory}))
    client.delete(memory)
    assert seen[0].url.raw_path == f'/v1/memories/{memory}'.encode()
    client, seen = serving(
        httpx.Response(202, json={'job_id': 'j', 'episode_id': 'e', 'status_url': 's'})
    )
    message = {'role': 'user', 'content': 'hi', 'ts': '2026-01-01T00:00Z'}
    client.complete_session('chat:1', 'agent:x', [message])
    assert seen[0].url.raw_path == b'/v1/sessions/chat%3A1/complete'


def test_the_service_accepts_the_clients_address_variable() -> None:
    # a client and the service often share one environment (the CLI, the MCP server)
    settings = Settings.load(
        {'KG_URL': 'http://127.0.0.1:9999', 'KG_API_TOKEN': 'client-package-token-0123456789a'}
    )
    assert settings.api_token == 'client-package-token-0123456789a'
