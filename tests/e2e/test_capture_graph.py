"""Captured facts reach the graph with the user as the speaker (issue 13): a user who changes
jobs twice gets the right answer to "where did I work in 2024?", in English and in Chinese."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.settings import Settings
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TOKEN = 'capture-graph-token-0123456789ab'
AUTH = {'Authorization': f'Bearer {TOKEN}'}


@pytest.fixture(scope='module')
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('capture-graph')
    app = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield app.test_client()
    app.extensions['mnemos'].close()


def capture(client, scope: str, user: str, text: str) -> dict:  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': text, 'user_id': user}
    response = client.post('/v1/memories/capture', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def jobs_at(client, scope: str, user: str, as_of: str) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': user, 'scope': scope, 'as_of': as_of, 'hops': 1}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    facts = response.get_json()['facts']
    return [f['object'] for f in facts if f['subject'] == user and f['predicate'] == 'works_at']


def wait_for(  # type: ignore[no-untyped-def]
    client, scope: str, user: str, expected: list[str], as_of: str = '2100-01-01T00:00:00Z'
) -> None:
    wait_until(  # graph extraction runs as jobs
        lambda: jobs_at(client, scope, user, as_of) == expected,
        lambda: jobs_at(client, scope, user, as_of),
    )


@pytest.mark.parametrize(
    ('user', 'turns', 'in_2024', 'now'),
    [
        (
            'dana',
            [
                'I started working at Initech in March 2021.',
                'I joined Globex in May 2023.',
                'I just started a new job at Hooli in February 2025.',
            ],
            'Globex',
            'Hooli',
        ),
        (
            'dongsheng',
            [
                '我2021年3月入职了阿里巴巴。',
                '我2023年5月加入了腾讯。',
                '我2025年2月入职了字节跳动。',
            ],
            '腾讯',
            '字节跳动',
        ),
    ],
)
def test_a_user_who_changes_jobs_twice_gets_the_job_they_had_in_2024(
    client, user: str, turns: list[str], in_2024: str, now: str
):  # type: ignore[no-untyped-def]
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    for text in turns:
        stored = capture(client, scope, user, text)['stored']
        assert [item['kind'] for item in stored] == ['fact'], stored
    wait_for(client, scope, user, [now])
    # each turn's graph job may run on its own worker thread: the latest job can be read before
    # an earlier one is written, so the 2024 answer gets the same wait
    wait_for(client, scope, user, [in_2024], as_of='2024-06-01T00:00:00Z')
    assert jobs_at(client, scope, user, '2024-06-01T00:00:00Z') == [in_2024]
    assert jobs_at(client, scope, user, '2022-06-01T00:00:00Z') != [in_2024]


def test_english_and_chinese_facts_of_one_user_meet_in_one_graph(client):  # type: ignore[no-untyped-def]
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    capture(client, scope, 'mei', 'I work at Initech.')
    capture(client, scope, 'mei', '我现在在腾讯工作。')
    wait_for(client, scope, 'mei', ['腾讯'])


@pytest.mark.parametrize(
    ('first', 'second'),
    [
        ('My son Leo was born on 2019-03-03.', 'My daughter Mia was born on 2019-03-03 too.'),
        ("My mother's birthday is May 9.", "My father's birthday is May 9 as well."),
        ('我妈妈的生日是5月9日。', '我爸爸的生日也是5月9日。'),
    ],
)
def test_two_peoples_birthdays_on_one_day_are_two_memories(client, first: str, second: str):  # type: ignore[no-untyped-def]
    # issue 12 item 2: the entity key names whose birthday it is
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    a = capture(client, scope, 'dana', first)['stored']
    b = capture(client, scope, 'dana', second)['stored']
    assert [i['kind'] for i in a] == ['entity'] and [i['kind'] for i in b] == ['entity']
    listed = client.get(f'/v1/memories?scope={scope}', headers=AUTH).get_json()['items']
    assert len(listed) == 2, [m['text'] for m in listed]


@pytest.mark.parametrize(
    ('old', 'new', 'query', 'expected'),
    [
        ('I live in Berlin.', 'I moved to Paris.', 'live in Berlin or moved to Paris', 'Paris'),
        ('我住在北京。', '我已经搬到上海了。', '住在北京还是搬到上海', '上海'),
        (
            'I use vim for everything.',
            'Switched to VS Code last week.',
            'vim or VS Code',
            'VS Code',
        ),
    ],
)
def test_after_a_change_search_returns_the_new_value_not_the_old(  # type: ignore[no-untyped-def]
    client, old: str, new: str, query: str, expected: str
):
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    capture(client, scope, 'dana', old)
    result = capture(client, scope, 'dana', new)
    assert result['stored'][0]['reason'] == 'supersedes older memories', result
    body = {'query': query, 'scope': scope, 'user_id': 'dana', 'min_score': 0.0}
    hits = client.post('/v1/memory_search', json=body, headers=AUTH).get_json()['hits']
    assert hits and expected in hits[0]['text']
    assert all(old.rstrip('.。') not in h['text'] for h in hits)


def test_chinese_chat_turns_written_with_the_speakers_name_reach_the_graph(client):  # type: ignore[no-untyped-def]
    # a client logging a chat writes "Name: words" (or "Name：words") and nothing else: the name
    # is the speaker, and "我" in the turn is that speaker
    scope = f'agent:zh{uuid.uuid4().hex[:8]}'
    turns = [
        ('张伟: 我在百度工作，住在北京。', '2023-03-01T10:00:00Z'),
        ('张伟：去年我从百度跳槽到了阿里巴巴。', '2025-02-01T10:00:00Z'),
    ]
    for text, when in turns:
        body = {'scope': scope, 'text': text, 'created_at': when}
        response = client.post('/v1/memories', json=body, headers=AUTH)
        assert response.status_code == 201, response.get_json()
    wait_for(client, scope, '张伟', ['百度'], as_of='2023-06-01T00:00:00Z')
    wait_for(client, scope, '张伟', ['阿里巴巴'])  # from 2024 ("去年" of the 2025 turn)
    query: dict[str, object] = {'query': '阿里巴巴', 'scope': scope, 'hops': 1}
    found = client.post('/v1/knowledge_graph_search', json=query, headers=AUTH).get_json()
    assert {e['name']: e['type'] for e in found['entities']}['阿里巴巴'] == 'org'
    query = {'query': '张伟', 'scope': scope, 'hops': 1}
    facts = client.post('/v1/knowledge_graph_search', json=query, headers=AUTH).get_json()['facts']
    said = {(f['subject'], f['predicate'], f['object']) for f in facts}
    assert ('张伟', 'lives_in', '北京') in said
