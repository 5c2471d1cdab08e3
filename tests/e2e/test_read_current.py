"""The read side of one current answer without the graph: a memory whose value of the asked slot
was replaced ranks below its replacement, and still answers questions about its other facts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('read-current')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str) -> None:  # type: ignore[no-untyped-def]
    body: dict[str, Any] = {'scope': scope, 'text': text, 'created_at': at, 'user_id': 'vic'}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def top(client, auth, scope: str, query: str, **extra: Any) -> str:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'touch': False, 'user_id': 'vic', **extra}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    hits = response.get_json()['hits']
    assert hits, response.get_json()
    return str(hits[0]['text'])


@pytest.mark.parametrize('graph', [False, None])
@pytest.mark.parametrize(
    ('first', 'update', 'changed', 'new', 'kept', 'old'),
    [
        (
            'I live in Toronto and work at Wayne Enterprises as a teacher.',
            'I left Wayne Enterprises and joined Pied Piper.',
            'Where do I work?',
            'Pied Piper',
            'Where do I live?',
            'Toronto',
        ),
        (
            '我在腾讯上班，家住广州。',
            '我从腾讯跳槽到了拼多多。',
            '我现在在哪家公司上班？',
            '拼多多',
            '我住在哪里？',
            '广州',
        ),
    ],
)
def test_a_partly_replaced_memory_ranks_below_the_new_value_of_that_slot_only(
    client, auth, scope, graph, first, update, changed, new, kept, old
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, first, '2025-02-01T09:00:00Z')
    write(client, auth, scope, update, '2026-05-01T09:00:00Z')
    extra = {} if graph is None else {'graph': graph}
    assert new in top(client, auth, scope, changed, **extra)
    assert old in top(client, auth, scope, kept, **extra)


@pytest.mark.parametrize(
    ('first', 'update', 'question', 'answer'),
    [
        (
            'I live in Leeds and my mother lives in Bath.',
            'I moved to York.',
            'Where does my mother live?',
            'Bath',
        ),
    ],
)
def test_a_replaced_value_of_the_asker_does_not_sink_the_answer_about_someone_else(
    client, auth, scope, first, update, question, answer
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, first, '2025-02-01T09:00:00Z')
    write(client, auth, scope, update, '2026-05-01T09:00:00Z')
    assert answer in top(client, auth, scope, question, graph=False)
