"""One current answer: after a fact changes, memory_search, knowledge_graph_search and the recall
bundle name the same current value, in English and Chinese; a question about a past time gets the
value that held then; the graph is asked in Chinese and in the first person."""

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
    services = build(make_settings(tmp_path_factory.mktemp('current')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str, user: str | None = None) -> None:  # type: ignore[no-untyped-def]
    body: dict[str, Any] = {'scope': scope, 'text': text, 'created_at': at}
    if user is not None:
        body['user_id'] = user
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def search(client, auth, scope: str, query: str, **extra: Any) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'touch': False, 'graph': True, **extra}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['hits'])


def graph(client, auth, scope: str, query: str, **extra: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, **extra}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def current(answer: dict[str, Any], predicate: str) -> list[str]:
    return [f['object'] for f in answer['facts'] if f['current'] and f['predicate'] == predicate]


DANA = [
    ('Dana: I work at Acme Corp as an analyst.', '2023-02-06T09:00:00Z'),
    ('Dana: The quarterly report at Acme is due Friday.', '2023-04-12T09:00:00Z'),
    ('Dana: I had lunch with my team today.', '2023-06-20T12:00:00Z'),
    ('Dana: My manager liked the dashboard.', '2023-09-03T16:00:00Z'),
    ('Dana: I am thinking about a new job.', '2024-01-15T18:00:00Z'),
    ('Dana: I had two interviews this week.', '2024-02-22T18:00:00Z'),
    ('Dana: I joined Globex as a data scientist.', '2024-04-01T09:00:00Z'),
    ('Dana: The Globex office has a great view.', '2024-05-10T09:00:00Z'),
    ('Dana: I went hiking with my sister.', '2024-07-04T10:00:00Z'),
    ('Dana: My commute to Globex takes twenty minutes.', '2024-09-12T08:00:00Z'),
]
DANA_ZH = [
    ('张伟：我在阿里巴巴做产品经理。', '2023-02-06T09:00:00Z'),
    ('张伟：这周阿里巴巴的季度报告要交。', '2023-04-12T09:00:00Z'),
    ('张伟：今天和同事一起吃了午饭。', '2023-06-20T12:00:00Z'),
    ('张伟：我最近在考虑换工作。', '2024-01-15T18:00:00Z'),
    ('张伟：我跳槽到字节跳动了。', '2024-04-01T09:00:00Z'),
    ('张伟：字节跳动的办公室很漂亮。', '2024-05-10T09:00:00Z'),
    ('张伟：周末和妹妹去爬山了。', '2024-07-04T10:00:00Z'),
    ('张伟：去字节跳动上班要二十分钟。', '2024-09-12T08:00:00Z'),
]


@pytest.mark.parametrize(
    ('turns', 'question', 'now', 'before', 'past_question'),
    [
        (DANA, 'Where does Dana work now?', 'Globex', 'Acme Corp', 'Where did Dana work in 2023?'),
        (DANA_ZH, '张伟在哪里工作?', '字节跳动', '阿里巴巴', '张伟2023年在哪里工作？'),
    ],
)
def test_after_a_job_change_search_and_graph_name_the_new_employer_and_the_past_one(
    client, auth, scope, turns, question, now, before, past_question
):  # type: ignore[no-untyped-def]
    for text, at in turns:
        write(client, auth, scope, text, at)
    hits = search(client, auth, scope, question)
    assert hits and now in hits[0]['text'], [h['text'] for h in hits]
    assert current(graph(client, auth, scope, question), 'works_at')[:1] == [now]
    # a question about a past time reads the graph then, and search finds the old job
    assert current(graph(client, auth, scope, past_question), 'works_at')[:1] == [before]
    then = search(client, auth, scope, past_question)
    assert any(before in h['text'] for h in then[:3]), [h['text'] for h in then]


@pytest.mark.parametrize(
    ('first', 'second', 'question', 'value'),
    [
        ('I live in Paris.', 'I moved to Berlin.', 'Where do I live?', 'Berlin'),
        ('我住在上海。', '我搬到杭州了。', '我住在哪里？', '杭州'),
    ],
)
def test_a_first_person_question_reads_the_askers_own_facts(
    client, auth, scope, first, second, question, value
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, first, '2025-01-10T09:00:00Z', user='ann')
    write(client, auth, scope, second, '2026-03-10T09:00:00Z', user='ann')
    write(client, auth, scope, 'I live in Madrid.', '2026-04-10T09:00:00Z', user='bob')
    answer = graph(client, auth, scope, question, user_id='ann')
    assert current(answer, 'lives_in')[:1] == [value], answer['facts']
    hits = search(client, auth, scope, question, user_id='ann')
    assert hits and value in hits[0]['text'], [h['text'] for h in hits]


def test_history_lists_the_facts_that_no_longer_hold_latest_first(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, 'Omar lives in Leeds.', '2022-01-10T09:00:00Z')
    write(client, auth, scope, 'Omar moved to York.', '2024-03-10T09:00:00Z')
    write(client, auth, scope, 'Omar moved to Lisbon.', '2026-03-10T09:00:00Z')
    plain = graph(client, auth, scope, 'Where does Omar live?')
    assert [f['object'] for f in plain['facts'] if f['predicate'] == 'lives_in'] == ['Lisbon']
    full = graph(client, auth, scope, 'Where does Omar live?', include_history=True)
    lived = [(f['object'], f['current']) for f in full['facts'] if f['predicate'] == 'lives_in']
    assert lived == [('Lisbon', True), ('York', False), ('Leeds', False)]


@pytest.mark.parametrize(
    ('old', 'new', 'now_question', 'past_question', 'before', 'after'),
    [
        (
            'I work at Acme Corp.',
            'I joined Globex.',
            'Where do I work?',
            'Where did I work in 2023?',
            'Acme',
            'Globex',
        ),
        (
            '我在阿里巴巴工作。',
            '我跳槽到字节跳动了。',
            '我在哪里工作？',
            '我2023年在哪里工作？',
            '阿里巴巴',
            '字节跳动',
        ),
    ],
)
def test_a_replaced_memory_answers_only_a_question_about_its_time_marked_superseded(
    client, auth, scope, old, new, now_question, past_question, before, after
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, old, '2023-03-01T09:00:00Z', user='dana')
    write(client, auth, scope, new, '2025-02-01T09:00:00Z', user='dana')
    now_hits = search(client, auth, scope, now_question, user_id='dana')
    assert now_hits and after in now_hits[0]['text']
    assert not any(before in h['text'] for h in now_hits), [h['text'] for h in now_hits]
    then = search(client, auth, scope, past_question, user_id='dana')
    old_hit = next(h for h in then if before in h['text'])
    assert old_hit['superseded_by'], old_hit
    body = {'scope': scope, 'message': past_question, 'user_id': 'dana'}
    packed = client.post('/v1/recall/bundle', json=body, headers=auth).get_json()['text']
    line = next(x for x in packed.splitlines() if before in x)
    assert 'superseded' in line, packed
