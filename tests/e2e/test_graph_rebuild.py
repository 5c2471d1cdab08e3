"""A service whose graph database crashes Kuzu comes back and extracts its graph again from the
memories it holds (kg/kuzu_lifecycle.py, consolidation/rebuild.py). Over HTTP on the real app."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.app import create_app
from kg.kuzu_lifecycle import SET_ASIDE, UNOPENABLE, open_marker, rebuild_marker, wal_path
from runtime.bootstrap import build
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.contract.test_kuzu_crash_recovery import break_metadata_chain, opening_crashes

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
SCOPE = 'agent:rebuilt'
TEXTS = ('Alice works at Acme.', 'Bob lives in Lisbon.')


def _facts(client) -> set[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    found = set()
    for who in ('Alice', 'Bob'):
        body = {'query': who, 'scope': SCOPE, 'hops': 1}
        response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
        assert response.status_code == 200, response.get_json()
        found |= {(f['subject'], f['predicate'], f['object']) for f in response.get_json()['facts']}
    return found


def test_a_graph_that_crashes_kuzu_is_extracted_again_from_the_memories(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, embedder='hash')
    services = build(settings, inline_jobs=True)
    client = create_app(services=services).test_client()
    for text in TEXTS:
        body = {'scope': SCOPE, 'text': text, 'created_at': '2024-05-01T10:00:00Z'}
        assert client.post('/v1/memories', json=body, headers=AUTH).status_code in (200, 201)
    before = _facts(client)
    assert before == {('Alice', 'works_at', 'Acme'), ('Bob', 'lives_in', 'Lisbon')}
    services.close()

    path = settings.graph_path
    break_metadata_chain(path)
    assert opening_crashes(path)
    open_marker(path).write_text('4242')  # as a service that crashed with it open leaves it

    services = build(settings, inline_jobs=True)
    try:
        client = create_app(services=services).test_client()
        assert _facts(client) == before  # extracted again while the service started
        assert not rebuild_marker(path).exists()  # all queued: the next start does not redo it
        assert [p for p in tmp_path.iterdir() if UNOPENABLE in p.name]  # the old file is kept
        listed = client.get(f'/v1/memories?scope={SCOPE}', headers=AUTH).get_json()
        assert sorted(m['text'] for m in listed['items']) == sorted(TEXTS)
    finally:
        services.close()


def _write(client, text: str) -> None:  # type: ignore[no-untyped-def]
    body = {'scope': SCOPE, 'text': text, 'created_at': '2024-05-01T10:00:00Z'}
    assert client.post('/v1/memories', json=body, headers=AUTH).status_code in (200, 201)


def test_a_log_set_aside_costs_no_fact_and_counts_nothing_twice(tmp_path: Path) -> None:
    # the graph opens without a log it cannot replay (kg/kuzu_lifecycle.py); what only that log
    # held is extracted again at the next start, and what the file holds is not read twice
    settings = make_settings(tmp_path, embedder='hash')
    services = build(settings, inline_jobs=True)
    _write(create_app(services=services).test_client(), TEXTS[0])
    stale = wal_path(settings.graph_path).read_bytes()  # Alice's write, before its checkpoint
    services.close()  # checkpointed: replaying `stale` now would insert Alice twice
    # Bob's memory is stored while the graph is off: the graph file never holds his fact, as if
    # his extraction had been in a log that is lost
    services = build(make_settings(tmp_path, embedder='hash', graph_enabled=False))
    _write(create_app(services=services).test_client(), TEXTS[1])
    services.close()
    wal_path(settings.graph_path).write_bytes(stale)

    services = build(settings, inline_jobs=True)
    try:
        client = create_app(services=services).test_client()
        assert [p for p in tmp_path.iterdir() if SET_ASIDE in p.name]  # the log was set aside
        assert _facts(client) == {('Alice', 'works_at', 'Acme'), ('Bob', 'lives_in', 'Lisbon')}
        assert not rebuild_marker(settings.graph_path).exists()
        body = {'scope': SCOPE, 'q': 'Alice'}
        found = client.get('/v1/kg/entities', query_string=body, headers=AUTH).get_json()
        [alice] = [e for e in found['items'] if e['name'] == 'Alice']
        assert alice['mention_count'] == 1  # her memory was linked: not extracted again
    finally:
        services.close()


def test_the_rebuild_queues_every_memory_and_every_episode(tmp_path: Path) -> None:
    import json
    import sqlite3

    from consolidation.rebuild import queue_graph_rebuild
    from core.jobs import JobName
    from tests.e2e.test_job_recovery import _session_params

    settings = make_settings(tmp_path, embedder='hash')
    services = build(settings, inline_jobs=True)
    try:
        client = create_app(services=services).test_client()
        written = []
        for i in range(150):
            body = {'scope': SCOPE, 'text': f'Note {i}: Carol met Dan in Porto.'}
            response = client.post('/v1/memories', json=body, headers=AUTH)
            written.append(response.get_json()['id'])
        services.jobs.enqueue(JobName.EPISODIC, **{**_session_params('offsite'), 'scope': SCOPE})
        [episode] = client.get(f'/v1/episodes?scope={SCOPE}', headers=AUTH).get_json()['episodes']
    finally:
        services.close()

    services = build(settings, consume_jobs=False)  # the jobs are kept, not run
    try:
        db = sqlite3.connect(tmp_path / 'jobs.sqlite3')
        before = db.execute('SELECT coalesce(max(rowid), 0) FROM jobs').fetchone()[0]
        assert queue_graph_rebuild(services.consolidation, page=100, per_job=64) == 151
        rows = db.execute(
            "SELECT job, params FROM jobs WHERE rowid > ? AND state = 'queued' ORDER BY rowid",
            (before,),
        ).fetchall()
        db.close()
    finally:
        services.close()
    pages = [json.loads(p)['ids'] for job, p in rows if job == JobName.INDEX_GRAPH]
    assert [len(p) for p in pages] == [64, 36, 50]  # pages of 100 points, jobs of 64 at most
    assert sorted(i for page in pages for i in page) == sorted(written)
    semantic = [json.loads(p) for job, p in rows if job == JobName.SEMANTIC]
    assert semantic == [{'scope': SCOPE, 'episode_id': episode['id']}]
