"""What lets the Qdrant Edge adapter read without asking the engine each time: a cache of
decoded payloads that writes keep exact (vectors/edge.py says why it exists)."""

from __future__ import annotations

import logging
import marshal
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from core.errors import StoreUnavailable
from vectors.models import StoredPoint

log = logging.getLogger(__name__)

# A read takes about a millisecond; writes evict a few thousand ids a second at most (access
# bookkeeping under load), so this many remembered evictions cover any read in flight.
EVICTIONS_REMEMBERED = 8192
# Payloads are kept as marshalled tuples of their values beside one shared tuple of keys per
# payload shape (a collection's payloads share a handful of shapes). A 31-field memory then
# takes ~450 bytes instead of ~2.4 KB as a dict, and turns back into a fresh dict in ~2 us,
# against ~65 us to read and convert it out of Edge (bench/README.md, "payload cache"). Shapes
# past this many (arbitrary top-level keys) keep their keys inside the entry.
MAX_SHAPES = 1024
# what an entry costs beyond its marshalled bytes: its key tuple, id string and LRU links
ENTRY_OVERHEAD = 220
# the API refuses JSON nested deeper than 32 (core/jsonsafe.py); deeper payloads are not kept
MAX_EXACT_DEPTH = 64
# Edge keeps integers as 64-bit (larger ones come back as floats)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


