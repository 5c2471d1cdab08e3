"""Deleting a memory that superseded others restores what it hid, over HTTP, in English and
Chinese: the older memory is current again in `memory_search` and GET, no memory keeps a record
naming the deleted id, and the graph's current fact agrees with search again. A memory another
live memory still outdates stays superseded, now by that one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    # jobs run inline: the graph has read every write (and forgotten every delete) at once
    services = build(make_settings(tmp_path_factory.mktemp('restore')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str, **fields: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': text, 'created_at': at, 'user_id': 'ann', **fields}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return dict(response.get_json())


def read(client, auth, ident: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/memories/{ident}', headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def delete(client, auth, ident: str) -> None:  # type: ignore[no-untyped-def]
    response = client.delete(f'/v1/memories/{ident}', headers=auth)
    assert response.status_code == 200, response.get_json()


def search(client, auth, scope: str, query: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'user_id': 'ann', 'touch': False, 'min_score': 0.0}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['hits'])


def graph_current(client, auth, scope: str, query: str, predicate: str) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'user_id': 'ann'}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    facts = response.get_json()['facts']
    return [f['object'] for f in facts if f['current'] and f['predicate'] == predicate]


def export(client, auth, scope: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/admin/export?scope={scope}', headers=auth)
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def names(records: list[dict[str, Any]]) -> set[str]:
    """Every memory id a stored memory's supersession state names."""
    out = {str(r['superseded_by']) for r in records if r.get('superseded_by')}
    return out | {str(s['by']) for r in records for s in r.get('stale') or []}


CASES = [
    ('I live in Leeds.', 'I moved to York.', 'Where do I live?', 'Leeds', 'lives_in'),
    ('I work at Acme Corp.', 'I joined Globex.', 'Where do I work?', 'Acme Corp', 'works_at'),
    ('我住在上海。', '我搬到杭州了。', '我住在哪里？', '上海', 'lives_in'),
    ('我不喜欢喝绿茶', '我喜欢喝绿茶', '我喜欢喝绿茶吗？', '我不喜欢喝绿茶', None),
]


@pytest.mark.parametrize(('old', 'new', 'question', 'value', 'predicate'), CASES)
def test_deleting_the_superseding_memory_makes_the_older_one_current_again(
    client, auth, scope, old, new, question, value, predicate
):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, old, '2024-03-01T09:00:00Z')['id']
    second = write(client, auth, scope, new, '2025-02-01T09:00:00Z')
    assert second['superseded'] == [first], second
    assert read(client, auth, first)['superseded_by'] == second['id']
    delete(client, auth, second['id'])
    restored = read(client, auth, first)
    assert (restored['superseded_by'], restored['stale']) == (None, []), restored
    hits = search(client, auth, scope, question)
    assert hits and hits[0]['id'] == first and value in hits[0]['text'], hits
    assert hits[0]['superseded_by'] is None
    assert not names(export(client, auth, scope)), 'a record names the deleted memory'
    if predicate is not None:
        assert graph_current(client, auth, scope, question, predicate)[:1] == [value]


def test_a_memory_another_live_one_still_outdates_stays_superseded_by_that_one(client, auth, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, auth, scope, 'I live in Leeds.', '2023-03-01T09:00:00Z')['id']
    york = write(client, auth, scope, 'I moved to York.', '2024-03-01T09:00:00Z')['id']
    bath = write(client, auth, scope, 'I moved to Bath.', '2025-03-01T09:00:00Z')['id']
    delete(client, auth, york)
    assert read(client, auth, leeds)['superseded_by'] == bath
    hits = search(client, auth, scope, 'Where do I live?')
    assert hits[0]['id'] == bath, hits
    assert graph_current(client, auth, scope, 'Where do I live?', 'lives_in')[:1] == ['Bath']


def test_a_less_trusted_rewrite_of_a_deleted_text_does_not_supersede_the_users_memory(
    client, auth, scope
):  # type: ignore[no-untyped-def]
    # the sequence the write-path property test drew: ids are uuid5(scope, user, text), so
    # the tool's write reuses the deleted memory's id
    body = {'scope': scope, 'kind': 'preference'}
    first = client.post('/v1/memories', json={**body, 'text': '我不喜欢喝绿茶'}, headers=auth)
    second = client.post('/v1/memories', json={**body, 'text': '我喜欢喝绿茶'}, headers=auth)
    first_id, second_id = first.get_json()['id'], second.get_json()['id']
    assert read(client, auth, first_id)['superseded_by'] == second_id
    delete(client, auth, second_id)
    tool = {**body, 'text': '我喜欢喝绿茶', 'source': 'tool'}
    again = client.post('/v1/memories', json=tool, headers=auth).get_json()
    assert again['id'] == second_id
    kept = read(client, auth, first_id)
    assert kept['superseded_by'] is None, kept
    assert read(client, auth, second_id)['trust'] != kept['trust']


def test_an_import_into_another_scope_keeps_records_naming_its_own_copies(client, auth, scope):  # type: ignore[no-untyped-def]
    old = write(client, auth, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')['id']
    new = write(client, auth, scope, 'I moved to York.', '2025-02-01T09:00:00Z')['id']
    records = export(client, auth, scope)
    copy, partial = f'{scope}-copy', f'{scope}-part'
    for target, kept in ((copy, records), (partial, [r for r in records if r['id'] == old])):
        body = ''.join(json.dumps({**r, 'scope': target}) + '\n' for r in kept)
        response = client.post('/v1/admin/import?dedupe=none', data=body, headers=auth)
        assert response.status_code == 200, response.get_json()
    copied = {r['text']: r for r in export(client, auth, copy)}
    leeds, york = copied['I live in Leeds.'], copied['I moved to York.']
    assert york['id'] != new  # ids derive from the scope
    assert leeds['superseded_by'] == york['id']
    assert {s['by'] for s in leeds['stale']} == {york['id']}
    # the copy's York deleted: the copy's Leeds is current again, the source's stays outdated
    delete(client, auth, york['id'])
    assert read(client, auth, leeds['id'])['superseded_by'] is None
    assert read(client, auth, old)['superseded_by'] == new
    # imported without the memory that outdated it: nothing in its scope outdates it
    [alone] = export(client, auth, partial)
    assert (alone['superseded_by'], alone['stale']) == (None, []), alone
