"""Pure recall context: speakers, neighbour lists, confidence and calibrated fusion recipes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from recall.read.context import (
    calibrated_cosine,
    confidence,
    context_list,
    coverage,
    query_period,
    query_terms,
    same_session,
)
from recall.read.fusion import DEFAULT_FUSION, FusionConfig, fuse
from recall.read.slots import is_cjk, query_words
from recall.speakers import query_names, speaker_of


@pytest.mark.parametrize(
    ('text', 'metadata', 'user', 'expected'),
    [
        ('Caroline: I went to a support group', {}, None, 'Caroline'),
        ('Dr. Lee Chen: take two a day', {}, None, 'Dr. Lee Chen'),
        ('东升：我喜欢狗', {}, None, '东升'),
        ('Caroline: hi', {'speaker': 'Mel'}, None, 'Mel'),
        ('Note: buy milk', {}, None, None),
        ('note: buy milk', {}, 'alice', 'alice'),
        ('Alice prefers green tea', {}, None, None),
        ('https://example.org: a link', {}, None, None),
    ],
)
def test_the_speaker_comes_from_metadata_then_a_name_prefix_then_the_user(
    text, metadata, user, expected
):
    assert speaker_of(text, metadata, user) == expected


def test_a_query_names_a_speaker_by_any_word_of_the_name_or_a_chinese_substring():
    speakers = {'Caroline', 'Melanie', 'Dr. Lee Chen', '东升'}
    assert query_names('What did caroline research?', speakers) == {'Caroline'}
    assert query_names('When did Lee move?', speakers) == {'Dr. Lee Chen'}
    assert query_names('东升喜欢什么动物?', speakers) == {'东升'}
    assert query_names('What is the weather?', speakers) == frozenset()


def test_neighbours_of_strong_hits_rank_first_and_never_lend_to_themselves():
    sources = {'bm25': [('q', 5.0), ('x', 1.0)], 'dense': [('q', 0.9)]}
    neighbours = {'q': ['answer', 'q'], 'x': ['other']}
    ranked = context_list(sources, neighbours)
    assert [ident for ident, _ in ranked] == ['answer', 'other']
    assert ranked[0][1] == pytest.approx(2 / 61)


def test_only_dialogue_turns_close_in_event_time_in_one_scope_are_one_session():
    a = {'scope': 's', 'created_at': 1000.0, 'text': 'Ann: hi', 'metadata': {}}
    b = {
        'scope': 's',
        'created_at': 1000.0 + 3600,
        'text': 'how are you',
        'metadata': {'speaker': 'Bo'},
    }
    assert same_session(a, b)
    assert not same_session(a, {**b, 'created_at': 1000.0 + 86400})
    assert not same_session(a, {**b, 'scope': 't'})
    assert not same_session(a, {'scope': 's', 'text': 'Bo: x'})
    # two facts written in one batch share a time, but neither is a turn of a conversation
    fact = {'scope': 's', 'created_at': 1000.0, 'text': '我喜欢狗', 'metadata': {}}
    assert not same_session(fact, {**fact, 'text': '我叫东升'})
    assert not same_session(a, fact)


def test_chinese_coverage_counts_characters_not_bigrams():
    terms = query_terms('用户的幸运数字是多少')
    assert all(len(t) == 1 for t in terms)
    # 的, 是, 多, 少 are function characters: they count neither way (4 of 用户幸运数字)
    assert coverage(terms, '我叫东升，幸运数字是 88。') == pytest.approx(4 / 6)


def test_a_chinese_questions_frame_does_not_dilute_its_topic():
    terms = query_terms('我对表格的要求是什么？')
    # 对 表 格 要 求 carry the topic (表, 格 held, 要 of 要点 a word of the format slot); 我 的 是
    # 什 么 would halve the share of a memory that answers with the topic's words alone
    assert coverage(terms, '表格现在可以用了。') == pytest.approx(3 / 5)
    assert coverage(terms, '我的名字是什么都行。') == 0.0


def test_confidence_is_the_share_of_query_terms_held_or_the_calibrated_cosine():
    terms = query_terms('What did Caroline research?')
    assert terms == ['carolin', 'research']
    assert coverage(terms, 'Caroline: Researching adoption agencies') == 1.0
    assert coverage(terms, 'Melanie: I painted a sunrise') == 0.0
    assert calibrated_cosine(0.1) == 0.0
    assert calibrated_cosine(0.9) == 1.0
    assert confidence(terms, 'unrelated', 0.425) == pytest.approx(0.5)
    assert confidence([], 'anything', None) == 0.0


def test_a_weather_question_has_no_confidence_in_a_tea_preference():
    terms = query_terms('weather in Tokyo tomorrow?')
    assert confidence(terms, 'Alice prefers green tea', 0.05) == 0.0


def test_recipe_weights_name_channels_and_episode_channels_follow_their_base():
    recipe = FusionConfig(weights={'bm25': 1.0, 'dense': 0.25})
    assert recipe.weight('dense') == 0.25
    assert recipe.weight('episodes_dense') == 0.25
    assert recipe.weight('graph') == 1.0  # a channel the recipe does not name counts fully


def test_a_zero_weight_channel_cannot_move_the_fused_order():
    lists = {'bm25': [('a', 3.0), ('b', 2.0)], 'dense': [('b', 0.9), ('a', 0.1)]}
    for method in ('rrf', 'weighted'):
        fused = fuse(lists, method, {'bm25': 1.0, 'dense': 0.0})
        assert [f.id for f in fused] == ['a', 'b']
        heavy = fuse(lists, method, {'bm25': 0.1, 'dense': 1.0})
        assert [f.id for f in heavy] == ['b', 'a']


def test_the_default_recipe_trusts_bm25_at_least_as_much_as_any_other_channel():
    weights = DEFAULT_FUSION.weights
    assert all(weights['bm25'] >= w for w in weights.values())


NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def epoch(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ('query', 'inside', 'outside'),
    [
        ('What did Gina find on 1 February, 2023?', (2023, 2, 1), (2023, 1, 31)),
        ('What painting did she show on October 13, 2023?', (2023, 10, 13), (2023, 10, 12)),
        ('What setback did Melanie face in October 2023?', (2023, 11, 20), (2023, 12, 5)),
        ('How many times did she go to the beach in 2023?', (2023, 6, 1), (2022, 12, 31)),
        ('When did Melanie go camping in June?', (2021, 7, 10), (2021, 8, 10)),
        ('我2024年3月去了哪里?', (2024, 3, 9), (2024, 5, 9)),
        ('What did I eat yesterday?', (2026, 11, 23, 8), (2026, 11, 20)),
        ('where did we travel last year', (2025, 5, 1), (2024, 5, 1)),
        ('去年我们去了哪里', (2025, 5, 1), (2026, 5, 1)),
    ],
)
def test_a_period_named_in_a_query_holds_event_times_in_it_and_a_month_after(
    query, inside, outside
):
    period = query_period(query, NOW)
    assert period is not None
    assert period.holds(epoch(*inside))
    assert not period.holds(epoch(*outside))


@pytest.mark.parametrize(
    'query', ['What is the capital of France?', 'He may go', 'February 30, 2023 happened?']
)
def test_a_query_without_a_valid_date_names_no_period(query):
    assert query_period(query, NOW) is None


def test_a_chinese_slot_word_counts_for_a_memory_that_states_its_slot():
    terms = query_terms('我希望你怎么排版回答？')
    # "写成一段话" shares no character with the question, but states the answer format
    assert coverage(terms, '写成一段话。') == 0.0
    assert coverage(terms, '写成一段话。', frozenset({'answer_format'})) > 0.4
    # a slot word counts whole: 反转 holds 转 of 转行 (a title), not the word
    other = query_terms('怎么反转一个链表？')
    assert coverage(other, '我是一名软件工程师', frozenset({'title'})) == 0.0


@pytest.mark.parametrize(
    ('question', 'text', 'stated'),
    [
        ('Which language should you answer in?', 'Stop using English; Spanish please.',
         'answer_language'),
        ('Which weight unit should you use?', 'No more pounds, kilograms instead.', 'unit:weight'),
        ('What units should you use?', 'No more pounds, kilograms instead.', 'unit:weight'),
    ],
)  # fmt: skip
def test_an_english_answer_setting_counts_for_a_memory_that_states_it(question, text, stated):
    # the memory shares no word with the question (or only "unit" by synonym): the bundle's
    # floor left it out
    terms = query_terms(question)
    assert coverage(terms, text, frozenset({stated})) >= 0.5


@pytest.mark.parametrize(
    ('question', 'text', 'stated'),
    [
        # the language the asker speaks, their weight: no answer setting asked
        ('What languages do I speak?', 'Stop using English; Spanish please.', 'answer_language'),
        ("What's my weight?", 'No more pounds, kilograms instead.', 'unit:weight'),
        ('Which distance unit should you use?', 'No more pounds, kilograms instead.',
         'unit:weight'),
    ],
)  # fmt: skip
def test_an_answer_setting_word_without_its_cue_counts_for_nothing(question, text, stated):
    terms = query_terms(question)
    assert coverage(terms, text, frozenset({stated})) < 0.4


def test_a_rule_lifted_in_chinese_answers_a_question_about_the_answers():
    # the tokenizer kept "emoji的限制取消了" as one term, and 回答 named no rule: 0.2
    terms = query_terms('回答里能用emoji吗？')
    assert coverage(terms, 'emoji的限制取消了。', frozenset({'rule'})) >= 0.6
    # a Latin word inside another counts for nothing
    assert coverage(query_terms('emoji'), '我在用emojiapp。') == 0.0


def test_coverage_of_one_text_follows_each_query():
    # the query's words are worked out once per query (recall.read.slots): another query over
    # the same text, and a caller changing what it was handed, change no later answer
    text = 'Caroline: I researched adoption agencies'
    first, second = query_terms('adoption agencies'), query_terms('adoption weather')
    assert coverage(first, text) == 1.0
    assert coverage(second, text) == 0.5
    handed = query_words(first)
    handed.append('weather')
    assert query_words(first) == ['adopt', 'agenc']
    assert coverage(first, text) == 1.0
    assert is_cjk(query_terms('我住在哪里')) and not is_cjk(second)


def test_a_long_text_is_covered_as_a_short_one_and_not_held():
    from core.text_cache import CACHED_TEXT
    from recall.read import context

    terms = query_terms('What puppy did Maya adopt?')
    short = coverage(terms, 'Maya adopted a puppy named Biscuit.')
    held = context._terms_of.cache_info().currsize
    long = 'Maya adopted a puppy named Biscuit. ' + 'filler ' * CACHED_TEXT
    assert coverage(terms, long) == short > 0
    assert context._terms_of.cache_info().currsize == held
