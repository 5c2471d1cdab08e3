"""Embeddings between the store and the model: the clamp of overlong texts, query micro-batching
(QueryBatcher) and the LRU cache every configured embedder is wrapped in (CachedEmbedder).

Pure Python and numpy: the models themselves are in vectors/embedders.py.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from vectors.ports import Embedder

CLAMP_JOINER = ' … '
QUERY_KEY_PREFIX = '\x00query\x00'  # no stored text starts with NUL


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


class _Pending:
    """One query waiting for its embedding in a QueryBatcher."""

    __slots__ = ('done', 'error', 'text', 'vector')

    def __init__(self, text: str) -> None:
        self.text = text
        self.vector: list[float] | None = None
        self.error: BaseException | None = None
        self.done = False


class QueryBatcher:
    """Dynamic micro-batching of query embeddings across concurrent requests.

    The first caller to find no batch in progress leads: it waits up to `window_s` for other
    queries (only when the last batch was shared, so a lone client never waits), takes up to
    `max_batch` queued queries and embeds them in one model run; the others sleep until their
    vector is set. One ONNX run over 8 short queries costs about what 2 single runs cost, and
    the run releases the GIL, so under load every request's embed gets cheaper.
    """

    def __init__(self, inner: Embedder, window_s: float = 0.002, max_batch: int = 32) -> None:
        self.inner = inner
        self._window = window_s
        self._max = max_batch
        self._cond = threading.Condition()
        self._queue: list[_Pending] = []
        self._leading = False
        self._last_size = 1
        self.batches = 0  # how many model runs served queries (tests, benchmarks)

    def embed_query(self, text: str) -> list[float]:
        """The query's embedding, computed in a batch with whichever queries came with it."""
        item = _Pending(text)
        with self._cond:
            self._queue.append(item)
            self._cond.notify_all()
        while True:
            with self._cond:
                while not item.done and self._leading:
                    self._cond.wait()
                if item.done:
                    break
                self._leading = True
            self._lead()
        if item.error is not None:
            raise item.error
        assert item.vector is not None
        return item.vector

    def _lead(self) -> None:
        with self._cond:
            if self._last_size > 1:
                deadline = time.monotonic() + self._window
                while len(self._queue) < self._max:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
            batch, self._queue = self._queue[: self._max], self._queue[self._max :]
        try:
            vectors = self.inner.embed([b.text for b in batch])
            error: BaseException | None = None
        except BaseException as exc:  # every waiter gets the error, not a hang
            vectors, error = [], exc
        with self._cond:
            for n, b in enumerate(batch):
                b.vector, b.error, b.done = (vectors[n] if error is None else None), error, True
            self._last_size = len(batch)
            self.batches += 1
            self._leading = False
            self._cond.notify_all()


# Documents get a smaller share of the cache than queries. A memory's id is derived from its
# text and a repeated write is recognised by that id before anything is embedded, so a stored
# text is embedded once: document vectors kept after a bulk load are never read again (1.6 KB
# each). What does repeat on the document side is short and recent (entity names, a text a
# merge embeds again), which a few thousand entries keep; queries repeat over days.
DOCUMENT_CACHE_SIZE = 2_000


class _Lru:
    """Embeddings by key, least recently used out first; callers hold the owner's lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        # float32 arrays: a list of 384 Python floats costs ~12 KB, the array 1.5 KB
        self.items: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def get(self, key: bytes) -> np.ndarray | None:
        hit = self.items.get(key)
        if hit is not None:
            self.items.move_to_end(key)
        return hit

    def put(self, key: bytes, vector: Sequence[float]) -> None:
        if not self.size:
            return
        self.items[key] = np.asarray(vector, dtype=np.float32)
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


class CachedEmbedder:
    """Clamps inputs and keeps LRUs of embeddings keyed by a hash of the clamped text: one for
    queries (`max_entries`), a smaller one for documents (see DOCUMENT_CACHE_SIZE); a lookup
    reads both, so a query that repeats a stored text is not embedded again."""

    def __init__(
        self,
        inner: Embedder,
        max_entries: int = 50_000,
        max_chars: int = 2_000,
        batcher: QueryBatcher | None = None,
        max_documents: int = DOCUMENT_CACHE_SIZE,
    ) -> None:
        self.inner = inner
        # query misses of a symmetric model go through the batcher when there is one
        self._batcher = batcher
        self.name = inner.name
        self.dim = inner.dim
        # cosine above which two memories say the same thing, for this model (None: not known)
        self.merge_cosine: float | None = getattr(inner, 'merge_cosine', None)
        self.multilingual: bool = getattr(inner, 'multilingual', False)
        self._max_chars = max_chars
        self._queries = _Lru(max_entries)
        self._documents = _Lru(min(max_documents, max_entries))
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Embeddings held, queries and documents together."""
        return len(self._queries.items) + len(self._documents.items)

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode('utf-8'), digest_size=16).digest()

    def _lookup(self, key: bytes) -> np.ndarray | None:
        hit = self._queries.get(key)
        return hit if hit is not None else self._documents.get(key)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document embeddings in order; only cache misses reach the model, in one batch."""
        return self._embed(texts, self._documents)

    def _embed(self, texts: Sequence[str], into: _Lru) -> list[list[float]]:
        clamped = [clamp_text(t, self._max_chars) for t in texts]
        keys = [self._key(t) for t in clamped]
        out: list[list[float] | None] = [None] * len(texts)
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._lookup(key)
                if hit is not None:
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
                    into.put(key, vector)
        return [v for v in out if v is not None]

    def embed_query(self, text: str) -> list[float]:
        """Query embedding, through the cache (agents repeat queries).

        A symmetric model shares the documents' entries; an asymmetric one (e5: "query: ") gets
        the inner model's query embedding, cached under a key of its own.
        """
        if getattr(self.inner, 'symmetric', True):
            if self._batcher is None:
                return self._embed([text], self._queries)[0]
            clamped = clamp_text(text, self._max_chars)
            key = self._key(clamped)
            with self._lock:
                hit = self._lookup(key)
                if hit is not None:
                    return hit.tolist()
            vector = self._batcher.embed_query(clamped)
            self._remember(key, vector)
            return vector
        clamped = clamp_text(text, self._max_chars)
        key = self._key(QUERY_KEY_PREFIX + clamped)
        with self._lock:
            hit = self._queries.get(key)
            if hit is not None:
                return hit.tolist()
        vector = self.inner.embed_query(clamped)
        self._remember(key, vector)
        return vector

    def _remember(self, key: bytes, vector: list[float]) -> None:
        with self._lock:
            self._queries.put(key, vector)
