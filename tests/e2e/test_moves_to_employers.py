"""A move to an organisation is a new job, not a new home, over HTTP, in memories and the graph.

"I moved to Google" used to become a home: the write side hid "I live in Paris" and the graph
said the speaker lives in Google (typed a place by the fact). An organisation by its own words (a
company suffix, a best-known employer) or by the tagger is an employer wherever it stands.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings
from tests.e2e import http_calls
from tests.e2e.http_calls import entity_type, read

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('moves')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return http_calls.write(client, auth, scope, text, user_id='ann', created_at=at)


def facts(client, auth, scope: str, query: str) -> set[tuple[str, str, bool]]:  # type: ignore[no-untyped-def]
    return http_calls.graph_facts(client, auth, scope, query, user_id='ann')


@pytest.mark.parametrize(
    ('move', 'org'),
    [
        ('I moved to Google last year.', 'Google'),
        ('I moved to Microsoft.', 'Microsoft'),
        ('I relocated to Acme Corp in 2025.', 'Acme Corp'),
    ],
)
def test_moving_to_an_organisation_keeps_the_home_and_names_the_employer(
    client, auth, scope, move, org
):  # type: ignore[no-untyped-def]
    home = write(client, auth, scope, 'I live in Paris.', '2025-01-01T09:00:00Z')
    moved = write(client, auth, scope, move, '2026-03-01T09:00:00Z')
    assert (moved['superseded'], moved['supersessions']) == ([], []), moved
    stored = read(client, auth, home['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, [])
    where = facts(client, auth, scope, 'Where do I live?')
    assert ('lives_in', 'Paris', True) in where, where
    assert not any(p == 'lives_in' and o == org for p, o, _ in where), where
    assert ('works_at', org, True) in facts(client, auth, scope, 'Where do I work?')
    assert entity_type(client, auth, scope, org) == 'org'


def test_moving_to_an_organisation_replaces_the_employer(client, auth, scope):  # type: ignore[no-untyped-def]
    job = write(client, auth, scope, 'I work at Initech.', '2025-01-01T09:00:00Z')
    moved = write(client, auth, scope, 'I moved to Google.', '2026-03-01T09:00:00Z')
    record = read(client, auth, job['id'])['supersession']
    assert (record['slot'], record['old_value'], record['new_value'], record['by']) == (
        'works_at',
        'initech',
        'google',
        moved['id'],
    )
    work = facts(client, auth, scope, 'Where do I work?')
    assert ('works_at', 'Google', True) in work and ('works_at', 'Initech', False) in work, work


def test_a_move_to_a_city_is_still_a_new_home(client, auth, scope):  # type: ignore[no-untyped-def]
    home = write(client, auth, scope, 'I live in Paris.', '2025-01-01T09:00:00Z')
    moved = write(client, auth, scope, 'I moved to Berlin last month.', '2026-03-01T09:00:00Z')
    assert read(client, auth, home['id'])['superseded_by'] == moved['id']
    where = facts(client, auth, scope, 'Where do I live?')
    assert ('lives_in', 'Berlin', True) in where and ('lives_in', 'Paris', False) in where, where
