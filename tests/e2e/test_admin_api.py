"""Admin export/import, snapshot/hydrate and Markdown documents over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings

pytestmark = pytest.mark.slow

ADMIN = 'admin-api-admin-token-0123456789'
AUTH = {'Authorization': f'Bearer {ADMIN}'}


def make_app(data_dir: Path):  # type: ignore[no-untyped-def]
    from api.app import create_app

    return create_app(Settings.load({}, data_dir=data_dir, api_token=ADMIN, graph_enabled=False))


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    application = make_app(tmp_path_factory.mktemp('admin'))
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture(scope='module')
def other_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A second, empty service: the target of round trips."""
    application = make_app(tmp_path_factory.mktemp('admin-other'))
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture
def other(other_app):  # type: ignore[no-untyped-def]
    return other_app.test_client()


def write(client, **item: Any) -> str:  # type: ignore[no-untyped-def]
    response = client.post('/v1/memories', json=item, headers=AUTH)
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()['id']


def export(client, query: str = '') -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/admin/export{query}', headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == 'application/x-ndjson'
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def import_(client, lines: list[str], query: str = ''):  # type: ignore[no-untyped-def]
    return client.post(
        f'/v1/admin/import{query}',
        data='\n'.join(lines) + '\n',
        headers={**AUTH, 'Content-Type': 'application/x-ndjson'},
    )


def jsonl(records: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(r) for r in records]


