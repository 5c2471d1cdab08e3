"""Forget erases: once the compaction it queues is done, no byte of the forgotten user's text is
left in any file under the data dir (vector segments and write-ahead logs, the Kuzu file, the
job outbox), and none comes back after a restart and an index build. Real app, graph on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from tests.e2e.http_calls import wait_job

pytestmark = pytest.mark.slow

TOKEN = 'forget-erases-token-0123456789ab'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
SCOPE = 'agent:erase'
NAME = 'Quillonius Marbrydge'  # a person the extractor makes an entity of
T0, T1 = '2026-05-01T10:00:00Z', '2026-05-01T10:01:00Z'
MARKERS = (b'Quillonius', b'Marbrydge', b'zorblatt-4471')


def _app(data_dir: Path) -> Any:
    from api.app import create_app

    return create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))


def _left(data_dir: Path) -> dict[str, int]:
    """Occurrences of the markers in each file under the data dir (bytes, not text)."""
    found: dict[str, int] = {}
    for path in sorted(data_dir.rglob('*')):
        if path.is_file():
            data = path.read_bytes()
            count = sum(data.count(m) + data.lower().count(m.lower()) for m in MARKERS)
            if count:
                found[str(path.relative_to(data_dir))] = count
    return found


def test_forget_leaves_no_byte_of_the_users_text_in_the_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / 'data'
    app = _app(data_dir)
    services = app.extensions['mnemos']
    try:
        client = app.test_client()
        for i in range(6):
            text = f'{NAME} moved to Lisbon in 2024 and keeps the code zorblatt-4471 ({i}).'
            body = {'scope': SCOPE, 'user_id': 'ann', 'text': text}
            assert client.post('/v1/memories', json=body, headers=AUTH).status_code == 201
        kept = {'scope': SCOPE, 'user_id': 'joe', 'text': 'Carol works at Initech.'}
        assert client.post('/v1/memories', json=kept, headers=AUTH).status_code == 201
        session = {
            'scope': SCOPE,
            'user_id': 'ann',
            'messages': [
                {'role': 'user', 'content': f'I am {NAME}, code zorblatt-4471.', 'ts': T0},
                {'role': 'assistant', 'content': 'Noted.', 'ts': T1},
            ],
        }
        accepted = client.post('/v1/sessions/s-ann/complete', json=session, headers=AUTH)
        assert accepted.status_code == 202, accepted.get_json()
        assert services.jobs.wait_idle(timeout=120)
        services.consolidation.vectors.optimize()  # the points also in indexed segments
        assert _left(data_dir), 'the markers never reached the disk'

        forgot = client.post('/v1/admin/forget', json={'user_id': 'ann'}, headers=AUTH)
        assert forgot.status_code == 200, forgot.get_json()
        report = forgot.get_json()
        assert report['memories'] == 6 and report['episodes'] == 1, report
        job = wait_job(client, AUTH, report['compaction_job'])
        assert job['state'] == 'done', job
        assert _left(data_dir) == {}
        # what is not forgotten stays readable
        found = client.post(
            '/v1/memory_search', json={'scope': SCOPE, 'query': 'Carol Initech'}, headers=AUTH
        ).get_json()
        assert [h['text'] for h in found['hits']] == ['Carol works at Initech.']
    finally:
        services.close()
    assert _left(data_dir) == {}

    again = _app(data_dir)  # a restart, more writes and an index build bring nothing back
    try:
        client = again.test_client()
        more = {'scope': SCOPE, 'user_id': 'joe', 'text': 'Dave plays chess on Sundays.'}
        assert client.post('/v1/memories', json=more, headers=AUTH).status_code == 201
        assert again.extensions['mnemos'].jobs.wait_idle(timeout=120), 'jobs still pending'
        again.extensions['mnemos'].consolidation.vectors.optimize()
        listed = client.get(f'/v1/memories?scope={SCOPE}', headers=AUTH).get_json()
        assert sorted(m['text'] for m in listed['items']) == [
            'Carol works at Initech.',
            'Dave plays chess on Sundays.',
        ]
    finally:
        again.extensions['mnemos'].close()
    assert _left(data_dir) == {}
