"""Unknown tokens are limited per client address (429 with Retry-After, valid tokens from that
address too, other addresses unaffected), and a guessable admin token stops the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.cli import main
from core.auth import AUTH_FAILURES_PER_WINDOW


def as_from(address: str, token: str | None = None) -> dict[str, object]:
    headers = {'Authorization': f'Bearer {token}'} if token else {}
    return {'headers': headers, 'environ_base': {'REMOTE_ADDR': address}}


def test_an_address_guessing_tokens_gets_429_with_retry_after(client, auth) -> None:  # type: ignore[no-untyped-def]
    admin_token = auth['Authorization'].split()[1]
    guesser = '10.9.0.1'
    for n in range(AUTH_FAILURES_PER_WINDOW):
        response = client.get('/v1/whoami', **as_from(guesser, f'guess-{n}-0123456789abcdef'))
        assert response.status_code == 401, n
    refused = client.get('/v1/whoami', **as_from(guesser, 'guess-last-0123456789abcdef'))
    assert refused.status_code == 429
    assert refused.get_json()['error'] == 'too_many_requests'
    assert 1 <= int(refused.headers['Retry-After']) <= 60
    # a right guess from that address is refused too: the answer must not tell guesses apart
    assert client.get('/v1/whoami', **as_from(guesser, admin_token)).status_code == 429
    assert client.get('/v1/whoami', **as_from('10.9.0.2', admin_token)).status_code == 200


def test_missing_or_malformed_headers_are_not_counted_as_guesses(client, auth) -> None:  # type: ignore[no-untyped-def]
    admin_token = auth['Authorization'].split()[1]
    address = '10.9.0.3'
    for _ in range(AUTH_FAILURES_PER_WINDOW + 5):
        assert client.get('/v1/whoami', **as_from(address)).status_code == 401
        basic = {
            'headers': {'Authorization': 'Basic abc'},
            'environ_base': {'REMOTE_ADDR': address},
        }
        assert client.get('/v1/whoami', **basic).status_code == 401
    assert client.get('/v1/whoami', **as_from(address, admin_token)).status_code == 200


@pytest.mark.parametrize('token', [' ' * 16, 'x' * 32])
def test_serve_refuses_a_guessable_admin_token(
    token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv('KG_DATA_DIR', str(tmp_path))
    monkeypatch.setenv('KG_API_TOKEN', token)
    assert main(['serve', '--port', '1']) == 2
    err = capsys.readouterr().err
    assert 'admin token' in err and 'secrets.token_urlsafe' in err
    assert not (tmp_path / 'vectors').exists()  # refused before any store opened
