"""The `mnemos` command: version, a busy port, and export / import / reindex through the client."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli import main
from mnemos_client import Mnemos
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('cli-data'), graph_enabled=False) as base:
        yield base


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(['--version'])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith('mnemos 0.')


def test_a_busy_port_is_one_line_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv('KG_DATA_DIR', str(tmp_path))
    monkeypatch.setenv('KG_API_TOKEN', TOKEN)
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(['serve', '--host', '127.0.0.1', '--port', str(port)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f'mnemos: cannot listen on 127.0.0.1:{port}: address already in use']


def test_export_import_and_reindex_round_trip(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scope = f'agent:x{uuid.uuid4().hex[:10]}'
    with Mnemos(url, TOKEN) as client:
        client.remember_batch([{'scope': scope, 'text': f'note number {i}'} for i in range(5)])
    target = tmp_path / 'out.jsonl'
    common = ['--url', url, '--token', TOKEN]
    assert main(['export', '--scope', scope, '-o', str(target), *common]) == 0
    records = [json.loads(line) for line in target.read_text().splitlines()]
    assert sorted(r['text'] for r in records) == [f'note number {i}' for i in range(5)]
    assert 'exported 5 records' in capsys.readouterr().err

    assert main(['import', str(target), '--dry-run', *common]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report['read'], report['skipped_duplicate'], report['dry_run']) == (5, 5, True)

    assert main(['reindex', '--scope', scope, *common]) == 0
    assert 'reindexed 5 of 5 records' in capsys.readouterr().err
    with Mnemos(url, TOKEN) as client:
        assert client.stats(scope).total == 5


def test_service_errors_print_one_line(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(['stats', '--scope', 'agent:a', '--url', url, '--token', 'wrong']) == 2
    assert capsys.readouterr().err.startswith('mnemos: 401 unauthorized:')


def test_a_bad_option_value_is_one_line_naming_it(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(['search', 'green tea', '--scope', 'main', '--url', url, '--token', TOKEN]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith('mnemos: invalid scope: '), err


def test_output_into_a_closed_pipe_is_not_a_traceback(url: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone, as `| head` does after its lines
    try:
        done = subprocess.run(
            [sys.executable, '-m', 'api.cli', 'stats', '--scope', 'agent:a', '--url', url],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env={**os.environ, 'KG_API_TOKEN': TOKEN},
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert b'Traceback' not in done.stderr and b'BrokenPipeError' not in done.stderr, done.stderr
    assert done.returncode == 1


def test_export_writes_a_file_only_its_owner_can_read(url: str, tmp_path: Path) -> None:
    scope = f'agent:p{uuid.uuid4().hex[:10]}'
    with Mnemos(url, TOKEN) as client:
        client.remember(scope, 'the spare key is under the blue pot')
    fresh, existing = tmp_path / 'fresh.jsonl', tmp_path / 'existing.jsonl'
    existing.write_text('old\n')
    existing.chmod(0o644)
    for target in (fresh, existing):
        assert (
            main(['export', '--scope', scope, '-o', str(target), '--url', url, '--token', TOKEN])
            == 0
        )
        assert target.stat().st_mode & 0o777 == 0o600, target
        assert 'blue pot' in target.read_text()
