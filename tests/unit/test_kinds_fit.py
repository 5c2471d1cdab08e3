"""bench/kinds_fit.py on a tiny fixture: searches laid out, a fit that learns which channel
finds the gold, the replay of the service's learned order, and a calibration that keeps it."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.kinds_fit import (
    Search,
    channel_alone,
    cjk_training,
    fit,
    fit_cjk,
    fit_prose,
    platt,
    platt_by_type,
    prose_training,
    replay,
    returned,
    training_set,
)


def _search(
    kind: str,
    gold_at_bm25: int,
    n: int = 6,
    question: str = 'What did Ann buy?',
    turn: float = 0.0,
    scope: str = '',
) -> dict[str, Any]:
    ids = [f'{kind}-{i}' for i in range(n)]
    bm25 = [(ids[i], float(n - i)) for i in range(n)]
    dense = [(ids[n - 1 - i], 0.9 - 0.1 * i) for i in range(n)]
    factors = {
        i: {
            'decay_multiplier': 1.0,
            'confidence': 0.9,
            'speaker_named': 0.0,
            'date_match': 0.0,
            'turn': turn,
        }
        for i in ids
    }
    return {
        'kind': kind,
        'scope': scope or f'agent:kinds-{kind}',
        'question': question,
        'gold': [[f'r{gold_at_bm25}']],
        'lists': {'bm25': bm25, 'dense': dense},
        'factors': factors,
        'refs': {ids[i]: [f'r{i}'] for i in range(n)},
    }


def test_a_fit_learns_the_channel_that_finds_the_gold_and_the_replay_ranks_it_first():
    searches = [Search(_search(k, 0)) for k in ('a', 'b', 'c') for _ in range(3)]
    model = fit(searches, 'fixture')
    for s in searches:
        assert replay(s, model)[0] == frozenset({'r0'})
        assert channel_alone(s, 'dense')[0] == frozenset({'r5'})
    logits, labels, turns = returned(searches[0], model)
    assert labels[0] and logits[0] == max(logits)
    assert not turns.any()
    slope, _ = platt([logits], [labels.astype(bool)])
    assert slope > 0


def test_holding_out_a_kind_also_holds_out_the_mixed_scope():
    searches = [Search(_search(k, 0)) for k in ('turns', 'notes', 'mixed')]
    assert {s.kind for s in training_set(searches, 'turns')} == {'notes'}
    assert {s.kind for s in training_set(searches, 'mixed')} == {'turns', 'notes'}
    assert np.array_equal(searches[0].label, [True] + [False] * 5)


def test_turns_and_other_memories_get_a_calibration_each():
    rng = np.random.default_rng(5)
    logits = rng.normal(size=4000)
    turns = (np.arange(4000) % 2).astype(float)
    # turns are gold less often at the same logit than other memories
    chance = np.where(turns > 0, 1 / (1 + np.exp(-(0.5 * logits - 3))), 1 / (1 + np.exp(-logits)))
    labels = rng.random(4000) < chance
    other, turn = platt_by_type([(logits, labels, turns)])
    assert abs(other[0] - 1.0) < 0.2 and abs(other[1]) < 0.2
    assert abs(turn[0] - 0.5) < 0.25 and abs(turn[1] + 3.0) < 0.5


def test_a_chinese_correction_learns_what_chinese_searches_show_and_leaves_others_alone():
    # the base model trusts the dense list (English searches whose gold dense ranks first); on
    # Chinese searches BM25 finds the gold and the dense list puts it last
    english = [Search(_search(k, 5)) for k in ('a', 'b') for _ in range(3)]
    chinese = [Search(_search(k, 0, question='我喜欢什么动物？')) for k in ('zh', 'bank_zh')]
    assert all(s.cjk for s in chinese) and not any(s.cjk for s in english)
    base = fit(english, 'fixture')
    assert replay(chinese[0], base)[0] == frozenset({'r5'})
    corrected = base.model_copy(update={'cjk': fit_cjk(chinese * 3, base, 'fixture')})
    assert replay(chinese[0], corrected)[0] == frozenset({'r0'})
    for s in english:
        assert replay(s, corrected) == replay(s, base)


def test_a_chinese_correction_is_fitted_without_the_held_out_kind_and_mixed():
    question = '我住在哪里？'
    searches = [Search(_search(k, 0, question=question)) for k in ('zh', 'bank_zh', 'mixed')]
    searches.append(Search(_search('notes', 0)))
    assert {s.kind for s in cjk_training(searches, 'zh')} == {'bank_zh'}
    assert {s.kind for s in cjk_training(searches, 'bank_zh')} == {'zh'}
    # mixed asks zh's questions again
    assert {s.kind for s in cjk_training(searches, 'mixed')} == {'bank_zh'}


def test_a_prose_correction_learns_from_other_memories_than_turns_and_leaves_turns_alone():
    # the base model learned from turns that BM25 finds the gold; on notes the dense list does
    turns = [Search(_search(k, 0, turn=1.0)) for k in ('a', 'b') for _ in range(3)]
    notes = [Search(_search(k, 5)) for k in ('notes', 'bank_en')]
    base = fit(turns, 'fixture')
    assert replay(notes[0], base)[0] == frozenset({'r0'})
    corrected = base.model_copy(update={'prose': fit_prose(turns + notes * 3, base, 'fixture')})
    assert replay(notes[0], corrected)[0] == frozenset({'r5'})
    for s in turns:
        assert replay(s, corrected) == replay(s, base)
    # a Chinese query's other memories take the Chinese correction, not this one
    chinese = Search(_search('zh', 5, question='我喜欢什么动物？'))
    assert replay(chinese, corrected) == replay(chinese, base)


def test_a_prose_correction_is_fitted_without_the_held_out_kind_and_what_mixed_asks_again():
    searches = [Search(_search(k, 0)) for k in ('notes', 'summaries', 'bank_en', 'mixed')]
    searches.append(Search(_search('notes', 0, scope='agent:kinds-notes-conv-26')))
    searches.append(Search(_search('zh', 0, question='我住在哪里？')))
    assert {s.kind for s in prose_training(searches, 'notes')} == {'summaries', 'bank_en'}
    # mixed asks bank_en's questions and conv-26's again
    held = prose_training(searches, 'mixed')
    assert {s.kind for s in held} == {'notes', 'summaries'}
    assert all(s.conversation != 'conv-26' for s in held)


def test_the_replay_keeps_a_chinese_hit_sharing_a_word_once_the_question_is_answered():
    raw = _search('zh', 3, question='我在读哪本科幻小说？')
    ids = list(raw['factors'])
    for n, ident in enumerate(ids):
        # coverage: the first hit reaches the floor, the gold shares one word, the last none
        raw['factors'][ident] |= {'confidence': [0.6, 0.1, 0.1, 0.1, 0.1, 0.0][n], 'reach': 0.2}
    raw['factors'][ids[0]]['reach'] = 0.6
    answered = Search(raw)
    model = fit([Search(_search(k, 0)) for k in ('a', 'b')], 'fixture')
    kept = replay(answered, model)
    assert frozenset({'r3'}) in kept and frozenset({'r5'}) not in kept
    # nothing reaches the floor: nothing is returned; English searches keep the plain floor
    raw['factors'][ids[0]]['reach'] = 0.2
    assert replay(Search(raw), model) == []
    english = Search(_search('notes', 0))
    english.confidence[:] = 0.1
    assert english.reach is None and replay(english, model) == []


def test_the_replay_asks_an_english_question_the_floors_gate_when_receipts_carry_reach():
    raw = _search('notes', 3)
    ids = list(raw['factors'])
    for n, ident in enumerate(ids):
        # the first hit reaches the floor; the gold holds a third of the words; the last is below
        raw['factors'][ident] |= {'confidence': [0.6, 0.35, 0.35, 0.35, 0.35, 0.1][n], 'reach': 0.0}
    raw['factors'][ids[0]]['reach'] = 0.6
    model = fit([Search(_search(k, 0)) for k in ('a', 'b')], 'fixture')
    kept = replay(Search(raw), model)
    assert frozenset({'r3'}) in kept and frozenset({'r5'}) not in kept
    # no hit reaches it (one common word of three): the question is not answered at all
    raw['factors'][ids[0]]['reach'] = 0.0
    assert replay(Search(raw), model) == []
