"""The open Qdrant Edge shards of one store folder and the locks every part of the adapter
(writes, searches, index builds and compactions) takes around them."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from core.errors import StoreUnavailable
from core.locks import ReadWriteLock
from vectors import edge_compact
from vectors.edge_translate import ShardLayout, index_schemas
from vectors.models import CollectionSpec


class EdgeShards:
    """Shards by collection name under `root`, each folder locked for this process from its
    first opening until `release`.

    Locking (qdrant-edge-py 0.9.0): `query` releases the GIL while it searches, so searches from
    several threads overlap inside the engine, and concurrent readers and writers neither crash
    nor lose points. Reads therefore exclude only the swap of a shard after an index build or a
    compaction (`reads`, taken for writing by `EdgeBuilds`), not each other or writes. Writes
    take `write`, so that steps of several calls (open and index creation, per-id payload
    merges, close) stay atomic whether or not a call releases the GIL.
    """

    def __init__(self, root: Path, layout: ShardLayout) -> None:
        self.root = root
        self.layout = layout
        self.open: dict[str, Any] = {}
        self.specs: dict[str, CollectionSpec] = {}
        self.write = threading.RLock()
        self.reads = ReadWriteLock()
        # writes that land while a shard is rebuilt, replayed into the new one (`apply`)
        self.journals: dict[str, list[Any]] = {}
        # payload writes begun and finished (each under `write`): a search that left out an
        # exclusion knows from them whether a write could have crossed it (EdgeSearch)
        self.writes_begun = self.writes_done = 0
        self.generations: dict[str, int] = {}  # each open shard's (edge_compact.current)
        self._bools: dict[str, frozenset[str]] = {}
        self._locks: dict[str, int] = {}  # each collection's lock file (edge_compact.lock)

    def get(self, collection: str) -> Any:
        """The open shard of `collection`; StoreUnavailable when it is not open."""
        try:
            return self.open[collection]
        except KeyError:
            raise StoreUnavailable(f'vector collection {collection!r} is not open') from None

    def bools(self, collection: str) -> frozenset[str]:
        """The boolean payload fields of `collection` (Edge keeps them as keywords)."""
        return self._bools.get(collection, frozenset())

    def ensure(self, spec: CollectionSpec) -> None:
        """Create or open the shard and create its missing payload indexes."""
        with self.write:
            if spec.name in self.open:
                return
            shard = self.load(spec)
            try:
                existing = set(shard.info().payload_schema)
                for name, schema in index_schemas(spec):
                    if name not in existing:
                        shard.update(qe.UpdateOperation.create_field_index(name, schema))
            except BaseException:
                shard.close()
                raise
            self.open[spec.name] = shard
            self.specs[spec.name] = spec
            self._bools[spec.name] = frozenset(spec.bool_fields)

    def load(self, spec: CollectionSpec) -> Any:
        """Open the current generation of `spec`'s shard (taking the shard's lock the first
        time, and removing its other generations)."""
        if spec.name not in self._locks:  # held from the first opening until release()
            self._locks[spec.name] = edge_compact.lock(self.root / spec.name, self.root)
        number, path = edge_compact.current(self.root, spec.name)
        self.generations[spec.name] = number
        return self.open_at(path, spec)

    def path(self, collection: str) -> Path:
        """The folder of `collection`'s open generation."""
        return edge_compact.generation(self.root, collection, self.generations[collection])

    def open_at(self, path: Path, spec: CollectionSpec) -> Any:
        """The shard of `spec` in the folder `path` (created when there is none)."""
        return edge_compact.open_shard(path, self.layout.config(spec.dense_dim), self.root)

    def apply(self, collection: str, op: Any, shard: Any = None) -> None:
        """Apply a write (the caller holds `write`), and note it for a rebuild under way."""
        (shard or self.get(collection)).update(op)
        journal = self.journals.get(collection)
        if journal is not None:
            journal.append(op)

    def close(self) -> None:
        """Flush and close every shard; they read as not open from then on."""
        with self.write:
            shards, self.open = self.open, {}
            for shard in shards.values():
                try:
                    shard.flush()
                finally:
                    shard.close()

    def release(self) -> None:
        """Free the folders' locks for another store."""
        with self.write:
            for fd in self._locks.values():
                os.close(fd)
            self._locks.clear()
