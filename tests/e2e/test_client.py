"""The Python client against a real service on a loopback port: every call, typed errors."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.client import (
    ConnectionFailed,
    Forbidden,
    InvalidRequest,
    MnemosClient,
    NotFound,
    Unauthorized,
    normalize_details,
)
from recall.schemas import ChunkOut, SearchResponse
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('client-data')) as base:
        yield base


@pytest.fixture(scope='module')
def mnemos(url: str) -> Iterator[MnemosClient]:
    with MnemosClient(url, TOKEN) as client:
        yield client


@pytest.fixture
def scope() -> str:
    return f'agent:c{uuid.uuid4().hex[:10]}'


def test_remember_get_pin_unpin_and_delete_round_trip(mnemos: MnemosClient, scope: str) -> None:
    fields = {'kind': 'preference', 'user_id': 'alice'}
    written = mnemos.remember(scope, 'Alice prefers green tea', **fields)
    assert written.status == 'created' and isinstance(written.memory, ChunkOut)
    assert mnemos.remember(scope, 'Alice prefers green tea', **fields).status == 'merged'
    memory_id = written.id
    assert memory_id is not None
    assert mnemos.get(memory_id).text == 'Alice prefers green tea'
    assert mnemos.pin(memory_id).pinned is True
    assert mnemos.unpin(memory_id).pinned is False
    mnemos.delete(memory_id)
    with pytest.raises(NotFound) as caught:
        mnemos.get(memory_id)
    assert caught.value.status == 404 and caught.value.error == 'not_found'
    assert caught.value.details and isinstance(caught.value.details[0], dict)


def test_update_history_and_users(mnemos: MnemosClient, scope: str) -> None:
    written = mnemos.remember(scope, 'Standup at nine', user_id='alice')
    assert written.id is not None
    edited = mnemos.update(written.id, text='Standup at ten', tags=['team'], reason='moved')
    assert (edited.id, edited.text, edited.tags) == (written.id, 'Standup at ten', ['team'])
    seen = mnemos.history(written.id)
    assert (seen.version, seen.versions[0].text, seen.versions[0].reason) == (
        2,
        'Standup at nine',
        'moved',
    )
    assert [(u.user_id, u.memories) for u in mnemos.users(scope).users] == [('alice', 1)]
    with pytest.raises(NotFound):
        mnemos.history(str(uuid.uuid4()))


def test_batch_search_stats_and_listing(mnemos: MnemosClient, scope: str) -> None:
    batch = mnemos.remember_batch(
        [
            {'scope': scope, 'text': 'Bob moved to Berlin in 2024'},
            {'scope': scope, 'text': 'Carol plays the cello', 'kind': 'fact'},
        ]
    )
    assert [r.status for r in batch.results] == ['created', 'created']
    found = mnemos.search('Where does Bob live?', scope, top_k=2, mode='bm25')
    assert isinstance(found, SearchResponse)
    assert found.hits[0].text == 'Bob moved to Berlin in 2024'
    assert 'bm25' in found.receipt.channels
    stats = mnemos.stats(scope)
    assert stats.total == 2 and stats.by_kind == {'note': 1, 'fact': 1}
    assert {m.text for m in mnemos.iter_memories(scope)} == {
        'Bob moved to Berlin in 2024',
        'Carol plays the cello',
    }
    assert len(mnemos.list_memories(scope, limit=1).items) == 1


def test_capture_and_bundle(mnemos: MnemosClient, scope: str) -> None:
    captured = mnemos.capture(scope, 'Remember that my favourite colour is teal.')
    assert captured.stored and captured.stored[0].status == 'created'
    bundle = mnemos.bundle(scope, 'What is my favourite colour?')
    assert bundle.ids == [captured.stored[0].id] and 'teal' in bundle.text
    assert bundle.receipt is not None


def test_knowledge_graph_search_and_entities(mnemos: MnemosClient, scope: str) -> None:
    mnemos.remember(scope, 'Alice works at Acme.', created_at='2023-03-01T10:00:00Z')
    deadline = time.monotonic() + 30
    while not (found := mnemos.kg_search('Alice', scope, hops=1)).facts:
        assert time.monotonic() < deadline, 'the graph never saw the write'
        time.sleep(0.2)
    assert [(f.subject, f.predicate, f.object) for f in found.facts] == [
        ('Alice', 'works_at', 'Acme')
    ]
    listed = mnemos.entities(scope)
    assert {e.name for e in listed.items} >= {'Alice', 'Acme'} and listed.total >= 2
    [alice] = mnemos.entities(scope, q='ali').items
    detail = mnemos.entity(alice.id, scope)
    assert [f.object for f in detail.current] == ['Acme']


def test_sessions_jobs_and_episodes(mnemos: MnemosClient, scope: str) -> None:
    accepted = mnemos.complete_session(
        'chat-1',
        scope=scope,
        messages=[
            {
                'role': 'user',
                'content': 'I switched to the Berlin office',
                'ts': '2026-05-01T09:00Z',
            }
        ],
    )
    assert mnemos.wait_job(accepted.job_id, timeout=60).state == 'done'
    assert [e.id for e in mnemos.episodes(scope)] == [accepted.episode_id]


def test_export_then_import_keeps_every_record(mnemos: MnemosClient, scope: str) -> None:
    mnemos.remember_batch([{'scope': scope, 'text': f'export me {i}'} for i in range(3)])
    records = list(mnemos.export(scope))
    assert mnemos.export_count(scope) == 3 and len(records) == 3
    report = mnemos.import_records(records, dedupe='id')
    assert (report.read, report.imported, report.skipped_duplicate) == (3, 0, 3)
    again = mnemos.import_records(records, dedupe='none')
    assert again.imported == 3 and mnemos.stats(scope).total == 3


def test_export_masks_secrets_by_default_and_redact_false_gives_them_back(
    mnemos: MnemosClient, scope: str
) -> None:
    # only an import can hold a secret (writes skip them); a reindex must not mask it for good
    record = {'scope': scope, 'text': 'Deploy key sk-live-abc123def456ghi789 for CI'}
    assert mnemos.import_records([record]).imported == 1
    [masked] = mnemos.export(scope)
    assert masked['text'] == 'Deploy key [redacted:api_key] for CI'
    [raw] = mnemos.export(scope, redact=False)
    assert raw['text'] == record['text']


def test_errors_are_typed_and_carry_the_json_error(url: str, mnemos: MnemosClient) -> None:
    with pytest.raises(Unauthorized) as caught, MnemosClient(url, 'wrong-token') as stranger:
        stranger.stats('agent:x')
    assert caught.value.status == 401 and caught.value.body['error'] == 'unauthorized'
    with pytest.raises(InvalidRequest) as invalid:
        mnemos.request('POST', '/v1/memory_search', json_body={'query': 'x', 'scope': 'nope'})
    assert invalid.value.details[0]['loc']
    agent = mnemos.request('POST', '/v1/tokens', json_body={'agent_id': 'other'}).json()['token']
    with MnemosClient(url, agent) as other, pytest.raises(Forbidden):
        other.stats()


def test_an_unreachable_service_raises_connection_failed() -> None:
    with (
        MnemosClient('http://127.0.0.1:9', 'x', timeout=2) as client,
        pytest.raises(ConnectionFailed),
    ):
        client.health()


def test_details_of_every_shape_become_a_list_of_objects() -> None:
    assert normalize_details(None) == []
    assert normalize_details({'what': 'memory'}) == [{'what': 'memory'}]
    assert normalize_details([{'loc': ['q']}, 'text']) == [{'loc': ['q']}, {'msg': 'text'}]


def test_the_readme_client_example_runs_as_written(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (Path(__file__).resolve().parents[2] / 'README.md').read_text(encoding='utf-8')
    section = readme[readme.index('## Python client') :]
    example = re.search(r'```python\n(.*?)```', section, re.DOTALL)
    assert example is not None
    (tmp_path / 'mnemos-data').mkdir()
    (tmp_path / 'mnemos-data' / 'api_token').write_text(TOKEN + '\n')
    monkeypatch.chdir(tmp_path)
    # only the address differs: this service listens on a free port, not 8765
    code = example[1].replace('http://127.0.0.1:8765', url)
    exec(compile(code, 'README.md', 'exec'), {})  # noqa: S102
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith('Alice prefers green tea')
    assert out[1].startswith('channels: [')
    assert out[-1].startswith('404 not_found [{')
