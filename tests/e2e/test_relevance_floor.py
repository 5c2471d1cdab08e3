"""The relevance floor knows a slot's words: a question that names a slot with other words than
the memory that answers it ("Where does Ann live?" / "I moved to Berlin") still gets it, in
English and Chinese, while a question about something the scope never mentions gets nothing."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def ask(client, auth, scope: str, query: str, user: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'touch': False, **({'user_id': user} if user else {})}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return [h['text'] for h in response.get_json()['hits']]


def bundle(client, auth, scope: str, message: str, user: str | None = None) -> str:  # type: ignore[no-untyped-def]
    body = {'message': message, 'scope': scope, **({'user_id': user} if user else {})}
    response = client.post('/v1/recall/bundle', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return str(response.get_json()['text'])


@pytest.mark.parametrize(
    ('memories', 'question', 'answer'),
    [
        (['I moved to Berlin last month.', 'I love climbing.'], 'Where does Ann live?', 'Berlin'),
        (['I love climbing.', 'I moved to Berlin last month.'], 'What are my hobbies?', 'climbing'),
        (['我跳槽到字节跳动了。', '我喜欢爬山。'], '我现在在哪家公司上班？', '字节跳动'),
        (['我上个月搬到了杭州。', '我喜欢爬山。'], '我住在哪里？', '杭州'),
    ],
)
def test_a_slot_named_in_other_words_still_passes_the_floor(
    client, auth, scope, memories, question, answer
):  # type: ignore[no-untyped-def]
    for text in memories:
        body = {'scope': scope, 'text': text, 'user_id': 'ann'}
        assert client.post('/v1/memories', json=body, headers=auth).status_code == 201
    hits = ask(client, auth, scope, question, 'ann')
    assert hits and answer in hits[0], hits
    assert answer in bundle(client, auth, scope, question, 'ann')


@pytest.mark.parametrize(
    'question',
    [
        '秘鲁的首都是哪里？',
        '帮我写一首关于秋天的诗。',
        '怎么做红烧肉？',
    ],
)
def test_an_unrelated_chinese_question_gets_no_memory(client, auth, scope, question):  # type: ignore[no-untyped-def]
    for text in [
        '我住在北京。',
        '我在百度做产品经理。',
        '我是一名老师。',
        '我喜欢爬山。',
        'I live in Paris.',
    ]:
        body = {'scope': scope, 'text': text, 'user_id': 'ann'}
        assert client.post('/v1/memories', json=body, headers=auth).status_code == 201
    assert ask(client, auth, scope, question, 'ann') == []
    assert bundle(client, auth, scope, question, 'ann') == ''


def test_a_memory_stating_a_fact_of_the_slot_a_question_names_passes_the_floor(client, auth, scope):  # type: ignore[no-untyped-def]
    # "I'm good at Rust" shares no word with the question, but states a skill
    for text in ["I'm good at Rust.", 'I write Python at work.', "I'm good at Haskell."]:
        body = {'scope': scope, 'text': text, 'user_id': 'ann'}
        assert client.post('/v1/memories', json=body, headers=auth).status_code == 201
    hits = ask(client, auth, scope, 'What languages do I code in?', 'ann')
    assert all(any(lang in h for h in hits) for lang in ('Rust', 'Python', 'Haskell')), hits
