"""The served process answers protocol errors the way the app answers every error: JSON with
`{error, message, details}`, including the 400 and 431 that waitress writes itself."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from tests.integration.test_service_process import service  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow


def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(('127.0.0.1', port), timeout=30) as conn:
        conn.sendall(data)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    head, _, body = b''.join(chunks).partition(b'\r\n\r\n')
    status_line, *header_lines = head.decode('latin-1').split('\r\n')
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(':') for h in header_lines)}
    return int(status_line.split()[1]), headers, body


def test_waitress_own_errors_are_json(service) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, port = service
    cases = {
        # a header line without a colon: waitress refuses it before the app runs
        400: b'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
        # headers past waitress's 256 KiB limit; sent no further, so that the server reads
        # everything before it closes (unread bytes would turn its close into a reset)
        431: b'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ' + b'a' * 263_000,
    }
    for expected, data in cases.items():
        status, headers, body = raw_request(port, data)
        assert status == expected
        assert headers['content-type'] == 'application/json'
        payload = json.loads(body)
        assert set(payload) == {'error', 'message', 'details'}
        assert payload['details'][0]['type'] == payload['error']


def test_no_token_and_a_wrong_method_is_401_on_the_served_process(service) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, port = service
    request = urllib.request.Request(f'http://127.0.0.1:{port}/v1/memories', method='PUT')
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 401
    assert json.loads(caught.value.read())['error'] == 'unauthorized'
