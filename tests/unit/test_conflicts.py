"""Contradiction detection between a new memory and a similar existing one (seed 003)."""

from __future__ import annotations

import pytest

from recall.write.conflicts import (
    ConflictKind,
    ConflictThresholds,
    Existing,
    assess,
    detect,
    jaccard,
    signals,
    similarity,
    topic_tokens,
)

SUPERSEDES, DUPLICATE = ConflictKind.SUPERSEDES, ConflictKind.DUPLICATE
COMPLEMENTARY, UNRELATED = ConflictKind.COMPLEMENTARY, ConflictKind.UNRELATED


def test_the_same_text_modulo_case_and_punctuation_is_a_duplicate():
    verdict = detect('Lucky number is 88.', 'lucky number is 88')
    assert (verdict.kind, verdict.score) == (DUPLICATE, 1.0)


def test_a_rewording_without_contradiction_is_a_duplicate():
    assert detect('The lucky number is 88', 'Lucky number is 88.').kind == DUPLICATE


@pytest.mark.parametrize(
    ('new', 'old'),
    [
        ("I don't like coffee", 'I like coffee'),
        ('I like coffee', "I don't like coffee"),
        ('我不喜欢咖啡', '我喜欢咖啡'),
        ('我没有养猫', '我有养猫'),
    ],
)
def test_a_negated_restatement_supersedes_the_old_one(new: str, old: str):
    verdict = detect(new, old)
    assert verdict.kind == SUPERSEDES
    assert 'negation' in verdict.signals


def test_a_negation_alone_adds_its_seed_boost_of_point_four_times_point_three():
    verdict = detect('我不喜欢咖啡', '我喜欢咖啡', cosine=0.5, bm25=0.5)
    assert verdict.signals == ['negation']
    assert verdict.components['boost'] == 0.4
    assert verdict.score == pytest.approx(verdict.similarity + 0.3 * 0.4)


def test_a_double_negative_is_not_a_negation_signal():
    assert 'negation' not in signals("I don't dislike coffee", "I don't dislike coffee at all")


@pytest.mark.parametrize(
    ('new', 'old'),
    [
        ('Alice no longer likes coffee in the morning', 'Alice likes coffee in the morning'),
        ('I now prefer tea in the morning', 'I prefer coffee in the morning'),
        ('我现在不再喝咖啡了', '我每天喝咖啡'),
    ],
)
def test_a_preference_change_supersedes_the_old_preference(new: str, old: str):
    verdict = detect(new, old, cosine=0.7)
    assert verdict.kind == SUPERSEDES
    assert 'preference_change' in verdict.signals


@pytest.mark.parametrize(
    ('new', 'old', 'cosine'),
    [
        ('I moved to Paris', 'I live in Berlin', 0.6),
        ('As of May, Bob now lives in Paris', 'Bob lives in Berlin', 0.7),
        ('我已经搬到上海了', '我住在北京', 0.8),
    ],
)
def test_a_temporal_shift_supersedes_the_old_fact(new: str, old: str, cosine: float):
    verdict = detect(new, old, cosine=cosine, bm25=0.5)
    assert 'temporal_shift' in verdict.signals
    assert verdict.kind == SUPERSEDES


def test_a_changed_number_in_the_same_statement_supersedes():
    verdict = detect('My lucky number is 66', 'My lucky number is 88', cosine=0.9)
    assert verdict.signals == ['value_change']
    assert verdict.kind == SUPERSEDES


def test_related_facts_without_contradiction_are_complementary():
    verdict = detect('I have a dog named Rex', 'I have a cat', cosine=0.5)
    assert verdict.kind == COMPLEMENTARY
    assert verdict.signals == []


def test_different_topics_are_unrelated():
    verdict = detect('I prefer dark mode', 'The server runs on port 8080', cosine=0.1)
    assert verdict.kind == UNRELATED
    assert detect('我叫东升', '我的幸运数字是 88', cosine=0.3).kind == UNRELATED


def test_a_signal_on_a_weakly_similar_pair_does_not_supersede():
    # the shift marker fires but nothing else is shared: below the 0.6 conflict threshold
    verdict = detect('I now use vim', 'The office moved to a new building', cosine=0.1, bm25=0.0)
    assert verdict.kind != SUPERSEDES


def test_topic_tokens_drop_negation_and_markers_but_keep_content():
    assert topic_tokens("I don't like coffee") == topic_tokens('I like coffee')
    assert topic_tokens('我不喜欢咖啡') == topic_tokens('我喜欢咖啡')
    assert 'coffee' in topic_tokens('I now like coffee')


def test_jaccard_of_two_empty_sets_is_zero():
    assert jaccard(set(), set()) == 0.0


def test_similarity_degrades_to_jaccard_without_an_embedding():
    assert similarity(0.5, None, 0.9) == 0.5
    assert similarity(0.5, 1.0, None) == pytest.approx(0.75)
    assert similarity(0.5, 1.0, 1.0) == pytest.approx(0.4 * 0.5 + 0.4 + 0.2)
    assert similarity(0.5, 2.0, -1.0) == pytest.approx(0.4 * 0.5 + 0.4)  # clamped inputs


def test_thresholds_are_configurable():
    strict = ConflictThresholds(conflict=0.99)
    assert (
        detect("I don't like coffee", 'I like coffee', cosine=0.5, thresholds=strict).kind
        != SUPERSEDES
    )


def test_the_verdict_reports_its_components():
    verdict = detect('I moved to Paris', 'I live in Berlin', cosine=0.6, bm25=0.4)
    assert {'jaccard', 'similarity', 'cosine', 'bm25', 'boost'} <= set(verdict.components)
    assert 0.0 <= verdict.score <= 1.0


def test_assess_orders_supersessions_before_duplicates_and_the_rest():
    matches = assess(
        'I no longer like coffee',
        [
            Existing(id='unrelated', text='The build uses make', cosine=0.05),
            Existing(id='dup', text='I no longer like coffee!', cosine=0.99),
            Existing(id='old', text='I like coffee', cosine=0.8, bm25=0.6),
        ],
    )
    assert [m.id for m in matches] == ['old', 'dup', 'unrelated']
    assert [m.verdict.kind for m in matches] == [SUPERSEDES, DUPLICATE, UNRELATED]