def agent_token(client, agent_id: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    token = client.post('/v1/tokens', json={'agent_id': agent_id}, headers=AUTH).get_json()
    return {'Authorization': f'Bearer {token["token"]}'}


# ---- export / import ----------------------------------------------------------------------


def test_export_then_import_into_an_empty_service_loses_nothing(client, other):
    write(
        client, scope='agent:rt-b', text='Alice prefers green tea', kind='preference',
        user_id='alice', importance=0.8, importance_label='must_remember', pinned=True,
        created_at='2023-05-08T13:56:00Z', metadata={'dia_id': 'D1:3', 'n': [1, 2]},
        tags=['drinks', 'alice'], source='tool', source_ref='chat:42', trust='untrusted',
    )  # fmt: skip
    write(
        client, scope='agent:rt-a', text='The deploy runs at noon', kind='fact', tier='peripheral'
    )
    write(
        client,
        scope='agent:rt-a',
        text='Quarterly report is due Friday',
        expires_at='2030-01-01T00:00:00Z',
    )
    exported = export(client, '?scope=agent:rt-a') + export(client, '?scope=agent:rt-b')
    assert len(exported) == 3

    response = import_(other, jsonl(exported))
    assert response.status_code == 200, response.get_json()
    assert response.get_json()['imported'] == 3
    assert response.get_json()['invalid'] == 0
    again = export(other, '?scope=agent:rt-a') + export(other, '?scope=agent:rt-b')
    assert again == exported
    tea = next(r for r in again if r['kind'] == 'preference')
    assert tea['user_id'] == 'alice' and tea['pinned'] is True and tea['tier'] == 'core'
    assert tea['created_at'].startswith('2023-05-08T13:56:00')
    assert tea['metadata'] == {'dia_id': 'D1:3', 'n': [1, 2]}
    assert tea['tags'] == ['drinks', 'alice']
    assert tea['importance'] == 0.8 and tea['importance_label'] == 'must_remember'
    # imported memories are searchable: the texts were embedded again
    hits = other.post(
        '/v1/memory_search', json={'query': 'green tea', 'scope': 'agent:rt-b'}, headers=AUTH
    ).get_json()['hits']
    assert hits and hits[0]['text'] == 'Alice prefers green tea'


def test_export_is_ordered_by_scope_then_id_and_is_repeatable(client):
    for n in range(5):
        write(client, scope=f'agent:ord-{n % 2}', text=f'ordering memory number {n}')
    records = export(client)
    keys = [(r['scope'], r['id']) for r in records]
    assert keys == sorted(keys)
    assert export(client) == records


def test_import_dedupe_modes(client):
    scope = 'agent:dedupe'
    ident = write(client, scope=scope, text='The cafeteria closes at three')
    [record] = export(client, f'?scope={scope}')
    same_text_new_id = {**record, 'id': '00000000-0000-4000-8000-000000000001'}
    lines = jsonl([record, same_text_new_id])

    by_id = import_(client, lines, '?dedupe=id&dry_run=true').get_json()
    assert (by_id['imported'], by_id['skipped_duplicate']) == (1, 1)
    by_text = import_(client, lines, '?dedupe=id_text&dry_run=true').get_json()
    assert (by_text['imported'], by_text['skipped_duplicate']) == (0, 2)
    by_none = import_(client, lines, '?dedupe=none&dry_run=true').get_json()
    assert (by_none['imported'], by_none['skipped_duplicate']) == (2, 0)

    real = import_(client, lines, '?dedupe=id_text').get_json()
    assert real['imported'] == 0 and real['dry_run'] is False
    assert [r['id'] for r in export(client, f'?scope={scope}')] == [ident]
    real = import_(client, lines, '?dedupe=id').get_json()
    assert real['imported'] == 1
    assert len(export(client, f'?scope={scope}')) == 2


def test_a_repeated_line_is_a_duplicate_within_the_file(client):
    record = {'scope': 'agent:rep', 'text': 'Lines repeat in sloppy exports'}
    report = import_(client, jsonl([record, record]), '?dedupe=id').get_json()
    assert (report['imported'], report['skipped_duplicate']) == (1, 1)
    assert len(export(client, '?scope=agent:rep')) == 1


def test_dry_run_changes_nothing(client):
    before = export(client)
    lines = jsonl([{'scope': 'agent:dry', 'text': f'dry run memory {n}'} for n in range(4)])
    report = import_(client, lines, '?dry_run=true').get_json()
    assert report == {
        **report,
        'read': 4,
        'imported': 4,
        'invalid': 0,
        'dry_run': True,
        'dedupe': 'id',
    }
    assert export(client) == before


def test_invalid_lines_are_counted_with_their_line_numbers_and_the_rest_imported(client):
    lines = [
        json.dumps({'scope': 'agent:inv', 'text': 'a valid memory'}),
        '{not json',
        '',
        json.dumps({'scope': 'not a scope', 'text': 'x'}),
        json.dumps(['a', 'list']),
        json.dumps({'scope': 'agent:inv', 'text': '   '}),
        json.dumps({'scope': 'agent:inv', 'text': 'y', 'id': 'not-a-uuid', 'typo': 1}),
        json.dumps({'scope': 'agent:inv', 'text': 'another valid memory', 'kind': 'fact'}),
    ]
    report = import_(client, lines).get_json()
    assert report['read'] == 7
    assert report['imported'] == 2
    assert report['invalid'] == 5
    by_line = {e['line']: e for e in report['errors']}
    assert sorted(by_line) == [2, 4, 5, 6, 7]
    assert by_line[2]['error'] == 'invalid_json'
    assert ['scope'] in [d['loc'] for d in by_line[4]['details']]
    locs = [d['loc'] for d in by_line[7]['details']]
    assert ['id'] in locs and ['typo'] in locs
    assert len(export(client, '?scope=agent:inv')) == 2


@pytest.mark.parametrize(
    ('query', 'field'),
    [('?dedupe=fuzzy', 'dedupe'), ('?dry_run=perhaps', 'dry_run'), ('?bogus=1', 'bogus')],
)
def test_bad_import_parameters_name_the_field_and_change_nothing(client, query, field):
    before = export(client)
    response = import_(client, jsonl([{'scope': 'agent:bad', 'text': 'x'}]), query)
    assert response.status_code == 422
    assert [field] in [d['loc'] for d in response.get_json()['details']]
    assert export(client) == before


def test_an_empty_import_body_is_rejected(client):
    response = client.post('/v1/admin/import', data='', headers=AUTH)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['body']


def test_export_redacts_emails_and_phones_on_request(client):
    text = 'Reach Bob at bob.smith@example.com or +1 (555) 010-9999; born 1990-04-01'
    write(client, scope='agent:pii', text=text, metadata={'contact': 'bob@example.org'})
    [plain] = export(client, '?scope=agent:pii')
    assert plain['text'] == text
    [masked] = export(client, '?scope=agent:pii&redact=true')
    assert masked['text'] == 'Reach Bob at [email] or [phone]; born 1990-04-01'
    assert masked['metadata'] == {'contact': '[email]'}
    assert masked['id'] == plain['id']


def test_admin_routes_refuse_agent_tokens(client):
    agent = agent_token(client, 'nosy')
    assert client.get('/v1/admin/export', headers=agent).status_code == 403
    assert client.post('/v1/admin/import', data='{}', headers=agent).status_code == 403
    assert client.get('/v1/admin/snapshot?scope=agent:nosy', headers=agent).status_code == 403
    body = {'scope': 'agent:nosy', 'markdown': '# x'}
    assert client.post('/v1/admin/hydrate', json=body, headers=agent).status_code == 403
    assert client.get('/v1/admin/export').status_code == 401


# ---- snapshot / hydrate -------------------------------------------------------------------


def test_snapshot_of_core_memories_hydrates_back_as_core_memories(client):
    scope, target = 'agent:snap', 'agent:snap-restored'
    write(
        client, scope=scope, text='Always deploy from the release branch\n\n## not a heading',
        kind='procedure', pinned=True, importance=0.9, created_at='2024-02-03T04:05:06Z',
        metadata={'why': 'incident 7'}, tags=['deploy'],
    )  # fmt: skip
    write(client, scope=scope, text='The CEO is called Dana', kind='entity', tier='core')
    write(client, scope=scope, text='Lunch was pasta today')  # working tier: not in snapshot
    response = client.get(f'/v1/admin/snapshot?scope={scope}', headers=AUTH)
    assert response.status_code == 200
    assert response.mimetype == 'text/markdown'
    assert response.headers['X-Mnemos-Count'] == '2'
    markdown = response.get_data(as_text=True)
    assert 'Lunch was pasta' not in markdown
    assert markdown.startswith(f'# Core memories of {scope}')

    report = client.post(
        '/v1/admin/hydrate', json={'scope': target, 'markdown': markdown}, headers=AUTH
    ).get_json()
    assert (report['read'], report['written'], report['invalid']) == (2, 2, 0)
    restored = {r['text']: r for r in export(client, f'?scope={target}')}
    deploy = restored['Always deploy from the release branch\n\n## not a heading']
    assert deploy['tier'] == 'core' and deploy['pinned'] is True
    assert deploy['kind'] == 'procedure' and deploy['importance'] == 0.9
    assert deploy['created_at'].startswith('2024-02-03T04:05:06')
    assert deploy['metadata'] == {'why': 'incident 7'} and deploy['tags'] == ['deploy']
    assert restored['The CEO is called Dana']['tier'] == 'core'

    again = client.post(
        '/v1/admin/hydrate', json={'scope': target, 'markdown': markdown}, headers=AUTH
    ).get_json()
    assert (again['written'], again['skipped_existing']) == (0, 2)


def test_hydrating_plain_markdown_writes_its_chunks_as_core_memories(client):
    markdown = '# Rules\n\nNever push on Fridays.\n\n# People\n\nDana runs the infra team.\n'
    report = client.post(
        '/v1/admin/hydrate', json={'scope': 'agent:plain', 'markdown': markdown}, headers=AUTH
    ).get_json()
    assert report['format'] == 'markdown'
    assert report['written'] == 2
    records = export(client, '?scope=agent:plain')
    assert {r['tier'] for r in records} == {'core'}
    assert any('Never push on Fridays.' in r['text'] for r in records)


def test_broken_snapshot_entries_are_counted_and_the_rest_hydrated(client):
    markdown = '\n'.join(
        [
            '# Core memories of agent:x',
            '## 1. ok',
            '<!-- mnemos:memory {"kind": "fact"} -->',
            'Water boils at 100 degrees',
            '## 2. broken',
            '<!-- mnemos:memory {not json} -->',
            'lost',
            '## 3. bad kind',
            '<!-- mnemos:memory {"kind": "gossip"} -->',
            'also lost',
        ]
    )
    report = client.post(
        '/v1/admin/hydrate', json={'scope': 'agent:broken', 'markdown': markdown}, headers=AUTH
    ).get_json()
    assert (report['read'], report['written'], report['invalid']) == (3, 1, 2)
    assert [e['line'] for e in report['errors']] == [2, 3]
    assert [r['text'] for r in export(client, '?scope=agent:broken')] == [
        'Water boils at 100 degrees'
    ]


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'scope': 'nope', 'markdown': '# x'}, ['scope']),
        ({'scope': 'agent:h', 'markdown': ''}, ['markdown']),
        ({'scope': 'agent:h'}, ['markdown']),
    ],
)
def test_bad_hydrate_requests_name_the_field_and_write_nothing(client, body, field):
    response = client.post('/v1/admin/hydrate', json=body, headers=AUTH)
    assert response.status_code == 422
    assert field in [d['loc'] for d in response.get_json()['details']]
    assert export(client, '?scope=agent:h') == []


