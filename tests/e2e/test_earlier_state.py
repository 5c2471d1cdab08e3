"""A question about an earlier state without a date ("Where did I use to live?", "我以前住在哪
里？") reads the memories a later one replaced; a question about now still does not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from recall.read.history import asks_earlier
from runtime.bootstrap import build
from tests.conftest import make_settings
from tests.e2e import http_calls

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('earlier-state')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str) -> str:  # type: ignore[no-untyped-def]
    return str(http_calls.write(client, auth, scope, text, created_at=at, user_id='ivy')['id'])


def hits(client, auth, scope: str, query: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'touch': False, 'user_id': 'ivy', 'graph': False}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['hits'])


@pytest.mark.parametrize(
    ('scope', 'old', 'new', 'earlier', 'now'),
    [
        (
            'agent:earlier-en',
            'I live in Leeds.',
            'I moved to York last week.',
            ['Where did I use to live?', 'Where did I live previously?'],
            'Where do I live?',
        ),
        (
            'agent:earlier-zh',
            '我住在杭州市西湖区。',
            '我搬家了，现在住在上海浦东。',
            ['我以前住在哪里？', '我原来住在哪个区？', '我之前住在哪里？'],
            '我现在住在哪里？',
        ),
    ],
)
def test_a_question_about_an_earlier_state_finds_the_replaced_memory(
    app, auth, scope: str, old: str, new: str, earlier: list[str], now: str
) -> None:  # type: ignore[no-untyped-def]
    client = app.test_client()
    replaced = write(client, auth, scope, old, '2025-01-10T09:00:00Z')
    current = write(client, auth, scope, new, '2025-06-10T09:00:00Z')
    # the write superseded it: a question about now does not return it
    assert replaced not in [h['id'] for h in hits(client, auth, scope, now)]
    for question in earlier:
        found = {h['id']: h for h in hits(client, auth, scope, question)}
        assert replaced in found, question
        # the hit says it no longer holds, and what replaced it
        assert found[replaced]['supersession']['by'] == current, found[replaced]


@pytest.mark.parametrize(
    ('query', 'earlier'),
    [
        ('Where did I use to work?', True),
        ('What was my previous job?', True),
        ('Who was my doctor in the past?', True),
        ('我曾经养过什么宠物？', True),
        ('他之前在哪里工作？', True),
        ('Where do I work?', False),
        ('What do I use to edit code?', False),
        ('What should I do before the meeting?', False),
        ('开会之前要准备什么？', False),
        ('我现在住在哪里？', False),
    ],
)
def test_the_cues_of_an_earlier_state(query: str, earlier: bool) -> None:
    assert asks_earlier(query) is earlier
