"""Recall is never persisted (seed 001, issue 13): a recall block sent back by a client is cut
out on every write path (capture, explicit writes, documents) and what remains is kept."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.settings import Settings

pytestmark = pytest.mark.slow

TOKEN = 'recall-never-token-0123456789abc'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
RECALL = (
    '## Relevant Memory (current turn only)\n'
    '- [id=9a2, kind=fact, tier=core, score=0.7] User lives in Berlin.\n'
    '- [id=9a3, kind=preference] 用户偏好直接简洁的回答。'
)


@pytest.fixture(scope='module')
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('recall-never')
    app = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield app.test_client()
    app.extensions['mnemos'].close()


def texts(client, scope: str) -> list[str]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/memories?scope={scope}', headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return [m['text'] for m in response.get_json()['items']]


def fresh() -> str:
    return f'agent:r{uuid.uuid4().hex[:10]}'


def test_capture_keeps_the_users_words_and_drops_the_recall_block(client):  # type: ignore[no-untyped-def]
    scope = fresh()
    body = {'scope': scope, 'text': f'{RECALL}\n\nI just adopted a beagle called Pixel.'}
    response = client.post('/v1/memories/capture', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert texts(client, scope) == ['I just adopted a beagle called Pixel']


def test_an_explicit_write_stores_only_what_follows_the_recall_block(client):  # type: ignore[no-untyped-def]
    scope = fresh()
    body = {'scope': scope, 'text': f'{RECALL}\n\nThe deploy key rotates every 90 days.'}
    response = client.post('/v1/memories', json=body, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    assert texts(client, scope) == ['The deploy key rotates every 90 days.']


def test_a_document_with_a_pasted_recall_block_indexes_only_its_own_text(client):  # type: ignore[no-untyped-def]
    scope = fresh()
    markdown = f'# Runbook\n\n{RECALL}\n\n## Database\n\nBackups run nightly at 02:00 UTC.\n'
    body = {'scope': scope, 'path': 'runbook.md', 'markdown': markdown}
    response = client.post('/v1/documents', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    stored = texts(client, scope)
    assert stored and not any('Relevant Memory' in t or 'Berlin' in t for t in stored)
    assert any('Backups run nightly' in t for t in stored)


def test_search_hits_carry_an_l0_abstract_and_l1_overview_when_asked(client):  # type: ignore[no-untyped-def]
    scope = fresh()
    text = (
        'The billing service moved to Postgres 16 in March. Invoices are generated nightly at '
        '02:00 UTC. Refunds need a second approver. Old invoices stay in S3 for seven years.'
    )
    response = client.post('/v1/memories', json={'scope': scope, 'text': text}, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    body = {'query': 'billing invoices', 'scope': scope, 'abstracts': True}
    [hit] = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert hit['abstract'] == 'The billing service moved to Postgres 16 in March.'
    assert hit['overview'].splitlines() == [
        '- The billing service moved to Postgres 16 in March.',
        '- Invoices are generated nightly at 02:00 UTC.',
        '- Refunds need a second approver.',
    ]
    plain = {'query': 'billing invoices', 'scope': scope}
    [hit] = client.post('/v1/memory_search', json=plain, headers=AUTH).get_json()['hits']
    assert hit.get('abstract') is None