def test_a_snapshot_needs_a_valid_scope(client):
    response = client.get('/v1/admin/snapshot', headers=AUTH)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['scope']


# ---- documents ----------------------------------------------------------------------------

DOC = """# Runbook

Restart the API with `make restart`.

## Database

Backups run nightly at 02:00 UTC.

## Contacts

Page the on-call engineer through PagerDuty.
"""


def doc_records(client, scope: str, path: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    records = [r for r in export(client, f'?scope={scope}') if r['doc_path'] == path]
    return sorted(records, key=lambda r: r['chunk_index'])


def post_doc(client, scope: str, path: str, markdown: str, headers=AUTH):  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'path': path, 'markdown': markdown}
    return client.post('/v1/documents', json=body, headers=headers)


def test_a_markdown_document_is_chunked_by_headings(client):
    response = post_doc(client, 'agent:docs', 'ops/runbook.md', DOC)
    assert response.status_code == 200, response.get_json()
    report = response.get_json()
    assert (report['chunks'], report['embedded'], report['reused']) == (3, 3, 0)
    records = doc_records(client, 'agent:docs', 'ops/runbook.md')
    assert [r['chunk_index'] for r in records] == [0, 1, 2]
    assert {r['kind'] for r in records} == {'document'}
    assert 'Backups run nightly' in records[1]['text']
    hits = client.post(
        '/v1/memory_search', json={'query': 'when do backups run', 'scope': 'agent:docs'},
        headers=AUTH,
    ).get_json()['hits']  # fmt: skip
    assert 'Backups run nightly' in hits[0]['text']


