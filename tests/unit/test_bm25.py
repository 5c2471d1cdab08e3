"""BM25 tokenizer, term ids and term weights (pure functions, no store)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vectors.bm25 import K1, B, Bm25Encoder, _stem, _stemmer, term_id, tokenize

encoder = Bm25Encoder()
REPO = Path(__file__).resolve().parents[2]


def weights(text: str) -> dict[int, float]:
    vector = encoder.encode_document(text)
    return dict(zip(vector.indices, vector.values, strict=True))


def test_run_and_running_stem_to_one_term() -> None:
    assert tokenize('running') == tokenize('run') == ['run']
    assert tokenize('Dogs') == ['dog']
    assert encoder.encode_query('running').indices == encoder.encode_document('run').indices


def test_stopwords_are_dropped_but_negations_are_kept() -> None:
    assert tokenize('the dog and the cat') == ['dog', 'cat']
    assert tokenize('she does not like it') == ['not', 'like']
    assert tokenize('the of and') == []


def test_text_is_case_and_width_folded() -> None:
    assert tokenize('DOG') == tokenize('ｄｏｇ') == ['dog']


def test_numbers_are_kept_as_the_stemmer_would_keep_them_without_filling_its_cache() -> None:
    numbers = ['7', '2023', '007', '1234567890']
    info = _stem.cache_info()
    before = info.hits + info.misses
    assert tokenize('flight ' + ' '.join(numbers) + ' 3rd') == [
        'flight',
        *[_stemmer.stemWord(n) for n in numbers],
        '3rd',
    ]
    info = _stem.cache_info()
    assert info.hits + info.misses == before + 2  # 'flight' and '3rd' only


def test_a_chinese_run_yields_unigrams_and_bigrams_so_one_character_finds_it() -> None:
    terms = tokenize('我喜欢狗')
    assert terms == ['我', '喜', '欢', '狗', '我喜', '喜欢', '欢狗']
    assert set(tokenize('狗')) <= set(terms)
    query = encoder.encode_query('狗')
    assert set(query.indices) <= set(encoder.encode_document('我喜欢狗').indices)


def test_term_ids_are_pinned_because_stored_vectors_depend_on_them() -> None:
    # changing the hash orphans every sparse vector already stored: these values must not move
    assert term_id('dog') == 2691776247
    assert term_id('run') == 1518968264
    assert term_id('狗') == 2194337285
    assert term_id('喜欢') == 2282207085


def test_term_ids_are_the_same_in_a_fresh_process() -> None:
    # guards against anything seeded per process, such as Python's str hash
    code = 'from vectors.bm25 import term_id; print(term_id("dog"))'
    out = subprocess.run(
        [sys.executable, '-c', code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(term_id('dog'))


def test_empty_or_stopword_only_text_gives_an_empty_vector() -> None:
    for text in ('', '   ', 'the and of', '!!!'):
        assert encoder.encode_document(text).indices == []
        assert encoder.encode_query(text).indices == []


def test_query_weights_are_one_per_distinct_term_in_sorted_order() -> None:
    query = encoder.encode_query('dogs dog DOG cats')
    assert query.indices == sorted({term_id('dog'), term_id('cat')})
    assert query.values == [1.0, 1.0]


def test_document_weight_grows_with_term_frequency_but_saturates() -> None:
    dog = term_id('dog')
    by_tf = [weights(' '.join(['dog'] * tf))[dog] for tf in (1, 2, 4, 8, 32)]
    assert by_tf == sorted(by_tf)
    assert by_tf[1] - by_tf[0] > by_tf[4] - by_tf[3] > 0
    assert all(w < K1 + 1 for w in by_tf)  # the BM25 ceiling


def test_a_term_weighs_less_in_a_longer_document() -> None:
    dog = term_id('dog')
    short = weights('dog barks')[dog]
    long = weights('dog ' + ' '.join(f'word{i}' for i in range(40)))[dog]
    assert long < short


def test_document_weight_matches_the_bm25_formula() -> None:
    # 2 terms, tf 1: tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / 12))
    norm = K1 * (1 - B + B * 2 / 12)
    assert weights('dog barks')[term_id('dog')] == pytest.approx((K1 + 1) / (1 + norm))
