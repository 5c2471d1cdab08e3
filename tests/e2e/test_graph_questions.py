"""The graph speaks through a question's slot only when the question asks that slot's value of
someone it can resolve; a slot word elsewhere in a question leaves the ranking to the text."""

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
    # jobs run inline: the graph has read every write before the write returns
    services = build(make_settings(tmp_path_factory.mktemp('slots')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str, user: str | None = None) -> None:  # type: ignore[no-untyped-def]
    body: dict[str, Any] = {'scope': scope, 'text': text, 'created_at': at}
    if user is not None:
        body['user_id'] = user
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def search(client, auth, scope: str, query: str, **extra: Any) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'touch': False, 'graph': True, **extra}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return [h['text'] for h in response.get_json()['hits']]


@pytest.mark.parametrize(
    ('turns', 'question', 'answer'),
    [
        (
            ['John: I live in Seattle.', 'John: Tim, I recommend Barcelona for your trip.'],
            'Which city did John recommend to Tim?',
            'Barcelona',
        ),
        (
            ['John: I work at Acme Corp.', 'John: My first job was at a bakery, I loved it.'],
            'What did John love about his first job?',
            'bakery',
        ),
        (
            ['Maria: I am married to Sofia.', 'Maria: My wife lives in Porto for her work.'],
            "Where does Maria's wife live?",
            'Porto',
        ),
        (
            ['张伟：我住在北京。', '张伟：我推荐你去成都玩，那个城市很棒。'],
            '张伟推荐了哪个城市？',
            '成都',
        ),
    ],
)
def test_a_question_that_only_names_a_slot_word_is_ranked_by_its_text(
    client, auth, scope, turns, question, answer
):  # type: ignore[no-untyped-def]
    for day, text in enumerate(turns, start=1):
        write(client, auth, scope, text, f'2025-03-{day:02d}T09:00:00Z')
    hits = search(client, auth, scope, question)
    assert hits and answer in hits[0], hits


def graph(client, auth, scope: str, query: str, **extra: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, **extra}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def current(answer: dict[str, Any], predicate: str) -> list[str]:
    return [f['object'] for f in answer['facts'] if f['current'] and f['predicate'] == predicate]


def entity_type(client, auth, scope: str, name: str) -> str | None:  # type: ignore[no-untyped-def]
    url = f'/v1/kg/entities?scope={scope}&q={name}'
    items = client.get(url, headers=auth).get_json()['items']
    return next((e['type'] for e in items if e['name'] == name), None)


def test_a_company_the_segmenter_tags_as_a_place_is_where_one_works(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, '我在字节跳动上班。', '2025-01-10T09:00:00Z', user='zhoujie')
    write(client, auth, scope, '我现在在京东上班。', '2026-03-10T09:00:00Z', user='zhoujie')
    write(client, auth, scope, '我妹妹在上海上班。', '2026-03-11T09:00:00Z', user='zhoujie')
    answer = graph(client, auth, scope, '我在哪儿上班？', user_id='zhoujie')
    assert current(answer, 'works_at')[:1] == ['京东'], answer['facts']
    assert entity_type(client, auth, scope, '京东') == 'org'
    assert entity_type(client, auth, scope, '上海') == 'place'


def test_the_default_search_hears_the_graph_on_a_slot_question_and_graph_false_does_not(
    client, auth, scope
):  # type: ignore[no-untyped-def]
    for text, at in [
        ('我在腾讯上班，家住广州。', '2025-02-01T09:00:00Z'),
        ('我从腾讯跳槽到了拼多多。', '2026-05-01T09:00:00Z'),
    ]:
        body = {'scope': scope, 'text': text, 'created_at': at, 'user_id': 'vic'}
        response = client.post('/v1/memories/capture', json=body, headers=auth)
        assert response.status_code == 200, response.get_json()
    body = {'query': '我现在在哪家公司上班？', 'scope': scope, 'touch': False, 'user_id': 'vic'}
    default = client.post('/v1/memory_search', json=body, headers=auth).get_json()
    assert default['hits'] and '拼多多' in default['hits'][0]['text'], default['hits']
    assert 'graph' in default['receipt']['latency_ms']
    off = client.post('/v1/memory_search', json={**body, 'graph': False}, headers=auth).get_json()
    assert 'graph' not in off['receipt']['latency_ms']
