"""A supersession record naming a memory that no longer exists (written before deletes dropped
such records, or carried in by a hydrated snapshot) is repaired over the real stores: the
expiry job drops it as a delete of that memory would, so what it hid is current again over
HTTP, and a record naming a live memory is left as it is; a hydrate keeps no record naming a
memory its scope does not hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from core.jobs import JobName
from recall.models import MEMORIES
from runtime.bootstrap import Services, build
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.e2e import http_calls

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}


@pytest.fixture(scope='module')
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    # jobs run inline: the expiry job has run when enqueue returns
    built = build(
        make_settings(tmp_path_factory.mktemp('repair'), graph_enabled=False), inline_jobs=True
    )
    yield built
    built.close()


@pytest.fixture(scope='module')
def app(services: Services) -> Any:
    return create_app(services=services)


def write(client, scope: str, text: str, at: str, **fields: Any) -> str:  # type: ignore[no-untyped-def]
    return str(
        http_calls.write(client, AUTH, scope, text, created_at=at, user_id='ann', **fields)['id']
    )


def top_hit(client, scope: str, query: str) -> str:  # type: ignore[no-untyped-def]
    return http_calls.top_id(client, AUTH, scope, query, user_id='ann', touch=False)


def exported(client, scope: str) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    return http_calls.exported(client, AUTH, scope)


def names(record: dict[str, Any]) -> set[str]:
    out = {str(s['by']) for s in record.get('stale') or []}
    return out | ({str(record['superseded_by'])} if record.get('superseded_by') else set())


def test_the_expiry_job_shows_again_what_a_missing_memory_hid(client, services, scope):  # type: ignore[no-untyped-def]
    leeds = write(client, scope, 'I live in Leeds.', '2024-03-01T09:00:00Z')
    york = write(client, scope, 'I moved to York.', '2025-02-01T09:00:00Z')
    acme = write(client, scope, 'I work at Acme Corp.', '2024-03-01T09:00:00Z')
    globex = write(client, scope, 'I joined Globex.', '2025-02-01T09:00:00Z')
    assert exported(client, scope)[leeds]['superseded_by'] == york
    live = exported(client, scope)[acme]
    assert live['superseded_by'] == globex
    # old data: the superseder removed straight through the vector store port, its records left
    services.consolidation.vectors.delete(MEMORIES, [york])
    assert top_hit(client, scope, 'Where do I live?') != leeds

    services.jobs.enqueue(JobName.EXPIRY)

    stored = exported(client, scope)
    assert (stored[leeds]['superseded_by'], stored[leeds]['stale']) == (None, []), stored[leeds]
    assert not any(york in names(r) for r in stored.values())
    assert top_hit(client, scope, 'Where do I live?') == leeds
    response = client.get(f'/v1/memories/{leeds}/history', headers=AUTH)
    assert response.get_json()['superseded'] is False
    # a record naming a live memory is untouched
    assert stored[acme] == live
    # idempotent: the next run changes nothing
    services.jobs.enqueue(JobName.EXPIRY)
    assert exported(client, scope) == stored


def test_a_hydrate_keeps_no_record_naming_a_memory_its_scope_does_not_hold(client, scope):  # type: ignore[no-untyped-def]
    target = f'{scope}-restored'
    both = write(
        client, scope, 'I live in Leeds and work at Arup', '2024-01-01T09:00:00Z', tier='core'
    )
    york = write(client, scope, 'I moved to York', '2024-03-01T09:00:00Z')  # not Core
    assert names(exported(client, scope)[both]) == {york}
    markdown = client.get(f'/v1/admin/snapshot?scope={scope}', headers=AUTH).get_data(as_text=True)
    assert 'I moved to York' not in markdown
    response = client.post(
        '/v1/admin/hydrate', json={'scope': target, 'markdown': markdown}, headers=AUTH
    )
    assert response.status_code == 200, response.get_json()
    [restored] = exported(client, target).values()
    assert restored['text'] == 'I live in Leeds and work at Arup'
    assert (restored['superseded_by'], restored['stale']) == (None, []), restored
    # the source scope keeps its own record
    assert names(exported(client, scope)[both]) == {york}
