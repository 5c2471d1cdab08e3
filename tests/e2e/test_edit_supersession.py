"""Editing the text of a memory weighs its supersession again, over HTTP on the real stores: a
record its new text no longer justifies goes as after its delete (what it hid is current
again), its new text outdates what it now states as a new write would, an edit that keeps the
fact keeps the records, and the history explains each state."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ADMIN_TOKEN
from tests.e2e import http_calls

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}


def write(client, scope: str, text: str, at: str, **fields: Any) -> str:  # type: ignore[no-untyped-def]
    return str(
        http_calls.write(client, AUTH, scope, text, created_at=at, user_id='ann', **fields)['id']
    )


def read(client, ident: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return http_calls.read(client, AUTH, ident)


def top_hit(client, scope: str, query: str) -> str:  # type: ignore[no-untyped-def]
    return http_calls.top_id(client, AUTH, scope, query, user_id='ann', touch=False)


def exported(client, scope: str) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    return http_calls.exported(client, AUTH, scope)


def edit(client, ident: str, text: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = client.patch(f'/v1/memories/{ident}', json={'text': text}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def history(client, ident: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/memories/{ident}/history', headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def naming(client, scope: str, ident: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The texts of the stored memories with a record naming `ident`."""
    return sorted(
        r['text']
        for r in exported(client, scope).values()
        if r.get('superseded_by') == ident or any(s.get('by') == ident for s in r['stale'])
    )


def test_an_edit_that_no_longer_states_the_fact_makes_what_it_hid_current_again(client, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    york = write(client, scope, 'I moved to York.', '2025-02-01T09:00:00Z')
    assert read(client, leeds)['superseded_by'] == york

    edited = edit(client, york, 'I like tea.')

    assert edited['text'] == 'I like tea.'
    restored = read(client, leeds)
    assert (restored['superseded_by'], restored['stale']) == (None, []), restored
    assert naming(client, scope, york) == []
    assert top_hit(client, scope, 'Where do I live?') == leeds
    seen = history(client, leeds)
    assert (seen['superseded'], seen['superseded_by'], seen['stale']) == (False, None, [])
    theirs = history(client, york)
    assert theirs['supersedes'] == []
    assert [v['text'] for v in theirs['versions']] == ['I moved to York.']


def test_an_edit_that_now_states_a_fact_outdates_the_older_one(client, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    tea = write(client, scope, 'I like tea.', '2025-02-01T09:00:00Z')
    assert read(client, leeds)['superseded_by'] is None

    edit(client, tea, 'I moved to York.')

    outdated = read(client, leeds)
    assert outdated['superseded_by'] == tea, outdated
    assert [(s['slot'], s['old_value'], s['new_value'], s['by']) for s in outdated['stale']] == [
        ('lives_in', 'leeds', 'york', tea)
    ]
    assert top_hit(client, scope, 'Where do I live?') == tea
    seen = history(client, leeds)
    assert seen['superseded'] is True
    assert seen['superseded_by']['id'] == tea
    assert seen['superseded_by']['text'] == 'I moved to York.'
    assert (
        seen['superseded_by']['details']['slot'],
        seen['superseded_by']['details']['new_value'],
    ) == (
        'lives_in',
        'york',
    )
    assert [m['id'] for m in history(client, tea)['supersedes']] == [leeds]


def test_an_edit_that_keeps_the_fact_keeps_the_records(client, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    york = write(client, scope, 'I moved to York.', '2025-02-01T09:00:00Z')
    before = exported(client, scope)[leeds]
    assert before['superseded_by'] == york

    edit(client, york, 'I moved to York last spring.')

    after = exported(client, scope)[leeds]
    fields = ('superseded', 'superseded_by', 'supersession', 'stale', 'updated_at')
    assert {f: after[f] for f in fields} == {f: before[f] for f in fields}
    assert history(client, leeds)['superseded_by']['id'] == york


def test_an_edit_to_another_value_outdates_the_old_one_by_the_new_value(client, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    york = write(client, scope, 'I moved to York.', '2025-02-01T09:00:00Z')

    edit(client, york, 'I moved to Bath.')

    outdated = read(client, leeds)
    assert outdated['superseded_by'] == york
    assert [(s['old_value'], s['new_value'], s['by']) for s in outdated['stale']] == [
        ('leeds', 'bath', york)
    ]
    assert history(client, leeds)['superseded_by']['details']['new_value'] == 'bath'


def test_editing_a_hidden_memory_to_another_fact_shows_it_again(client, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    york = write(client, scope, 'I moved to York.', '2025-02-01T09:00:00Z')

    edited = edit(client, leeds, 'I like tea.')

    assert (edited['superseded_by'], edited['stale']) == (None, []), edited
    assert read(client, york)['superseded_by'] is None
    assert naming(client, scope, york) == []
