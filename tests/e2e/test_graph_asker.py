"""Who "I" is in a graph question asked without `user_id`: the scope's only user, else the
answer says that "I" was not resolved (and the request's `user_id` always wins)."""

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
    services = build(make_settings(tmp_path_factory.mktemp('asker')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, user: str) -> None:  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': text, 'user_id': user, 'created_at': '2026-03-01T09:00:00Z'}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def ask(client, auth, scope: str, query: str, **extra: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, **extra}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def objects(answer: dict[str, Any], predicate: str) -> set[str]:
    return {f['object'] for f in answer['facts'] if f['predicate'] == predicate}


@pytest.mark.parametrize(
    ('fact', 'question', 'employer'),
    [
        ('I work at Initech.', 'Where do I work?', 'Initech'),
        ('我在腾讯工作。', '我在哪里工作？', '腾讯'),
    ],
)
def test_i_is_the_scopes_only_user_when_no_user_id_is_given(
    client, auth, scope, fact, question, employer
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, fact, 'maya')
    answer = ask(client, auth, scope, question)
    assert employer in objects(answer, 'works_at'), answer['facts']
    assert answer['asker'] == 'maya'
    assert answer['warnings'] == []


@pytest.mark.parametrize(
    ('facts', 'question'),
    [
        (('I work at Initech.', 'I work at Globex.'), 'Where do I work?'),
        (('我在腾讯工作。', '我在华为工作。'), '我在哪里工作？'),
    ],
)
def test_i_among_several_users_is_reported_not_guessed(client, auth, scope, facts, question):  # type: ignore[no-untyped-def]
    write(client, auth, scope, facts[0], 'maya')
    write(client, auth, scope, facts[1], 'omar')
    answer = ask(client, auth, scope, question)
    assert answer['asker'] is None
    [warning] = answer['warnings']
    assert 'user_id' in warning and 'maya' in warning and 'omar' in warning, warning
    given = ask(client, auth, scope, question, user_id='omar')
    assert given['asker'] == 'omar' and given['warnings'] == []
    assert objects(given, 'works_at') == {'Globex' if 'Globex' in facts[1] else '华为'}


def test_a_question_not_about_the_asker_gets_no_asker_and_no_warning(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, 'Dana works at Acme.', 'maya')
    write(client, auth, scope, 'Omar lives in Leeds.', 'omar')
    answer = ask(client, auth, scope, 'Where does Dana work?')
    assert answer['asker'] is None and answer['warnings'] == []
    assert 'Acme' in objects(answer, 'works_at')
