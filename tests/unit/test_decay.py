"""Weibull decay, tier transitions and the rerank of fused hits (seed 000), on fixed instants."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from recall.decay import (
    DEFAULT_THRESHOLDS,
    TierThresholds,
    components,
    frequency,
    half_life_days,
    multiplier,
    next_tier,
    recency,
    relevance,
    rerank,
    tier_transition,
)
from recall.models import Chunk
from recall.tiers import Tier

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def chunk(ident: str = 'c', *, age_days: float = 0.0, **fields: Any) -> Chunk:
    created = NOW - timedelta(days=age_days)
    data: dict[str, Any] = dict(
        id=ident,
        scope='agent:a',
        text=ident,
        created_at=created,
        updated_at=created,
        content_hash=ident,
    )
    data.update(fields)
    return Chunk(**data)


def test_half_life_grows_with_importance_and_is_capped_at_ten_times():
    assert half_life_days(0.0) == pytest.approx(30.0)
    assert half_life_days(0.5) == pytest.approx(30 * math.exp(0.75))
    assert half_life_days(1.0) == pytest.approx(30 * math.exp(1.5))
    # exp(1.5 * i) never exceeds 10 for i <= 1, so the cap holds at the boundary
    assert half_life_days(1.0) < 300.0


def test_a_working_memory_at_its_half_life_has_half_its_recency():
    assert recency(30.0, 0.0, Tier.WORKING) == pytest.approx(0.5)
    assert recency(0.0, 0.0, Tier.WORKING) == pytest.approx(1.0)


def test_core_remembers_harder_and_peripheral_forgets_faster_past_the_first_day():
    core, working, peripheral = (recency(90.0, 0.3, t) for t in Tier)
    assert core > working > peripheral


def test_frequency_saturates_with_access_count():
    assert frequency(0) == 0.0
    assert frequency(5) == pytest.approx(1 - math.exp(-1))
    assert frequency(50) > 0.99


def test_composite_weights_recency_frequency_and_importance_four_three_three():
    parts = components(chunk(importance=0.5, access_count=5), NOW)
    expected = 0.4 * 1.0 + 0.3 * (1 - math.exp(-1)) + 0.3 * 0.5
    assert parts.composite == pytest.approx(expected)
    assert parts.relevance == pytest.approx(expected)


@pytest.mark.parametrize(
    ('tier', 'floor'), [(Tier.CORE, 0.9), (Tier.WORKING, 0.3), (Tier.PERIPHERAL, 0.1)]
)
def test_relevance_never_falls_below_the_tier_floor(tier: Tier, floor: float):
    old = chunk(tier=tier, importance=0.0, age_days=3650)
    assert relevance(old, NOW) == pytest.approx(floor)


def test_recency_runs_from_the_last_recall():
    recalled = chunk(age_days=200, accessed_at=NOW - timedelta(days=1))
    forgotten = chunk(age_days=200)
    assert components(recalled, NOW).recency > 0.9
    assert components(forgotten, NOW).recency < 0.2


def test_pinned_memories_do_not_decay():
    assert components(chunk(pinned=True, age_days=1000), NOW).recency == 1.0


def test_pinned_memories_are_core_and_never_demoted():
    pinned = chunk(pinned=True, tier=Tier.PERIPHERAL, age_days=400, importance=0.0)
    assert next_tier(pinned, NOW) == Tier.CORE
    assert tier_transition(pinned, NOW).reason == 'pinned'


@pytest.mark.parametrize(
    ('access', 'importance', 'reason'),
    [
        (10, 0.1, 'promote:access'),
        (0, 0.95, 'promote:importance'),
        (5, 0.7, 'promote:access+importance'),
    ],
)
def test_a_working_memory_is_promoted_to_core_by_any_of_three_paths(access, importance, reason):
    t = tier_transition(chunk(access_count=access, importance=importance), NOW)
    assert (t.tier, t.changed, t.reason) == (Tier.CORE, True, reason)


def test_a_memory_just_short_of_every_promotion_path_stays_working():
    assert next_tier(chunk(access_count=9, importance=0.69), NOW) == Tier.WORKING
    assert next_tier(chunk(access_count=4, importance=0.89), NOW) == Tier.WORKING


def test_an_old_rarely_used_working_memory_is_demoted_to_peripheral():
    t = tier_transition(chunk(age_days=61, access_count=2), NOW)
    assert (t.tier, t.reason) == (Tier.PERIPHERAL, 'demote:age')


def test_an_old_but_used_working_memory_stays_working():
    assert next_tier(chunk(age_days=61, access_count=3), NOW) == Tier.WORKING
    assert next_tier(chunk(age_days=59, access_count=0), NOW) == Tier.WORKING


def test_a_working_memory_whose_composite_collapses_is_demoted_by_relevance():
    thresholds = TierThresholds(demote_relevance=0.5, demote_age_days=10_000)
    t = tier_transition(chunk(age_days=100, importance=0.2), NOW, thresholds)
    assert (t.tier, t.reason) == (Tier.PERIPHERAL, 'demote:relevance')


def test_an_unpinned_core_memory_is_not_demoted():
    assert next_tier(chunk(tier=Tier.CORE, age_days=400, importance=0.1), NOW) == Tier.CORE


def test_a_used_relevant_peripheral_memory_returns_to_working():
    revived = chunk(
        tier=Tier.PERIPHERAL,
        access_count=3,
        importance=0.5,
        accessed_at=NOW - timedelta(hours=1),
        age_days=90,
    )
    assert tier_transition(revived, NOW).reason == 'revive:access+relevance'
    assert next_tier(revived, NOW) == Tier.WORKING


def test_a_peripheral_memory_recalled_twice_stays_peripheral():
    faint = chunk(tier=Tier.PERIPHERAL, access_count=2, importance=0.5, age_days=90)
    assert next_tier(faint, NOW) == Tier.PERIPHERAL


def test_default_thresholds_are_the_module_constant():
    assert next_tier(chunk(access_count=10), NOW, DEFAULT_THRESHOLDS) == Tier.CORE
    assert next_tier(chunk(access_count=3), NOW, TierThresholds(core_access_only=3)) == Tier.CORE


def test_rerank_keeps_a_clearly_better_fused_hit_first_despite_decay():
    strong_but_stale = chunk('a', age_days=300, importance=0.1)
    weak_but_fresh = chunk('b', pinned=True, importance=1.0, access_count=50)
    ranked = rerank(
        [('a', 1 / 61 + 1 / 61), ('b', 1 / 61)], {'a': strong_but_stale, 'b': weak_but_fresh}, NOW
    )
    assert [r.id for r in ranked] == ['a', 'b']


def test_rerank_lets_decay_decide_between_near_ties():
    stale = chunk('a', age_days=300, importance=0.1)
    fresh = chunk('b', importance=0.9, access_count=5)
    ranked = rerank([('a', 1 / 61), ('b', 1 / 62)], {'a': stale, 'b': fresh}, NOW)
    assert [r.id for r in ranked] == ['b', 'a']


def test_rerank_reports_components_and_bounds_the_multiplier():
    [hit] = rerank([('a', 0.5)], {'a': chunk('a', pinned=True, importance=1.0)}, NOW)
    assert hit.components['fused'] == 0.5
    assert 0.0 < hit.components['relevance'] <= 1.0
    assert hit.components['pinned'] == 1.0
    assert hit.score == pytest.approx(0.5 * hit.components['decay_multiplier'])
    assert hit.score <= 0.5 * 1.1 + 1e-12


def test_rerank_keeps_ids_without_a_chunk_at_their_fused_score():
    ranked = rerank([('ghost', 0.2), ('a', 0.1)], {'a': chunk('a')}, NOW)
    assert ranked[0].id == 'ghost'
    assert ranked[0].score == 0.2


def test_rerank_breaks_ties_by_id():
    same = {i: chunk(i) for i in ('y', 'x')}
    assert [r.id for r in rerank([('y', 0.1), ('x', 0.1)], same, NOW)] == ['x', 'y']


@pytest.mark.parametrize('tier', list(Tier))
@pytest.mark.parametrize('pinned', [False, True])
def test_relevance_and_the_multiplier_agree_with_the_full_components(tier: Tier, pinned: bool):
    for age, importance, access in ((0, 0.0, 0), (10, 0.5, 3), (400, 0.9, 40), (3000, 0.1, 1)):
        c = chunk(
            tier=tier, pinned=pinned, age_days=age, importance=importance, access_count=access
        )
        rel = components(c, NOW).relevance
        assert relevance(c, NOW) == rel
        assert multiplier(c, NOW, rel=rel) == multiplier(c, NOW)
