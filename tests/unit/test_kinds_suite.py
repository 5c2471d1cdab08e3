"""The kinds suite's loader and scorer on a tiny fixture (bench/kinds_suite.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.kinds_suite import (
    KindSet,
    PlainBM25,
    bank_kind,
    document_refs,
    locomo_kinds,
    mean_scores,
    mixed_kind,
    score,
    zh_kind,
)

SAMPLE = {
    'sample_id': 'conv-26',
    'conversation': {
        'speaker_a': 'Ann',
        'speaker_b': 'Bo',
        'session_1_date_time': '1:56 pm on 8 May, 2023',
        'session_1': [
            {'speaker': 'Ann', 'dia_id': 'D1:1', 'text': 'I adopted a puppy.'},
            {'speaker': 'Bo', 'dia_id': 'D1:2', 'text': 'What is its name?'},
        ],
        'session_2_date_time': '10:00 am on 9 June, 2023',
        'session_2': [
            {'speaker': 'Ann', 'dia_id': 'D2:1', 'text': 'Rex chewed my shoes.'},
        ],
    },
    'observation': {
        'session_1_observation': {'Ann': [['Ann adopted a puppy.', 'D1:1']]},
        'session_2_observation': {'Ann': [['Ann has a dog named Rex.', ['D2:1']]]},
    },
    'session_summary': {
        'session_1_summary': 'Ann told Bo about her new puppy.',
        'session_2_summary': 'Ann complained about Rex.',
    },
    'qa': [
        {'question': 'What pet did Ann get?', 'evidence': ['D1:1'], 'category': 4},
        {'question': 'What did Rex do?', 'evidence': ['D2:1', 'D1:1'], 'category': 1},
        {'question': 'Unanswerable?', 'evidence': ['D1:2'], 'category': 5},
        {'question': 'No evidence?', 'evidence': [], 'category': 4},
    ],
}


def test_locomo_kinds_map_a_questions_evidence_to_turns_notes_and_summaries() -> None:
    turns, notes, summaries = locomo_kinds([SAMPLE])
    assert [m.ref for m in turns.memories['agent:kinds-turns-conv-26']] == ['D1:1', 'D1:2', 'D2:1']
    assert turns.memories['agent:kinds-turns-conv-26'][0].text == 'Ann: I adopted a puppy.'
    assert turns.memories['agent:kinds-turns-conv-26'][2].at == '2023-06-09T10:00:00Z'
    # category 5 and questions without evidence are left out
    assert [q.text for q in turns.questions] == ['What pet did Ann get?', 'What did Rex do?']
    assert turns.questions[1].gold == (frozenset({'D2:1'}), frozenset({'D1:1'}))
    assert notes.questions[1].gold == (frozenset({'o1'}), frozenset({'o0'}))
    assert notes.cites['agent:kinds-notes-conv-26'] == {'o0': {'D1:1'}, 'o1': {'D2:1'}}
    assert summaries.questions[1].gold == (frozenset({'s2'}), frozenset({'s1'}))
    assert [m.at for m in summaries.memories['agent:kinds-summaries-conv-26']] == [
        '2023-05-08T13:56:00Z',
        '2023-06-09T10:00:00Z',
    ]


def _bank(tmp_path: Path, gold: str = 'p.gender') -> Path:
    path = tmp_path / 'bank.json'
    body = {
        'scope': 'agent:bank',
        'memories': [
            {'id': 'p.gender', 'text': "Ann Lee's Gender: female"},
            {'id': 'ev', 'text': 'Ann ran a race.', 'at': '2024-01-01T00:00:00Z'},
        ],
        'documents': [{'path': 'home.md', 'markdown': '# Home\n\n## Router\n\nIn the hall.\n'}],
        'questions': [
            {'q': 'Is Ann a woman?', 'gold': [gold], 'type': 'profile'},
            {'q': 'Where is the router?', 'gold': ['home.md#Router'], 'type': 'document'},
        ],
    }
    path.write_text(json.dumps(body))
    return path


def test_a_bank_file_loads_memories_documents_and_questions(tmp_path: Path) -> None:
    bank = bank_kind('bank_en', _bank(tmp_path))
    assert bank.scopes() == ['agent:bank']
    assert [(m.ref, m.at) for m in bank.memories['agent:bank']] == [
        ('p.gender', None),
        ('ev', '2024-01-01T00:00:00Z'),
    ]
    assert document_refs(bank.documents['agent:bank'][0]) == ['home.md#Router']
    assert [q.tag for q in bank.questions] == ['profile', 'document']


def test_a_bank_question_naming_an_unknown_memory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='unknown gold'):
        bank_kind('bank_en', _bank(tmp_path, gold='nobody'))


def test_the_mixed_scope_finds_an_evidence_turn_by_its_turn_note_or_summary(
    tmp_path: Path,
) -> None:
    kinds = locomo_kinds([SAMPLE])
    kinds.append(bank_kind('bank_en', _bank(tmp_path)))
    zh = tmp_path / 'zh.json'
    zh.write_text(
        json.dumps(
            {
                'memories': [{'id': 'm1', 'text': '我喜欢狗'}],
                'queries': [{'text': '我喜欢什么？', 'gold': ['m1'], 'kind': 'preference'}],
            }  # fmt: skip
        )
    )
    kinds.append(zh_kind(zh))
    mixed = mixed_kind(kinds)
    (scope,) = mixed.scopes()
    refs = {m.ref for m in mixed.memories[scope]}
    assert {'turns:D1:1', 'notes:o0', 'summaries:s1', 'bank_en:p.gender', 'zh:m1'} <= refs
    first = mixed.questions[0]
    assert first.gold == (frozenset({'turns:D1:1', 'notes:o0', 'summaries:s1'}),)
    assert [q.tag for q in mixed.questions] == ['turns', 'turns', 'bank_en', 'bank_en', 'zh']
    assert mixed.questions[3].gold == (frozenset({'home.md#Router'}),)


def test_score_counts_gold_pieces_found_in_the_first_five_and_ten_hits() -> None:
    gold = (frozenset({'a'}), frozenset({'b', 'b2'}))
    ranked = [frozenset({'x'})] * 4 + [frozenset({'b2'})] + [frozenset({'y'})] * 3
    ranked += [frozenset({'a'})]
    assert score(ranked, gold) == {'recall@10': 1.0, 'R@5': 0.5, 'mrr': 0.2}
    assert score([], gold) == {'recall@10': 0.0, 'R@5': 0.0, 'mrr': 0.0}
    # a merged memory holding two refs finds both pieces
    assert score([frozenset({'a', 'b'})], gold)['R@5'] == 1.0
    means = mean_scores([score(ranked, gold), score([], gold)])
    assert means == {'recall@10': 0.5, 'R@5': 0.25, 'mrr': 0.1, 'n': 2.0}


def test_plain_bm25_ranks_the_text_with_the_rarer_matching_terms_first() -> None:
    engine = PlainBM25(
        [
            "Ann Lee's Gender: female",
            'Ann: I went running with Bo and then Ann cooked.',
            'Bo likes tea.',
            '我喜欢喝绿茶',
        ]
    )
    assert [i for i, _ in engine.search('What is the gender of Ann Lee?')][:2] == [0, 1]
    assert [i for i, _ in engine.search('喝什么茶')] == [3]
    assert engine.search('unrelated words') == []


def test_a_kind_lists_the_scopes_of_its_memories_and_documents() -> None:
    kind = KindSet('k', memories={'a': []}, documents={'b': [], 'a': []})
    assert kind.scopes() == ['a', 'b']
