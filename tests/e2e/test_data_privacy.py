"""What is on disk and in the logs stays private (issue 12 item 10): files 0600 and folders 0700
under the data dir, a session's transcript gone from the job store once its job is done, and no
memory text in logs above DEBUG."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dramatiq
import pytest

from tests.conftest import ADMIN_TOKEN, make_settings
from tests.e2e.http_calls import JOB_DEADLINE_S, wait_job

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
MARKER = 'Zorblax-quintessence-7731'  # appears only in the transcript


@pytest.fixture(scope='module')
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    from api.app import create_app
    from api.cli import ensure_token

    data_dir = tmp_path_factory.mktemp('private') / 'data'
    data_dir.mkdir(mode=0o755)
    stale = data_dir / 'jobs.sqlite3'
    stale.write_bytes(b'')
    stale.chmod(0o644)  # as an older version left it: made private at start
    settings = make_settings(data_dir)
    ensure_token(settings.model_copy(update={'api_token': None}))
    app = create_app(settings)
    yield app, data_dir
    app.extensions['mnemos'].close()


def _complete_session(client: Any, scope: str, key: str) -> dict[str, Any]:
    texts = [
        f'The project codename is {MARKER} and Alice leads it.',
        'Alice moved the launch of the project to Friday in Berlin.',
        'Bob prepares the budget review for the launch.',
    ]
    messages = [
        {'role': 'user', 'content': t, 'ts': f'2026-03-02T09:0{i}:00Z'} for i, t in enumerate(texts)
    ]
    response = client.post(
        f'/v1/sessions/{key}/complete', json={'scope': scope, 'messages': messages}, headers=AUTH
    )
    assert response.status_code == 202
    job_id = response.get_json()['job_id']
    job = wait_job(client, AUTH, job_id)
    assert job['state'] == 'done', job
    return job


def test_every_file_under_the_data_dir_is_0600_and_every_folder_0700(served, scope):
    app, data_dir = served
    client = app.test_client()
    client.post(
        '/v1/memories', json={'scope': scope, 'text': 'Alice lives in Lisbon.'}, headers=AUTH
    )
    client.post('/v1/tokens', json={'agent_id': 'privacy-bot'}, headers=AUTH)
    _complete_session(client, scope, 'perm-1')
    assert app.extensions['mnemos'].jobs.wait_idle(JOB_DEADLINE_S)
    names = {p.name for p in data_dir.iterdir()}
    assert {'vectors', 'registry.sqlite3', 'api_token', 'graph.kuzu'} <= names
    assert any(n.startswith('jobs.sqlite3') for n in names)
    loose = []
    for path in [data_dir, *data_dir.rglob('*')]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        expected = 0o700 if path.is_dir() else 0o600
        if not path.is_symlink() and mode & ~expected & 0o077:
            loose.append(f'{path.relative_to(data_dir.parent)} {oct(mode)}')
    assert loose == []


def test_a_done_session_leaves_no_transcript_in_the_job_store_files(served, scope):
    app, data_dir = served
    _complete_session(app.test_client(), scope, 'wal-1')
    files = [p for p in data_dir.iterdir() if p.name.startswith('jobs.sqlite3')]
    assert files
    for path in files:
        assert MARKER.encode() not in path.read_bytes(), path.name


def test_logs_above_debug_carry_no_memory_text(served, scope, caplog):
    app, _ = served
    with caplog.at_level(logging.INFO):
        _complete_session(app.test_client(), scope, 'log-1')
        # a failed job: dramatiq logs the message it failed, with its arguments
        message: dramatiq.Message[Any] = dramatiq.Message(
            queue_name='consolidation',
            actor_name='episodic',
            args=(),
            kwargs={'messages': [{'content': MARKER}]},
            options={},
        )
        logging.getLogger('dramatiq.worker.WorkerThread').error(
            'Failed to process message %s with unhandled exception.', message
        )
    assert caplog.records
    assert MARKER not in caplog.text
    assert 'episodic[' in caplog.text


def test_the_umask_makes_files_the_process_creates_later_private(served):
    _, data_dir = served
    later = data_dir / 'graph.kuzu.probe'
    later.write_text('x')
    try:
        assert stat.S_IMODE(os.stat(later).st_mode) == 0o600
    finally:
        later.unlink()


def test_make_private_reaches_nested_files_and_leaves_symlink_targets_alone(
    tmp_path: Path,
) -> None:
    from runtime.bootstrap import make_private

    data_dir = tmp_path / 'data'
    nested = data_dir / 'vectors' / 'memories' / 'segments'
    nested.mkdir(parents=True, mode=0o755)
    (data_dir / 'vectors').chmod(0o755)
    page = nested / 'page_0.dat'
    page.write_bytes(b'x')
    page.chmod(0o644)
    outside = tmp_path / 'shared.txt'  # not ours: a link to it must not change it
    outside.write_text('shared')
    outside.chmod(0o644)
    (nested / 'link').symlink_to(outside)
    make_private(data_dir)
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert stat.S_IMODE(nested.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / 'vectors').stat().st_mode) == 0o700
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644
