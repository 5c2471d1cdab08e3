"""Capture keeps what a turn says about a slot, over HTTP: past tense and "used to" (stored as
past facts), Chinese turns with 了, time words, 跳槽, 搬到 and 入职, and third-person facts."""

from __future__ import annotations

import pytest

from tests.e2e.http_calls import capture, read


@pytest.mark.parametrize(
    'text',
    [
        'I worked at Acme as an analyst in 2023',
        '我跳槽到阿里巴巴了',
        'We just moved to Sydney.',
        'I no longer like bullet points',
        'I now prefer prose over bullet points',
        '我也会说日语。',
        '张伟在阿里巴巴工作',
    ],
)
def test_a_turn_that_states_a_fact_of_a_slot_is_kept(client, auth, scope, text):  # type: ignore[no-untyped-def]
    result = capture(client, auth, scope, text)
    assert result['skipped'] is None, result
    [stored] = result['stored']
    assert stored['status'] == 'created' and stored['text'] == text.rstrip('.。')


def test_a_past_job_is_stored_as_past_beside_the_current_one(client, auth, scope):  # type: ignore[no-untyped-def]
    [now] = capture(client, auth, scope, 'I work at Globex', user_id='ann')['stored']
    [then] = capture(client, auth, scope, 'I worked at Acme as an analyst in 2023', user_id='ann')[
        'stored'
    ]
    assert read(client, auth, now['id'])['superseded_by'] is None
    record = read(client, auth, then['id'])['supersession']
    assert (record['slot'], record['old_value'], record['new_value'], record['rule']) == (
        'works_at',
        'acme (past)',
        'globex',
        'past',
    )


@pytest.mark.parametrize(
    ('first', 'second', 'slot', 'values'),
    [
        ('我住在巴黎', '我上个月搬到了柏林', 'lives_in', ('巴黎', '柏林')),
        ('我在腾讯工作', '我跳槽到阿里巴巴了', 'works_at', ('腾讯', '阿里巴巴')),
        ('我在百度上班', '我上个月入职了字节跳动', 'works_at', ('百度', '字节跳动')),
        (
            '张伟在阿里巴巴工作',
            '去年张伟从阿里巴巴跳槽到了字节跳动',
            'works_at',
            ('阿里巴巴', '字节跳动'),
        ),
    ],
)
def test_a_chinese_change_supersedes_the_old_value_of_its_subject(  # type: ignore[no-untyped-def]
    client, auth, scope, first, second, slot, values
):
    [old] = capture(client, auth, scope, first)['stored']
    [new] = capture(client, auth, scope, second)['stored']
    assert new['reason'] == 'supersedes older memories', new
    stored = read(client, auth, old['id'])
    assert stored['superseded_by'] == new['id']
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (slot, *values)


def test_another_persons_change_leaves_mine_alone(client, auth, scope):  # type: ignore[no-untyped-def]
    [mine] = capture(client, auth, scope, '我在阿里巴巴工作')['stored']
    [his] = capture(client, auth, scope, '张伟在阿里巴巴工作')['stored']
    [move] = capture(client, auth, scope, '去年张伟从阿里巴巴跳槽到了字节跳动')['stored']
    assert read(client, auth, his['id'])['superseded_by'] == move['id']
    assert read(client, auth, mine['id'])['superseded_by'] is None


@pytest.mark.parametrize(
    ('old', 'new', 'values'),
    [
        ('Please call me Liz.', 'Call me Beth from now on, not Liz.', ('liz', 'beth')),
        ('你可以叫我小王。', '以后叫我王总。', ('小王', '王总')),
    ],
)
def test_a_captured_name_pinned_as_an_entity_is_hidden_by_its_pinned_correction(
    client, auth, scope, old, new, values
):  # type: ignore[no-untyped-def]
    [first] = capture(client, auth, scope, old, user_id='sam')['stored']
    [second] = capture(client, auth, scope, new, user_id='sam')['stored']
    stored = read(client, auth, first['id'])
    # both names are pinned entities: the later one replaces the earlier, which stays pinned
    assert stored['pinned'] and stored['superseded_by'] == second['id']
    assert read(client, auth, second['id'])['superseded_by'] is None
    [record] = stored['stale']
    assert (record['slot'], record['old_value'], record['new_value'], record['by']) == (
        'name',
        *values,
        second['id'],
    )


@pytest.mark.parametrize(
    ('first', 'second', 'later'),
    [
        (
            'I am a data analyst.',
            'I got promoted, I am a software engineer now.',
            'I am an engineering manager now.',
        ),
        ('I am a junior engineer.', 'I got promoted to senior engineer.', None),
        ('我是初级工程师。', '我升职了，现在是高级工程师。', '我现在是技术总监。'),
    ],
)
def test_a_promotion_is_one_memory_that_replaces_the_old_title(  # type: ignore[no-untyped-def]
    client, auth, scope, first, second, later
):
    [old] = capture(client, auth, scope, first, user_id='ann')['stored']
    result = capture(client, auth, scope, second, user_id='ann')
    # the change and its new value stay one memory: "I got promoted" alone says nothing
    [new] = result['stored']
    assert new['text'] == second.rstrip('.。'), result
    record = read(client, auth, old['id'])['supersession']
    assert record['slot'] == 'title' and record['by'] == new['id'], record
    if later is not None:
        [newest] = capture(client, auth, scope, later, user_id='ann')['stored']
        assert read(client, auth, new['id'])['superseded_by'] == newest['id']