def edge_exact(value: Any, depth: int = 0) -> bool:
    """Whether Edge gives this payload value back as it is: JSON types only, no tuples, no
    integers past 64 bits, finite floats. A write keeps only such payloads without a read.
    Values nested past MAX_EXACT_DEPTH are not checked, just not kept: the write they belong
    to has been applied by then and must not fail over its cache entry."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return _INT_MIN <= value <= _INT_MAX
    if kind is float:
        return math.isfinite(value)
    if depth >= MAX_EXACT_DEPTH:
        return False
    if kind is list:
        return all(edge_exact(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and edge_exact(v, depth + 1) for k, v in value.items())
    return False


class PayloadCache:
    """Decoded payloads of recently read or written points, least recently used out first,
    bounded by count and by bytes.

    A reader notes `generation` before it reads Edge; a writer evicts its ids once Edge has
    applied its change, and each eviction is remembered with its generation. What a reader read
    is kept only for ids not evicted since it looked, so whichever comes last, a payload older
    than Edge's never stays in the cache. A writer may then `put` what it wrote, noting the
    generation after its own eviction. Every `get` returns new dicts: callers may change them.
    """

    def __init__(self, size: int, max_bytes: int = 1 << 62) -> None:
        self._size = size if max_bytes > 0 else 0
        self._max_bytes = max_bytes
        self._bytes = 0
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._shapes: dict[tuple[str, ...], int] = {}
        self._keys: list[tuple[str, ...]] = []
        # the generation of each id's latest eviction, for the last EVICTIONS_REMEMBERED ids
        self._evicted: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._forgotten = 0  # evictions up to this generation may no longer be in _evicted
        self._lock = threading.Lock()
        self.generation = 0

    def get(self, collection: str, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The cached payloads of these ids, each a new dict."""
        blobs: dict[str, bytes] = {}
        if not self._size:
            return {}
        items = self._items
        with self._lock:
            for ident in ids:
                key = (collection, ident)
                blob = items.get(key)
                if blob is not None:
                    items.move_to_end(key)
                    blobs[ident] = blob
            keys = self._keys
        return {ident: _unpack(blob, keys) for ident, blob in blobs.items()}

    def put(
        self,
        collection: str,
        payloads: Mapping[str, dict[str, Any]],
        since: int,
        *,
        only_room: bool = False,
    ) -> None:
        """Keep payloads read (or written) after generation `since` was noted, except ids
        evicted since then; `only_room` keeps only what fits without dropping any."""
        if not self._size or not payloads:
            return
        items, evicted = self._items, self._evicted
        with self._lock:
            if since < self._forgotten:
                return
            for ident, payload in payloads.items():
                if only_room and self.full:
                    break
                key = (collection, ident)
                if evicted.get(key, -1) > since:
                    continue  # written while it was read: what was read may predate the write
                blob = self._pack(payload)
                if blob is None:
                    continue
                old = items.get(key)
                if old is not None:
                    self._bytes -= len(old) + ENTRY_OVERHEAD
                items[key] = blob
                items.move_to_end(key)
                self._bytes += len(blob) + ENTRY_OVERHEAD
            while items and (len(items) > self._size or self._bytes > self._max_bytes):
                _, gone = items.popitem(last=False)
                self._bytes -= len(gone) + ENTRY_OVERHEAD

    def _pack(self, payload: dict[str, Any]) -> bytes | None:
        # under the lock (the shape table is shared); marshal takes ~1.5 us a memory
        shape = tuple(payload)
        index = self._shapes.get(shape)
        if index is None and len(self._keys) < MAX_SHAPES:
            index = self._shapes[shape] = len(self._keys)
            self._keys.append(shape)
        try:
            if index is None:
                return marshal.dumps((-1, payload))
            return marshal.dumps((index, tuple(payload.values())))
        except ValueError:  # a value marshal cannot hold: read it from Edge each time
            return None

    def changed(self, collection: str, ids: Iterable[str], since: int) -> set[str] | None:
        """Ids written after generation `since` was noted; None: possibly any of them."""
        if since == self.generation:
            return set()
        with self._lock:
            if since < self._forgotten:
                return None
            evicted = self._evicted
            return {i for i in ids if evicted.get((collection, i), -1) > since}

    def evict(self, collection: str, ids: Iterable[str]) -> None:
        """Drop these ids and remember that they changed now (a new generation)."""
        with self._lock:
            self.generation += 1
            generation, items, evicted = self.generation, self._items, self._evicted
            for ident in ids:
                key = (collection, ident)
                gone = items.pop(key, None)
                if gone is not None:
                    self._bytes -= len(gone) + ENTRY_OVERHEAD
                evicted[key] = generation
                evicted.move_to_end(key)
            while len(evicted) > EVICTIONS_REMEMBERED:
                _, old = evicted.popitem(last=False)
                self._forgotten = max(self._forgotten, old)

    def clear(self) -> None:
        """Drop everything; reads in flight then re-check every id they read."""
        with self._lock:
            self.generation += 1
            self._forgotten = self.generation
            self._items.clear()
            self._evicted.clear()
            self._bytes = 0

    @property
    def full(self) -> bool:
        """Whether one more payload would drop another."""
        return len(self._items) >= self._size or self._bytes >= self._max_bytes

    @property
    def nbytes(self) -> int:
        """Bytes the cached payloads take, by the estimate that bounds them."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)


def _unpack(blob: bytes, keys: list[tuple[str, ...]]) -> dict[str, Any]:
    index, values = marshal.loads(blob)
    if index < 0:
        return values  # type: ignore[no-any-return]
    # the shape was taken from the same dict as the values (`_pack`), so they align
    return dict(zip(keys[index], values, strict=False))


def warm_cache(
    cache: PayloadCache,
    collection: str,
    pages: Callable[[str | None], tuple[list[StoredPoint], str | None]],
    last_read: Callable[[], float],
    stop: threading.Event,
    idle_s: float,
) -> int:
    """Fill `cache` with `collection`'s payloads from `pages(offset)`, a page whenever no
    payload was read for `idle_s` (`last_read()` says when one was), until the cache is full,
    the pages end or `stop` is set; returns how many points were read."""
    read = 0
    offset: str | None = None
    while not cache.full:
        quiet = time.monotonic() - last_read()
        if quiet < idle_s:
            if stop.wait(idle_s - quiet):
                break
            continue
        since = cache.generation
        try:
            points, offset = pages(offset)
        except StoreUnavailable:  # closed meanwhile
            break
        except Exception:  # warming is optional: searches read what it did not
            log.exception('warming the payload cache failed')
            break
        cache.put(collection, {p.id: p.payload for p in points}, since, only_room=True)
        read += len(points)
        if offset is None or stop.is_set():
            break
    return read
