import random
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from recall.read.fusion import (
    FEATURES,
    RRF_K,
    LinearModel,
    ScriptCorrection,
    feature_matrix,
    learned_head,
    learned_logits,
    learned_scores,
    rrf,
    shipped_model,
    turn_flags,
    weighted_merge,
)


def test_rrf_rewards_ids_found_by_both_channels():
    fused = rrf({'dense': [('a', 0.9), ('b', 0.8)], 'bm25': [('b', 7.0), ('c', 5.0)]})
    assert [f.id for f in fused] == ['b', 'a', 'c']
    assert fused[0].ranks == {'dense': 2, 'bm25': 1}
    assert fused[0].score == 1 / (RRF_K + 2) + 1 / (RRF_K + 1)


def test_rrf_weights_scale_each_channel_and_zero_drops_it():
    lists = {'dense': [('a', 0.9)], 'bm25': [('b', 3.0)]}
    assert [f.id for f in rrf(lists, weights={'dense': 1.0, 'bm25': 2.0})] == ['b', 'a']
    assert [f.id for f in rrf(lists, weights={'dense': 1.0, 'bm25': 0.0})] == ['a']


def test_rrf_counts_a_repeated_id_once_per_channel():
    fused = rrf({'dense': [('a', 0.9), ('a', 0.5)]})
    assert fused[0].score == 1 / (RRF_K + 1)


def test_rrf_breaks_ties_by_id_so_results_are_deterministic():
    fused = rrf({'dense': [('z', 1.0)], 'bm25': [('y', 1.0)]})
    assert [f.id for f in fused] == ['y', 'z']


def test_weighted_merge_normalises_scores_per_channel():
    fused = weighted_merge(
        {'dense': [('a', 0.9), ('b', 0.1)], 'bm25': [('b', 10.0), ('a', 9.0), ('c', 0.0)]}
    )
    scores = {f.id: round(f.score, 3) for f in fused}
    assert scores == {'a': 1.9, 'b': 1.0, 'c': 0.0}


def test_fusion_of_no_lists_is_empty():
    assert rrf({}) == []
    assert weighted_merge({'dense': []}) == []