def test_reindexing_a_document_embeds_only_changed_chunks(client, app, monkeypatch):
    scope, path = 'agent:docs2', 'runbook.md'
    post_doc(client, scope, path, DOC)
    real = app.extensions['mnemos'].writer.embedder
    embed = real.embed
    embedded: list[str] = []

    def counting(texts):  # type: ignore[no-untyped-def]
        embedded.extend(texts)
        return embed(texts)

    monkeypatch.setattr(real, 'embed', counting)
    same = post_doc(client, scope, path, DOC).get_json()
    assert (same['embedded'], same['reused'], same['deleted']) == (0, 3, 0)
    assert embedded == []
    edited = DOC.replace('nightly at 02:00 UTC', 'hourly') + '\n## New\n\nA new section.\n'
    changed = post_doc(client, scope, path, edited).get_json()
    monkeypatch.undo()
    assert (changed['chunks'], changed['embedded'], changed['reused']) == (4, 2, 2)
    assert changed['deleted'] == 1
    assert len(embedded) == 2
    records = doc_records(client, scope, path)
    assert [r['chunk_index'] for r in records] == [0, 1, 2, 3]
    assert not any('nightly' in r['text'] for r in records)


@pytest.mark.parametrize('path', ['notes.txt', 'README', 'doc.md.bak', ''])
def test_only_markdown_paths_are_indexed(client, path):
    response = post_doc(client, 'agent:docs3', path, DOC)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['path']
    assert export(client, '?scope=agent:docs3') == []


