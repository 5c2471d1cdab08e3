"""Request ids, the access log, JSON logs, /metrics, /readyz and CORS on the real app."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api.openapi import version
from core.jobs import JobName
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.waiting import wait_until


def _small_app(data_dir: Path, **overrides: object):  # type: ignore[no-untyped-def]
    from api.app import create_app

    return create_app(make_settings(data_dir, graph_enabled=False, embedder='hash', **overrides))


@pytest.fixture
def agent(client, auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    created = client.post('/v1/tokens', json={'agent_id': 'observer'}, headers=auth).get_json()
    return {'Authorization': f'Bearer {created["token"]}'}


def _samples(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append(sample)
    return out


# ---- request ids ------------------------------------------------------------------------------


def test_every_response_carries_a_new_request_id_when_none_was_sent(client, auth):
    first = client.get('/healthz')
    second = client.get('/v1/memory/stats', headers={'Authorization': 'Bearer nope-nope-nope'})
    ids = {first.headers['X-Request-Id'], second.headers['X-Request-Id']}
    assert len(ids) == 2
    assert all(len(i) == 32 for i in ids)


def test_a_well_formed_request_id_is_echoed_back(client, auth):
    response = client.get('/v1/memory/stats', headers={**auth, 'X-Request-Id': 'trace-42.a:b'})
    assert response.headers['X-Request-Id'] == 'trace-42.a:b'


@pytest.mark.parametrize('sent', ['has space', 'x' * 129, 'quote"d', ''])
def test_a_malformed_request_id_is_replaced_not_echoed(client, sent):
    response = client.get('/healthz', headers={'X-Request-Id': sent})
    assert response.headers['X-Request-Id'] != sent
    assert len(response.headers['X-Request-Id']) == 32


# ---- access log -------------------------------------------------------------------------------


def test_one_access_line_per_request_with_route_status_ms_and_principal_but_no_secrets(
    client, auth, scope, caplog
):
    secret_text = 'the vault code is 7731-unique-canary'
    with caplog.at_level(logging.INFO, logger='mnemos.access'):
        response = client.post(
            f'/v1/memories?canary={secret_text[:5]}',
            json={'scope': scope, 'text': secret_text},
            headers={**auth, 'X-Request-Id': 'access-log-test-1'},
        )
    assert response.status_code == 201
    lines = [r for r in caplog.records if r.name == 'mnemos.access']
    assert len(lines) == 1
    record = lines[0]
    assert (record.method, record.route, record.status) == ('POST', '/v1/memories', 201)
    assert record.principal == 'admin'
    assert record.request_id == 'access-log-test-1'
    assert record.ms > 0
    message = record.getMessage()
    assert message.startswith('POST /v1/memories 201 ')
    assert 'rid=access-log-test-1' in message and 'principal=admin' in message
    everything = message + json.dumps({k: str(v) for k, v in vars(record).items()})
    assert ADMIN_TOKEN not in everything
    assert 'canary' not in everything and 'vault' not in everything


def test_the_access_line_names_the_route_template_not_the_id(client, auth, caplog):
    ident = '0b9d1c2e-0000-4000-8000-000000000000'
    with caplog.at_level(logging.INFO, logger='mnemos.access'):
        client.get(f'/v1/memories/{ident}', headers=auth)
    [record] = [r for r in caplog.records if r.name == 'mnemos.access']
    assert record.route == '/v1/memories/<ident>'
    assert record.status == 404
    assert ident not in record.getMessage()


def test_an_agent_request_logs_the_agent_and_an_anonymous_one_a_dash(client, agent, caplog):
    with caplog.at_level(logging.INFO, logger='mnemos.access'):
        client.get('/v1/memory/stats?scope=agent:observer', headers=agent)
        client.get('/v1/memory/stats')
    records = [r for r in caplog.records if r.name == 'mnemos.access']
    assert [(r.principal, r.status) for r in records] == [('agent:observer', 200), ('-', 401)]


def test_json_log_format_writes_one_json_object_per_line(tmp_path, monkeypatch):
    from vectors.edge import EdgeVectorStore

    def warm_now(store: EdgeVectorStore, collection: str, flt: object, delay_s: float) -> None:
        store.warm(collection, flt, idle_s=0)  # type: ignore[arg-type]

    # the payload-cache warm-up logs while the app is built, as it does on a slow start
    monkeypatch.setattr(EdgeVectorStore, 'warm_in_background', warm_now)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        app = _small_app(tmp_path, log_format='json')
        try:
            client = app.test_client()
            client.get('/healthz', headers={'X-Request-Id': 'json-line-1'})
            client.get('/v1/memory/stats', headers={'Authorization': f'Bearer {ADMIN_TOKEN}'})
        finally:
            app.extensions['mnemos'].close()
    finally:
        root.removeHandler(handler)
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert any(e['msg'].startswith('payload cache warmed') for e in entries)
    access = [e for e in entries if e['logger'] == 'mnemos.access']
    assert [(e['route'], e['status'], e['principal']) for e in access] == [
        ('/healthz', 200, '-'),
        ('/v1/memory/stats', 200, 'admin'),
    ]
    assert access[0]['request_id'] == 'json-line-1'
    assert {'ts', 'level', 'msg', 'ms', 'method'} <= set(access[0])


def test_the_log_format_setting_rejects_anything_but_text_and_json(tmp_path):
    from core.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match='log_format'):
        make_settings(tmp_path, log_format='xml')


# ---- metrics ----------------------------------------------------------------------------------


def test_metrics_needs_the_admin_token(client, agent):
    assert client.get('/metrics').status_code == 401
    forbidden = client.get('/metrics', headers=agent)
    assert forbidden.status_code == 403
    assert forbidden.get_json()['details'][0]['type'] == 'forbidden'


def test_metrics_show_route_latency_search_stages_store_sizes_and_queue_depth(client, auth, scope):
    client.post('/v1/memories', json={'scope': scope, 'text': 'Metrics like tea'}, headers=auth)
    searched = client.post('/v1/memory_search', json={'scope': scope, 'query': 'tea'}, headers=auth)
    stages = searched.get_json()['receipt']['latency_ms']
    response = client.get('/metrics', headers=auth)
    assert response.status_code == 200
    assert response.mimetype == 'text/plain'
    samples = _samples(response.get_data(as_text=True))
    routes = {
        s.labels['route']
        for s in samples['mnemos_http_request_duration_seconds_count']
        if s.labels['status'] in ('200', '201')
    }
    assert {'/v1/memories', '/v1/memory_search'} <= routes
    seen_stages = {s.labels['stage'] for s in samples['mnemos_search_stage_duration_seconds_count']}
    assert set(stages) <= seen_stages
    tiers = {s.labels['tier']: s.value for s in samples['mnemos_memories']}
    assert sum(v for t, v in tiers.items() if t != 'superseded') >= 1
    assert 'mnemos_episodes' in samples
    assert {s.labels['queue'] for s in samples['mnemos_job_queue_depth']}
    assert 'mnemos_jobs_pending' in samples


def test_a_failing_job_is_counted_in_metrics(tmp_path):
    app = _small_app(tmp_path)
    try:
        # an episodic job without its session fails in its handler (KeyError: session_key)
        app.extensions['mnemos'].jobs.enqueue(JobName.EPISODIC)
        client = app.test_client()
        auth = {'Authorization': f'Bearer {ADMIN_TOKEN}'}

        def failures() -> list:
            samples = _samples(client.get('/metrics', headers=auth).get_data(as_text=True))
            return [
                s
                for s in samples.get('mnemos_job_failures_total', [])
                if 'episodic' in s.labels['job'] and s.value >= 1
            ]

        wait_until(failures, 'the failed episodic job was never counted in /metrics')
    finally:
        app.extensions['mnemos'].close()


# ---- readyz -----------------------------------------------------------------------------------


def test_readyz_needs_no_token_and_reports_the_version_and_each_store(client):
    response = client.get('/readyz')
    assert response.status_code == 200
    body = response.get_json()
    assert body['status'] == 'ready'
    assert body['version'] == version()
    assert body['mode'] == 'embedded'
    assert set(body['checks']) == {'vectors', 'tokens'}  # graph off in this app
    assert all(check['ok'] for check in body['checks'].values())


def test_readyz_probes_the_graph_when_it_is_on(tmp_path):
    from api.app import create_app

    app = create_app(make_settings(tmp_path, embedder='hash', extract_workers=0))
    try:
        body = app.test_client().get('/readyz').get_json()
    finally:
        app.extensions['mnemos'].close()
    assert body['checks']['graph']['ok'] is True


def test_readyz_is_503_when_the_graph_could_not_be_read_back(tmp_path, monkeypatch):
    # the twelfth 1M scale run: the graph mirror could not be filled after a restart (Kuzu's
    # buffer pool), entity reads still answered from Kuzu, and the service looked ready while
    # every graph job failed
    import kg.kuzu_dump
    from api.app import create_app

    def full(run):  # type: ignore[no-untyped-def]
        raise RuntimeError('Buffer manager exception: Unable to allocate memory!')

    monkeypatch.setattr(kg.kuzu_dump, 'mention_rows', full)
    app = create_app(make_settings(tmp_path, embedder='hash', extract_workers=0))
    try:
        client = app.test_client()
        # the copy is filled on a thread

        def unready() -> Any:
            response = client.get('/readyz')
            return response if response.status_code != 200 else None

        said = lambda: f'/readyz stayed ready: {client.get("/readyz").get_json()}'  # noqa: E731
        response = wait_until(unready, said)
    finally:
        app.extensions['mnemos'].close()
    assert response.status_code == 503
    check = response.get_json()['checks']['graph']
    assert check['ok'] is False and 'mirror could not be filled' in check['error']


def test_readyz_is_503_naming_the_store_when_a_store_is_gone(tmp_path):
    app = _small_app(tmp_path)
    app.extensions['mnemos'].consolidation.vectors.close()  # the adapter behind recall too
    try:
        response = app.test_client().get('/readyz')
    finally:
        app.extensions['mnemos'].close()
    assert response.status_code == 503
    body = response.get_json()
    assert body['status'] == 'unavailable'
    assert body['checks']['vectors']['ok'] is False
    assert body['checks']['vectors']['error']


# ---- CORS -------------------------------------------------------------------------------------


@pytest.fixture
def cors_client(tmp_path) -> Iterator[object]:
    app = _small_app(tmp_path, cors_origins='http://localhost:3000, https://app.example')
    yield app.test_client()
    app.extensions['mnemos'].close()


def test_cors_is_off_by_default(client, auth):
    response = client.get('/healthz', headers={'Origin': 'http://localhost:3000'})
    assert 'Access-Control-Allow-Origin' not in response.headers


def test_cors_allows_a_configured_origin_and_answers_its_preflight_without_a_token(cors_client):
    preflight = cors_client.options(
        '/v1/memory_search',
        headers={
            'Origin': 'http://localhost:3000',
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization, content-type',
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers['Access-Control-Allow-Origin'] == 'http://localhost:3000'
    assert 'Authorization' in preflight.headers['Access-Control-Allow-Headers']
    assert 'POST' in preflight.headers['Access-Control-Allow-Methods']
    real = cors_client.post('/v1/memory_search', json={}, headers={'Origin': 'https://app.example'})
    assert real.status_code == 401
    assert real.headers['Access-Control-Allow-Origin'] == 'https://app.example'
    assert 'X-Request-Id' in real.headers['Access-Control-Expose-Headers']


def test_cors_ignores_an_origin_that_is_not_configured(cors_client):
    response = cors_client.get('/healthz', headers={'Origin': 'https://evil.example'})
    assert 'Access-Control-Allow-Origin' not in response.headers
