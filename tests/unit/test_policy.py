"""Importance-label policy tiers, trust gating and the importance heuristic (seeds 003, 004)."""

from __future__ import annotations

import pytest

from recall.read.policy import (
    admits,
    admitted_labels,
    policy_tier,
    policy_tier_order,
    recallable_trust,
    select_policy_tier,
    trust_admits,
    trust_tier_order,
)
from recall.tiers import ImportanceLabel as L
from recall.tiers import Kind, Trust
from recall.write.importance import grade, importance_heuristic, label_for


def test_policy_tiers_fail_open_from_must_and_nice_to_unknown_then_ignore():
    order = policy_tier_order()
    assert [t.name for t in order] == ['must+nice', 'must+nice+unknown', 'must+nice+unknown+ignore']
    assert order[0].labels == {L.MUST_REMEMBER, L.NICE_TO_HAVE}
    assert order[-1].labels == set(L)


def test_each_policy_tier_admits_everything_the_previous_one_did():
    order = policy_tier_order()
    for narrow, wide in zip(order, order[1:], strict=False):
        assert narrow.labels < wide.labels


def test_the_first_tier_does_not_admit_unknown_or_ignore():
    assert not admits('must+nice', L.UNKNOWN)
    assert not admits(0, 'ignore')
    assert admits('must+nice+unknown', 'unknown')
    assert not admits('must+nice+unknown', L.IGNORE)
    assert admits(2, L.IGNORE)


def test_admitted_labels_rejects_unknown_tiers():
    with pytest.raises(ValueError):
        admitted_labels('everything')
    with pytest.raises(ValueError):
        admitted_labels(3)
    assert policy_tier('must+nice').labels == admitted_labels(0)


def test_select_policy_tier_stops_at_the_first_tier_with_enough_hits():
    assert select_policy_tier([L.IGNORE, L.NICE_TO_HAVE]).name == 'must+nice'
    assert select_policy_tier([L.IGNORE, L.UNKNOWN]).name == 'must+nice+unknown'
    assert select_policy_tier(['ignore']).name == 'must+nice+unknown+ignore'
    assert select_policy_tier([L.MUST_REMEMBER, L.UNKNOWN], wanted=2).name == 'must+nice+unknown'


def test_nothing_found_reports_the_widest_tier():
    assert select_policy_tier([]).name == 'must+nice+unknown+ignore'


def test_quarantined_memories_are_never_recalled_by_default():
    assert Trust.QUARANTINED not in recallable_trust()
    assert not trust_admits('quarantined')
    assert trust_admits(Trust.UNTRUSTED)
    assert trust_admits(Trust.QUARANTINED, include_quarantined=True)


def test_trust_fails_open_from_trusted_to_untrusted():
    assert [t.name for t in trust_tier_order()] == ['trusted', 'trusted+untrusted']
    assert trust_tier_order(include_quarantined=True)[-1].trust == set(Trust)


def test_importance_starts_from_the_kind_band_of_seed_001():
    assert importance_heuristic('Dongsheng', Kind.ENTITY) == (0.9, L.MUST_REMEMBER)
    assert importance_heuristic('likes tea', Kind.PREFERENCE) == (0.7, L.NICE_TO_HAVE)
    assert importance_heuristic('had pasta', Kind.NOTE) == (0.2, L.UNKNOWN)


def test_high_signal_keywords_raise_importance_by_a_tenth_each_up_to_a_fifth():
    one = grade('this is important', Kind.FACT)
    assert one.importance == pytest.approx(0.75) and one.keywords == ['important']
    capped = grade('critical rule: you must always do this, it is important', Kind.FACT)
    assert capped.importance == pytest.approx(0.85)
    assert capped.label == L.MUST_REMEMBER


def test_chinese_keywords_count_too():
    assert grade('这个很重要, 必须记得', Kind.FACT).importance == pytest.approx(0.85)


def test_empty_text_is_ignored():
    assert importance_heuristic('  ', Kind.ENTITY) == (0.0, L.IGNORE)


def test_labels_follow_the_importance_bands():
    assert [label_for(x) for x in (0.95, 0.8, 0.5, 0.3, 0.1)] == [
        L.MUST_REMEMBER,
        L.MUST_REMEMBER,
        L.NICE_TO_HAVE,
        L.UNKNOWN,
        L.IGNORE,
    ]
