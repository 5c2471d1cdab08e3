"""What lets the Qdrant Edge adapter read without asking the engine each time: a cache of
decoded payloads that writes keep exact (vectors/edge.py says why it exists)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

# A read takes about a millisecond; writes evict a few thousand ids a second at most (access
# bookkeeping under load), so this many remembered evictions cover any read in flight.
EVICTIONS_REMEMBERED = 8192


class PayloadCache:
    """Decoded payloads of recently read points, least recently used out first.

    A reader notes `generation` before it reads Edge; a writer evicts its ids once Edge has
    applied its change, and each eviction is remembered with its generation. What a reader read
    is kept only for ids not evicted since it looked, so whichever comes last, a payload older
    than Edge's never stays in the cache.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        # the generation of each id's latest eviction, for the last EVICTIONS_REMEMBERED ids
        self._evicted: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._forgotten = 0  # evictions up to this generation may no longer be in _evicted
        self._lock = threading.Lock()
        self.generation = 0

    def get(self, collection: str, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The cached payloads of these ids (shared dicts: callers copy before changing one)."""
        found: dict[str, dict[str, Any]] = {}
        if not self._size:
            return found
        items = self._items
        with self._lock:
            for ident in ids:
                key = (collection, ident)
                payload = items.get(key)
                if payload is not None:
                    items.move_to_end(key)
                    found[ident] = payload
        return found

    def put(self, collection: str, payloads: Mapping[str, dict[str, Any]], since: int) -> None:
        """Keep payloads read after generation `since` was noted, except evicted ones."""
        if not self._size or not payloads:
            return
        items, evicted = self._items, self._evicted
        with self._lock:
            if since < self._forgotten:
                return
            for ident, payload in payloads.items():
                key = (collection, ident)
                if evicted.get(key, -1) > since:
                    continue  # written while it was read: what was read may predate the write
                items[key] = payload
                items.move_to_end(key)
            while len(items) > self._size:
                items.popitem(last=False)

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
                items.pop(key, None)
                evicted[key] = generation
                evicted.move_to_end(key)
            while len(evicted) > EVICTIONS_REMEMBERED:
                _, gone = evicted.popitem(last=False)
                self._forgotten = max(self._forgotten, gone)

    def clear(self) -> None:
        """Drop everything; reads in flight then re-check every id they read."""
        with self._lock:
            self.generation += 1
            self._forgotten = self.generation
            self._items.clear()
            self._evicted.clear()

    def __len__(self) -> int:
        return len(self._items)
