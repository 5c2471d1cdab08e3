"""Capture of what people say in passing (issue 13): possessions, family, jobs and homes, Chinese
clause lists, lessons, `/remember`, recall blocks, subject-scoped entity keys; and the labelled
extraction set's capture score on both languages."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.recall_block import strip_recall_blocks
from recall.tiers import Kind, Tier
from recall.write.capture import MAX_ITEMS_PER_TURN, SkipReason, capture, classify
from recall.write.deterministic import deterministic_capture

NOW = datetime(2026, 3, 1, tzinfo=UTC)
PREF = Kind.PREFERENCE
DATA = Path(__file__).resolve().parents[1] / 'data' / 'extraction_set.jsonl'


@pytest.mark.parametrize(
    ('text', 'kind', 'phrase'),
    [
        ('我在IDC机房有1000台4070', Kind.FACT, '4070'),
        ('I have two kids and a dog', Kind.FACT, 'two kids'),
        ('I own a Tesla', Kind.FACT, 'Tesla'),
        ('I drive a red Honda', Kind.FACT, 'Honda'),
        ("I've been vegetarian since 2019", Kind.PREFERENCE, 'vegetarian'),
        ('我养了一只猫叫咪咪', Kind.FACT, '咪咪'),
        ('我最爱的城市是杭州', Kind.PREFERENCE, '杭州'),
        ('我老板叫王强', Kind.RELATIONSHIP, '王强'),
        ('I just started a new job at Globex', Kind.FACT, 'Globex'),
        ('我已经搬到上海了', Kind.FACT, '上海'),
        ('I moved to Paris', Kind.FACT, 'Paris'),
        ('switched to VS Code', Kind.PREFERENCE, 'VS Code'),
    ],
)
def test_the_issues_lost_facts_are_salient_and_kept(text: str, kind: Kind, phrase: str):
    decision = capture(text, now=NOW)
    assert [(c.kind, phrase in c.text) for c in decision.candidates] == [(kind, True)]


def test_a_chinese_decision_keeps_its_subject_and_never_invents_one():
    [candidate] = classify('我们决定必须用 PostgreSQL,这是重要原则')
    assert candidate.kind == Kind.PROJECT_STATE
    assert 'PostgreSQL' in candidate.text and '我的这是' not in candidate.text


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ('我喜欢狗,不喜欢猫', [(PREF, '我喜欢狗'), (PREF, '我不喜欢猫')]),
        ('我喜欢 Python、讨厌 Java', [(PREF, '我喜欢 Python'), (PREF, '我讨厌 Java')]),
        ('回答不要用表格,用简洁的中文', [(Kind.LESSON, '回答不要用表格'), (PREF, '用简洁的中文')]),
        ('我不吃辣；我老婆不吃海鲜', [(PREF, '我不吃辣'), (Kind.RELATIONSHIP, '我老婆不吃海鲜')]),
    ],
)  # fmt: skip
def test_chinese_clause_lists_keep_every_clause(text: str, expected: list[tuple[Kind, str]]):
    assert [(c.kind, c.text) for c in classify(text)] == expected


def test_a_clause_that_continues_the_one_before_is_not_a_fact_of_its_own():
    [wife] = classify('我老婆叫刘芳,是一名医生')
    assert (wife.kind, wife.text) == (Kind.RELATIONSHIP, '我老婆叫刘芳，是一名医生')
    twins = classify('My daughter Mia was born on 2019-03-03 too, they are twins.')
    assert len(twins) == 1 and 'they are twins' in twins[0].text


@pytest.mark.parametrize(
    ('text', 'phrase'),
    [
        ('回答不要用表格', '表格'),
        ("Don't use bullet points, I told you before.", 'bullet points'),
        ('Stop adding emojis to your replies.', 'emojis'),
        ('别再用 emoji 了,我说过很多次了。', 'emoji'),
        ("You keep using tables; don't do that.", 'tables'),
        ('Do not summarise the question back to me before answering.', 'summarise'),
    ],
)
def test_corrections_become_core_lessons_that_are_not_pinned(text: str, phrase: str):
    [lesson] = capture(text, now=NOW).candidates
    assert (lesson.kind, lesson.tier, lesson.pinned) == (Kind.LESSON, Tier.CORE, False)
    assert phrase in lesson.text


@pytest.mark.parametrize(
    ('text', 'stored'),
    [
        ('/remember Standup moved to 9:30', 'Standup moved to 9:30'),
        ('/remember 周会改到周三下午三点', '周会改到周三下午三点'),
    ],
)
def test_a_literal_slash_remember_is_an_explicit_remember(text: str, stored: str):
    [candidate] = capture(text, now=NOW).candidates
    assert (candidate.kind, candidate.text, candidate.explicit) == (Kind.REMEMBER, stored, True)
    assert candidate.tier == Tier.CORE


def test_deterministic_values_are_not_cut_by_the_per_turn_cap():
    hobbies = '。'.join(f'我的第{i}个爱好是运动{i}' for i in range(MAX_ITEMS_PER_TURN))
    contacts = '。我的手机号是13812345678。我的邮箱是 a@example.com'
    decision = capture(hobbies + contacts, now=NOW)
    keys = {c.entity_key for c in decision.candidates}
    assert {'phone:+8613812345678', 'email:a@example.com'} <= keys
    assert sum(1 for c in decision.candidates if not c.captured) == MAX_ITEMS_PER_TURN


def test_a_recall_block_is_cut_out_and_what_the_user_wrote_is_kept():
    text = (
        '## Relevant Memory (current turn only)\n'
        '- [id=9a2, kind=fact, score=0.7] User lives in Berlin.\n'
        '- [id=9a3, kind=preference] 用户偏好直接简洁的回答。\n\n'
        'I just adopted a beagle called Pixel.'
    )
    decision = capture(text, now=NOW)
    assert [c.text for c in decision.candidates] == ['I just adopted a beagle called Pixel']
    assert strip_recall_blocks(text) == 'I just adopted a beagle called Pixel.'


def test_a_turn_that_is_only_a_recall_block_is_skipped_as_injected():
    decision = capture('## Relevant Memory (current turn only)\n- [id=1] 我叫东升', now=NOW)
    assert (decision.reason, decision.skipped[0].detail) == (SkipReason.INJECTED, 'recall_block')


def test_tagged_recall_sections_are_stripped_too():
    text = 'hello <recalled_memories>- User likes tea</recalled_memories> I live in Oslo'
    assert strip_recall_blocks(text) == 'hello  I live in Oslo'
    assert strip_recall_blocks('nothing to strip') == 'nothing to strip'


@pytest.mark.parametrize(
    ('first', 'second'),
    [
        ('My son Leo was born on 2019-03-03.', 'My daughter Mia was born on 2019-03-03 too.'),
        ("My mother's birthday is May 9.", "My father's birthday is May 9 as well."),
        ('我妈妈的生日是5月9日。', '我爸爸的生日也是5月9日。'),
    ],
)
def test_a_birthday_key_names_whose_birthday_it_is(first: str, second: str):
    [a] = deterministic_capture(first, NOW)
    [b] = deterministic_capture(second, NOW)
    assert a.value == b.value and a.entity_key != b.entity_key


def test_the_speakers_own_birthday_keeps_its_plain_key():
    for text in ('my birthday is 1990-05-01', '我生日是1990年5月1日', '我是1990年5月1日出生的'):
        [birthday] = deterministic_capture(text, NOW)
        assert birthday.entity_key == 'birthday:1990-05-01', text


def test_labelled_ids_are_deterministic_entities():
    [employee] = classify('My employee ID is E-40417.')
    assert (employee.kind, employee.entity_key) == (Kind.ENTITY, 'id:E-40417')


def _capture_f1(lang: str) -> tuple[float, float]:
    tp = fp = fn = 0
    quiet = quiet_fp = 0
    for line in DATA.read_text(encoding='utf-8').splitlines():
        item = json.loads(line)
        if item['lang'] != lang or item['capture'] is None or item.get('skip') == 'secret':
            continue  # secrets are the guards' job (issue 12), scored by the bench
        got = list(capture(item['text'], now=NOW).candidates)
        if not item['capture']:
            quiet += 1
            quiet_fp += bool(got)
        for want in item['capture']:
            hit = next(
                (c for c in got if c.kind == want['kind'] and want['contains'] in c.text), None
            )
            if hit is None:
                fn += 1
            else:
                got.remove(hit)
                tp += 1
        fp += len(got)
    return 2 * tp / (2 * tp + fp + fn), quiet_fp / quiet


@pytest.mark.parametrize('lang', ['en', 'zh'])
def test_the_labelled_set_scores_capture_f1_of_at_least_0_9_and_no_chit_chat(lang: str):
    f1, chit_chat_fp = _capture_f1(lang)
    assert f1 >= 0.9, f1
    assert chit_chat_fp <= 0.02, chit_chat_fp


def test_the_labelled_set_has_150_utterances_per_language_and_a_held_out_quarter():
    items = [json.loads(line) for line in DATA.read_text(encoding='utf-8').splitlines()]
    langs = Counter(i['lang'] for i in items)
    assert langs['en'] >= 150 and langs['zh'] >= 150
    heldout = sum(i['split'] == 'heldout' for i in items)
    assert 0.2 <= heldout / len(items) <= 0.3


@pytest.mark.parametrize(
    'text',
    [
        'I have a question about the API',
        'I got it, thanks',
        'I moved the file to the docs folder',
        'I use this all the time lol',
        'I work on it tomorrow',
        'I keep getting this error',
        'I drive home now',
        'I left my keys at home',
        'I started the build',
        'I joined the call',
        'I hate this bug',
        '我用一下你的工具',
        '我用中文问你',
        '不要紧',
        '别担心',
        '不要客气',
        '别着急，慢慢来',
    ],
)
def test_passing_remarks_that_look_like_facts_are_not_captured(text: str):
    assert capture(text, now=NOW).candidates == []


def test_two_contacts_joined_by_and_are_two_keyed_entities_without_the_filler():
    decision = capture('By the way my new number is +1 650 555 0199 and email is kim@stripe.com')
    assert [(c.entity_key, c.text) for c in decision.candidates] == [
        ('phone:+16505550199', 'my new number is +1 650 555 0199'),
        ('email:kim@stripe.com', 'my email is kim@stripe.com'),
    ]


@pytest.mark.parametrize(
    ('text', 'stored'),
    [
        ('Hey, so I finally got the offer from Stripe!', 'I finally got the offer from Stripe'),
        ('我们家有两只猫，一只叫年糕，一只叫汤圆。', '我们家有两只猫，一只叫年糕，一只叫汤圆'),
        ('我最近在学日语。', '我最近在学日语'),
    ],
)
def test_everyday_news_is_kept_whole_and_without_openers(text: str, stored: str):
    assert [c.text for c in capture(text, now=NOW).candidates] == [stored]


@pytest.mark.parametrize(
    ('text', 'stored'),
    [
        # a refusal that names no value waits for the sentence that gives it
        ('Stop using miles. Kilometers please.', ['Stop using miles. Kilometers please']),
        ('别用英里了。用公里吧。', ['别用英里了。用公里吧']),
        ('Stop using miles. I live in Leeds.', ['Stop using miles', 'I live in Leeds']),
        # a value of its own, or a slot that is no choice of the answers, stands alone
        ('Use kilometers. Miles please.', ['Use kilometers', 'Miles please']),
        (
            'I no longer live in Paris. I live in Berlin.',
            ['I no longer live in Paris', 'I live in Berlin'],
        ),
    ],
)
def test_a_refusal_and_the_value_in_the_next_sentence_are_one_memory(text: str, stored: list[str]):
    assert [c.text for c in capture(text, now=NOW).candidates] == stored
