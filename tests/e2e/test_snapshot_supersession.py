"""A Core snapshot keeps when each fact was last stated, so supersession after a hydrate
orders facts as it did before it."""

from __future__ import annotations

import json
from typing import Any


def write(client, auth, scope: str, text: str, at: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': text, 'user_id': 'ann', 'tier': 'core', 'created_at': at}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return dict(response.get_json())


def exported(client, auth, scope: str) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/admin/export?scope={scope}', headers=auth)
    assert response.status_code == 200, response.get_json()
    records = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    return {r['text']: r for r in records}


def test_a_hydrated_snapshot_keeps_stated_at_and_what_a_later_write_supersedes(client, auth, scope):  # type: ignore[no-untyped-def]
    target = f'{scope}-restored'
    paris = write(client, auth, scope, 'I live in Paris', '2024-01-01T09:00:00Z')
    write(client, auth, scope, 'I moved to Berlin', '2024-03-01T09:00:00Z')
    # said again in June: Paris is current again and Berlin history
    again = write(client, auth, scope, 'I live in Paris', '2024-06-01T09:00:00Z')
    assert again['id'] == paris['id'], again
    source = exported(client, auth, scope)['I live in Paris']
    assert source['stated_at'].startswith('2024-06-01'), source

    response = client.get(f'/v1/admin/snapshot?scope={scope}', headers=auth)
    assert response.status_code == 200
    markdown = response.get_data(as_text=True)
    assert 'I moved to Berlin' not in markdown  # superseded: not a Core memory any more
    report = client.post(
        '/v1/admin/hydrate', json={'scope': target, 'markdown': markdown}, headers=auth
    ).get_json()
    assert (report['written'], report['invalid']) == (1, 0), report
    restored = exported(client, auth, target)['I live in Paris']
    assert restored['created_at'].startswith('2024-01-01'), restored
    assert restored['stated_at'].startswith('2024-06-01'), restored

    # a move told as of April is older than June's statement: history, in both scopes alike
    outcomes = []
    for where in (scope, target):
        rome = write(client, auth, where, 'I moved to Rome', '2024-04-01T09:00:00Z')
        home = exported(client, auth, where)['I live in Paris']
        outcomes.append(
            (rome['superseded'], rome['superseded_by'] == home['id'], home['superseded'])
        )
    assert outcomes == [([], True, False), ([], True, False)], outcomes


def test_a_hydrated_snapshot_keeps_which_facts_of_a_memory_were_replaced_and_by_which(
    client, auth, scope
):  # type: ignore[no-untyped-def]
    target = f'{scope}-restored'
    write(client, auth, scope, 'I live in Leeds and work at Arup', '2024-01-01T09:00:00Z')
    write(client, auth, scope, 'I moved to York', '2024-03-01T09:00:00Z')
    markdown = client.get(f'/v1/admin/snapshot?scope={scope}', headers=auth).get_data(as_text=True)
    report = client.post(
        '/v1/admin/hydrate', json={'scope': target, 'markdown': markdown}, headers=auth
    ).get_json()
    assert (report['written'], report['invalid']) == (2, 0), report
    restored = exported(client, auth, target)
    [record] = restored['I live in Leeds and work at Arup']['stale']
    assert (record['slot'], record['old_value'], record['new_value']) == (
        'lives_in',
        'leeds',
        'york',
    )
    assert record['by'] == restored['I moved to York']['id']
    assert restored['I live in Leeds and work at Arup']['superseded_by'] is None
