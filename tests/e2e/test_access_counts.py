"""Recall counts kept in the access log (embedded mode): they outlive a restart and every read
of a memory shows them."""

from __future__ import annotations

import json
from pathlib import Path

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import ADMIN_TOKEN, make_settings

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
SCOPE = 'agent:counts'


def test_recalls_outlive_a_restart_and_reach_get_list_and_export(tmp_path: Path):
    settings = make_settings(tmp_path / 'data', graph_enabled=False)
    first = build(settings)
    try:
        client = create_app(settings, services=first).test_client()
        written = client.post(
            '/v1/memories', json={'scope': SCOPE, 'text': 'Nate adopted a turtle'}, headers=AUTH
        )
        ident = written.get_json()['id']
        for _ in range(2):
            body = {'query': 'turtle', 'scope': SCOPE}
            assert client.post('/v1/memory_search', json=body, headers=AUTH).status_code == 200
        first.recall.close()  # drains the access bookkeeping
    finally:
        first.close()

    second = build(settings)
    try:
        client = create_app(settings, services=second).test_client()
        memory = client.get(f'/v1/memories/{ident}', headers=AUTH).get_json()
        assert memory['access_count'] == 2 and memory['accessed_at'] is not None
        listed = client.get(f'/v1/memories?scope={SCOPE}', headers=AUTH).get_json()['items']
        assert [m['access_count'] for m in listed] == [2]
        response = client.get(f'/v1/admin/export?scope={SCOPE}', headers=AUTH)
        [record] = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
        assert record['access_count'] == 2
    finally:
        second.close()