def _random_candidates(seed: int) -> tuple[list[str], dict[str, Any], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    ids = [f'id{n:03d}' for n in range(rng.randint(20, 160))]
    lists = {
        channel: sorted(
            ((i, rng.random()) for i in rng.sample(ids, rng.randint(1, len(ids)))),
            key=lambda kv: -kv[1],
        )
        for channel in ('bm25', 'dense', 'context')
    }
    signals = {
        i: {
            'speaker_named': float(rng.random() < 0.5),
            'date_match': float(rng.random() < 0.1),
            'confidence': rng.random(),
            'turn': float(rng.random() < 0.5),
        }
        for i in ids
    }
    return ids, lists, signals


def _learned_head(
    scored: list[str],
    lists: dict[str, Any],
    signals: dict[str, dict[str, float]],
    size: int,
    cjk: bool = False,
) -> list[str]:
    model = shipped_model()
    assert model is not None
    rows = feature_matrix(scored, lists, signals)
    probability = learned_scores(model, rows, turn_flags(scored, signals), cjk)
    score = dict(zip(scored, probability, strict=True))
    return sorted(scored, key=lambda i: (-score[i], i))[:size]


def test_scoring_only_reachable_candidates_keeps_the_head_of_the_learned_order():
    model = shipped_model()
    assert model is not None
    pruned_somewhere = False
    for seed in range(30):
        ids, lists, signals = _random_candidates(seed)
        cheap = {i: {k: v for k, v in s.items() if k != 'confidence'} for i, s in signals.items()}
        cjk = seed % 2 == 1  # a Chinese query's head, with the model's Chinese correction
        base, _ = learned_head(model, ids, lists, 30, cheap.__getitem__, signals.__getitem__, cjk)
        kept = sorted(base, key=lambda i: (-base[i], i))
        assert kept[:30] == _learned_head(ids, lists, signals, 30, cjk)
        assert _learned_head(list(base), lists, signals, 30, cjk) == kept[:30]
        pruned_somewhere |= len(kept) < len(ids)
    assert pruned_somewhere


def test_a_least_confidence_keeps_the_head_and_scores_fewer_candidates():
    model = shipped_model()
    assert model is not None
    fewer_somewhere = False
    for seed in range(30):
        ids, lists, signals = _random_candidates(seed)
        cheap = {i: {k: v for k, v in s.items() if k != 'confidence'} for i, s in signals.items()}
        rng = random.Random(seed)
        # a bound each confidence is known not to fall below (some exact, some looser)
        low = [signals[i]['confidence'] * rng.choice((1.0, rng.random(), 0.0)) for i in ids]
        bounded, _ = learned_head(
            model, ids, lists, 30, cheap.__getitem__, signals.__getitem__, low=low
        )
        loose, _ = learned_head(model, ids, lists, 30, cheap.__getitem__, signals.__getitem__)
        head = sorted(bounded, key=lambda i: (-bounded[i], i))[:30]
        assert head == _learned_head(ids, lists, signals, 30)
        assert all(bounded[i] == loose[i] for i in head)
        assert set(bounded) <= set(loose)
        fewer_somewhere |= len(bounded) < len(loose)
    assert fewer_somewhere


def _rrf_reference(
    lists: dict[str, list[tuple[str, float]]], weights: dict[str, float]
) -> list[tuple[str, float, dict[str, int], dict[str, float]]]:
    """Weighted RRF written plainly, as it was before the dict-based rewrite."""
    fused: dict[str, list[Any]] = {}
    for channel, ranked in lists.items():
        weight = weights.get(channel, 1.0)
        if weight <= 0:
            continue
        for rank, (ident, raw) in enumerate(ranked, start=1):
            item = fused.setdefault(ident, [ident, 0.0, {}, {}])
            if channel in item[2]:
                continue
            item[1] += weight / (RRF_K + rank)
            item[2][channel] = rank
            item[3][channel] = raw
    return sorted((tuple(v) for v in fused.values()), key=lambda f: (-f[1], f[0]))  # type: ignore[misc]


def test_rrf_matches_the_plain_definition_exactly_with_weights_and_repeated_ids():
    for seed in range(20):
        rng = random.Random(seed)
        ids = [f'id{n}' for n in range(40)]
        lists = {
            c: [(rng.choice(ids), rng.random()) for _ in range(rng.randint(0, 60))]
            for c in ('bm25', 'dense', 'context', 'graph')
        }
        weights = {'bm25': 1.0, 'dense': 0.75, 'context': rng.choice([0.0, 1.0]), 'graph': 0.25}
        got = [(f.id, f.score, f.ranks, f.channel_scores) for f in rrf(lists, weights=weights)]
        assert got == _rrf_reference(lists, weights)


def _model(mean: float, scale: float, **calibrations: Any) -> LinearModel:
    """A model with every feature standardised alike and weighed 0.5, bias -2."""
    n = len(FEATURES)
    return LinearModel(
        features=list(FEATURES),
        mean=[mean] * n,
        scale=[scale] * n,
        weights=[0.5] * n,
        bias=-2.0,
        **calibrations,
    )


def test_the_calibration_maps_the_logit_and_keeps_the_order():
    plain = _model(0.0, 1.0)
    calibrated = plain.model_copy(update={'calibration': (0.5, -1.0)})
    rows = np.random.default_rng(3).random((20, len(FEATURES)))
    logit = learned_logits(plain, rows)
    assert np.allclose(learned_scores(plain, rows), 1 / (1 + np.exp(-logit)))
    expected = 1 / (1 + np.exp(-(0.5 * logit - 1.0)))
    assert np.allclose(learned_scores(calibrated, rows), expected)
    assert (np.argsort(learned_scores(calibrated, rows)) == np.argsort(logit)).all()
    with pytest.raises(ValidationError, match='slope'):
        LinearModel.model_validate({**plain.model_dump(), 'calibration': (-1.0, 0.0)})


def test_turns_take_their_own_calibration_and_each_type_keeps_the_logit_order():
    plain = _model(0.0, 1.0, calibration=(1.2, -1.0), turn_calibration=(0.5, -3.0))
    rows = np.random.default_rng(4).random((40, len(FEATURES)))
    turns = np.arange(40) % 2
    logit = learned_logits(plain, rows)
    scores = learned_scores(plain, rows, turns)
    expected = np.where(
        turns > 0, 1 / (1 + np.exp(-(0.5 * logit - 3.0))), 1 / (1 + np.exp(-(1.2 * logit - 1.0)))
    )
    assert np.allclose(scores, expected)
    for kind in (0, 1):
        inside = turns == kind
        assert (np.argsort(scores[inside]) == np.argsort(logit[inside])).all()
    # without flags every row is calibrated as a memory that is not a turn
    assert np.allclose(learned_scores(plain, rows), 1 / (1 + np.exp(-(1.2 * logit - 1.0))))
    with pytest.raises(ValidationError, match='slope'):
        LinearModel.model_validate({**plain.model_dump(), 'turn_calibration': (0.0, 1.0)})


def test_only_a_chinese_query_takes_the_chinese_correction_of_the_logit():
    correction = ScriptCorrection(weights=[0.1 * n for n in range(len(FEATURES))], bias=0.7)
    base = _model(0.2, 0.5)
    model = base.model_copy(update={'cjk': correction})
    rows = np.random.default_rng(5).random((30, len(FEATURES)))
    z = (rows - 0.2) / 0.5
    # any other query ranks exactly as the model without a correction ranks it
    assert np.array_equal(learned_logits(model, rows), learned_logits(base, rows))
    assert np.array_equal(learned_logits(base, rows, cjk=True), learned_logits(base, rows))
    expected = learned_logits(base, rows) + z @ np.asarray(correction.weights) + 0.7
    assert np.allclose(learned_logits(model, rows, cjk=True), expected)
    assert np.allclose(learned_scores(model, rows, cjk=True), 1 / (1 + np.exp(-expected)))


def test_only_other_memories_than_turns_of_a_query_not_in_chinese_take_the_prose_correction():
    prose = ScriptCorrection(weights=[0.05 * n - 0.2 for n in range(len(FEATURES))], bias=-0.4)
    cjk = ScriptCorrection(weights=[0.1] * len(FEATURES), bias=0.3)
    base = _model(0.2, 0.5)
    model = base.model_copy(update={'prose': prose})
    rows = np.random.default_rng(6).random((30, len(FEATURES)))
    turns = (np.arange(30) % 3 == 0).astype(float)
    z = (rows - 0.2) / 0.5
    plain = learned_logits(base, rows)
    got = learned_logits(model, rows, turns=turns)
    # a dialogue turn ranks as the base model ranks it; every other memory takes the correction
    assert np.array_equal(got[turns > 0], plain[turns > 0])
    other = turns == 0
    expected = plain[other] + z[other] @ np.asarray(prose.weights) - 0.4
    assert np.allclose(got[other], expected)
    # without turn flags no row is a turn
    assert np.allclose(learned_logits(model, rows), plain + z @ np.asarray(prose.weights) - 0.4)
    # a Chinese query takes its own correction and not this one
    both = model.model_copy(update={'cjk': cjk})
    chinese = learned_logits(both, rows, cjk=True, turns=turns)
    assert np.array_equal(chinese, learned_logits(base.model_copy(update={'cjk': cjk}), rows, True))
    # the calibrated score carries it
    scores = learned_scores(model, rows, turns)
    assert np.allclose(scores[other], 1 / (1 + np.exp(-expected)))


def test_a_correction_needs_one_weight_per_feature():
    model = shipped_model()
    assert model is not None
    short = {'weights': [0.0] * (len(FEATURES) - 1), 'bias': 0.0}
    for correction in ('cjk', 'prose'):
        with pytest.raises(ValidationError, match='one weight per feature'):
            LinearModel.model_validate({**model.model_dump(), correction: short})


def test_the_shipped_chinese_correction_weighs_bm25_up_and_the_dense_rank_down():
    # MiniLM reads little Chinese: on a Chinese query BM25's rank carries more than on the
    # English dialogue the base model was fitted on, the dense rank less
    model = shipped_model()
    assert model is not None and model.cjk is not None
    weight = dict(zip(FEATURES, model.cjk.weights, strict=True))
    assert weight['bm25_rrf'] > 0 and weight['bm25_norm'] > 0
    assert weight['dense_rrf'] < 0


def test_the_shipped_prose_correction_weighs_the_dense_score_up():
    # a note, a profile field or a document is found by its meaning as much as by its words;
    # on dialogue turns a close cosine mostly echoes the speaker's name
    model = shipped_model()
    assert model is not None and model.prose is not None
    weight = dict(zip(FEATURES, model.prose.weights, strict=True))
    assert weight['dense_norm'] > 0 and weight['bm25_norm'] < 0