def test_a_document_without_text_is_rejected(client):
    response = post_doc(client, 'agent:docs4', 'empty.md', '   \n\n')
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['markdown']


def test_a_document_index_stopped_half_way_leaves_the_old_version_and_none_of_the_new(
    client, app, monkeypatch
):
    from recall.documents import index as doc_index

    scope, path = 'agent:docs-half', 'handbook.md'
    old = '\n\n'.join(f'## Old {n}\n\nThe old rule {n} says tabs.' for n in range(4))
    new = '\n\n'.join(f'## New {n}\n\nThe zebra rule {n} says spaces.' for n in range(4))
    assert post_doc(client, scope, path, old).status_code == 200
    writer = app.extensions['mnemos'].writer
    real_store = writer.store
    steps: list[int] = []

    def stopped_after_one_step(chunks, dense=None, **kwargs):  # type: ignore[no-untyped-def]
        if steps:
            raise RuntimeError('the process stopped here')
        steps.append(len(chunks))
        real_store(chunks, dense, **kwargs)

    monkeypatch.setattr(doc_index, 'STEP_CHUNKS', 2)
    monkeypatch.setattr(writer, 'store', stopped_after_one_step)
    with pytest.raises(RuntimeError):
        app.extensions['mnemos'].documents.index(scope, path, new)
    assert steps == [2]  # half of the new version reached the store

    def search(query: str) -> list[str]:
        body = {'query': query, 'scope': scope, 'top_k': 20, 'min_score': 0.0}
        hits = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
        return [h['text'] for h in hits]

    assert not any('zebra' in t for t in search('zebra rule spaces'))
    assert sum('old rule' in t for t in search('old rule tabs')) == 4
    monkeypatch.setattr(writer, 'store', real_store)
    report = post_doc(client, scope, path, new).get_json()
    assert (report['chunks'], report['deleted']) == (4, 4)
    assert sum('zebra' in t for t in search('zebra rule spaces')) == 4
    assert not any('old rule' in t for t in search('old rule tabs'))


def test_a_document_index_stopped_before_its_deletes_shows_only_the_new_version(
    client, app, monkeypatch
):
    scope, path = 'agent:docs-swap', 'guide.md'
    assert post_doc(client, scope, path, '## Old\n\nThe walrus rule says tabs.').status_code == 200
    writer = app.extensions['mnemos'].writer

    def stopped(ids, graph=True):  # type: ignore[no-untyped-def]
        raise RuntimeError('the process stopped here')

    monkeypatch.setattr(writer, 'delete_many', stopped)
    with pytest.raises(RuntimeError):
        app.extensions['mnemos'].documents.index(
            scope, path, '## New\n\nThe walrus rule says spaces.'
        )
    body = {'query': 'walrus rule', 'scope': scope, 'top_k': 10, 'min_score': 0.0}
    hits = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert hits and all('spaces' in h['text'] for h in hits), hits


def test_deleting_a_document_removes_all_its_chunks(client):
    post_doc(client, 'agent:docs5', 'a.md', DOC)
    post_doc(client, 'agent:docs5', 'b.md', DOC)
    response = client.delete('/v1/documents?scope=agent:docs5&path=a.md', headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()['deleted'] == 3
    assert doc_records(client, 'agent:docs5', 'a.md') == []
    assert len(doc_records(client, 'agent:docs5', 'b.md')) == 3
    missing = client.delete('/v1/documents?scope=agent:docs5&path=a.md', headers=AUTH)
    assert missing.status_code == 404


def test_agents_index_documents_only_into_their_own_scopes(client):
    agent = agent_token(client, 'writer')
    assert post_doc(client, 'agent:writer', 'mine.md', DOC, agent).status_code == 200
    refused = post_doc(client, 'agent:someone', 'theirs.md', DOC, agent)
    assert refused.status_code == 403
    assert export(client, '?scope=agent:someone') == []
    deleting = client.delete('/v1/documents?scope=agent:someone&path=x.md', headers=agent)
    assert deleting.status_code == 403
