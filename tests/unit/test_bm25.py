"""BM25 tokenizer, term ids and term weights (pure functions, no store)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import StoreUnavailable
from vectors.bm25 import (
    AVG_LEN,
    K1,
    MARKER,
    SPARSE_VERSION,
    B,
    Bm25Encoder,
    _stem,
    _stemmer,
    encoder_for,
    term_id,
    tokenize,
)

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


def test_a_chinese_text_is_as_long_as_its_characters_not_its_characters_and_pairs() -> None:
    # 4 characters give 7 terms; the 3 pairs re-read characters already counted
    norm = K1 * (1 - B + B * 4 / AVG_LEN)
    assert weights('我喜欢狗')[term_id('狗')] == pytest.approx((K1 + 1) / (1 + norm))
    old = Bm25Encoder(1).encode_document('我喜欢狗')
    norm_v1 = K1 * (1 - B + B * 7 / AVG_LEN)
    assert dict(zip(old.indices, old.values, strict=True))[term_id('狗')] == pytest.approx(
        (K1 + 1) / (1 + norm_v1)
    )


def test_versions_weigh_text_without_cjk_alike() -> None:
    for text in ('dogs run in the park', 'flight 2023 to Paris', ''):
        assert Bm25Encoder(1).encode_document(text) == Bm25Encoder(2).encode_document(text)
    assert Bm25Encoder(1).encode_query('我喜欢狗') == Bm25Encoder(2).encode_query('我喜欢狗')


def test_a_new_data_dir_records_the_current_version(tmp_path: Path) -> None:
    assert encoder_for(tmp_path).version == SPARSE_VERSION
    assert json.loads((tmp_path / MARKER).read_text()) == {'version': SPARSE_VERSION}
    assert encoder_for(tmp_path).version == SPARSE_VERSION


def test_a_data_dir_written_before_the_marker_keeps_version_1(tmp_path: Path) -> None:
    # the embedder's marker without this one: vectors written by version 1 are stored there
    (tmp_path / 'embedder.json').write_text('{"model": "m", "dim": 384}\n')
    assert encoder_for(tmp_path).version == 1
    assert encoder_for(tmp_path).version == 1  # recorded, not guessed again


def test_a_marker_of_an_unknown_version_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / MARKER).write_text('{"version": 99}\n')
    with pytest.raises(StoreUnavailable, match='version 99'):
        encoder_for(tmp_path)
    (tmp_path / MARKER).write_text('not json')
    with pytest.raises(StoreUnavailable, match=MARKER):
        encoder_for(tmp_path)
    with pytest.raises(ValueError, match='version'):
        Bm25Encoder(4)


@pytest.mark.parametrize(
    ('text', 'latin', 'cjk'),
    [
        ('我用Python写代码', 'python', '代码'),
        ('VPN账号每90天改一次密码', 'vpn', '账号'),
        ('emoji的限制取消了', 'emoji', '取消'),
    ],
)
def test_a_latin_word_touching_chinese_is_a_term_of_its_own(
    text: str, latin: str, cjk: str
) -> None:
    terms = tokenize(text)
    assert latin in terms and cjk in terms
    # each side is found by a query naming it alone
    document = weights(text)
    assert term_id(_stem(latin)) in document and term_id(cjk) in document
    assert '90' in tokenize('VPN账号每90天改一次密码')


def test_a_data_dir_of_version_2_keeps_cutting_mixed_scripts_as_it_stored_them() -> None:
    # stored vectors and queries must agree: a version 2 store holds "python写代码" as one term
    old = Bm25Encoder(2)
    assert tokenize('我用Python写代码', 2) == ['我', '用', '我用', 'python写代码']
    vector = old.encode_document('我用Python写代码')
    assert term_id('python写代码') in vector.indices
    assert term_id('python写代码') in old.encode_query('我用Python写代码').indices
    # text in one script is cut alike by every version
    for text in ('我喜欢狗', 'dogs run in the park 2023'):
        assert Bm25Encoder(2).encode_document(text) == Bm25Encoder(3).encode_document(text)
        assert Bm25Encoder(2).encode_query(text) == Bm25Encoder(3).encode_query(text)
