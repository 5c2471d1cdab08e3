"""The Embedder contract on the real MiniLM model, offline (the model ships in a package)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from vectors.ports import Embedder


@pytest.fixture(scope='module')
def embedder() -> Iterator[Embedder]:
    """make_embedder('minilm'): MiniLM int8 behind the clamp and the cache."""
    from vectors.embedders import make_embedder

    with pytest.MonkeyPatch.context() as patch:
        # nothing here may reach the network: the weights and tokenizer are local files
        patch.setenv('HF_HUB_OFFLINE', '1')
        yield make_embedder('minilm')


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_minilm_embeddings_have_384_dims_and_unit_norm(embedder: Embedder) -> None:
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
    assert cosine(base, paraphrase) > cosine(base, unrelated) + 0.3
    query = embedder.embed_query('Which city does Alice live in?')
    assert cosine(query, base) > cosine(query, unrelated)


def test_a_batch_embeds_each_text_as_it_would_alone(embedder: Embedder) -> None:
    # fresh texts (no cache hits) of very different lengths, so the batch is padded
    texts = [
        'short one for the batch check',
        'a much longer sentence for the batch check, ' * 8,
        'medium length text for the batch check here',
    ]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        [alone] = embedder.embed([text + ' '])  # a different key: bypasses the cache
        assert cosine(vector, alone) == pytest.approx(1.0, abs=1e-4)
        assert embedder.embed_query(text) == pytest.approx(vector, abs=1e-5)


def test_an_empty_list_embeds_to_an_empty_list(embedder: Embedder) -> None:
    assert embedder.embed([]) == []
