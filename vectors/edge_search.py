"""The read side of the Qdrant Edge adapter: searches, reads by id, scrolls, counts and facets,
with payloads served from the payload cache (vectors/edge_reads.py) and built filters reused."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import qdrant_edge as qe

from vectors.edge_reads import PayloadCache, warm_cache
from vectors.edge_shards import EdgeShards
from vectors.edge_translate import decode_payload, edge_filter, filter_key, matches_nothing
from vectors.filtering import facet_key, matches
from vectors.models import (
    Channel,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    scored_point,
    stored_point,
)

log = logging.getLogger(__name__)

# Built Edge filters are kept by content: a search sends the same filter (its scope, trust and
# supersession) to every channel, the same scope asks again and again, and building one holds
# the GIL (~40 us). Edge only reads a filter, so threads share one. The bound keeps filters with
# time ranges from piling up.
FILTER_CACHE_SIZE = 1024
# After a start the cache is empty and the payload pages are not in the page cache, so searches
# would read them from disk, and again after each idle minute once the kernel drops them. `warm`
# reads stored payloads into the cache a page at a time, only once no payload was read for
# WARM_IDLE_S: small pages between searches, never beside them.
WARM_PAGE = 64
WARM_IDLE_S = 0.1


class EdgeSearch:
    """Reads of the shards in `shards`. Queries ask Edge for ids and scores only and take the
    payloads from `payloads` (reading the missing ones by id): turning Edge's payloads into
    Python objects holds the GIL for each point, while its search does not."""

    def __init__(self, shards: EdgeShards, payloads: PayloadCache) -> None:
        self._shards = shards
        self._payloads = payloads
        self._filters: dict[tuple[Any, ...], Any] = {}  # see FILTER_CACHE_SIZE
        # (key, *values) -> (shard, (generation, writes begun, done), no point has them)
        self._counted: dict[tuple[Any, ...], tuple[Any, tuple[int, int, int], bool]] = {}
        self.last_read = 0.0  # when a search or retrieve last asked for payloads (see `warm`)
        self._stop = threading.Event()
        self._warmers: list[threading.Thread] = []

    def _edge_filter(self, flt: PointFilter) -> Any:
        key = filter_key(flt)
        built = self._filters.get(key)
        if built is None:
            if len(self._filters) >= FILTER_CACHE_SIZE:
                self._filters.clear()  # rare (many scopes or time ranges): start over
            built = self._filters[key] = edge_filter(flt)
        return built

    def _without_vacuous_exclusions(self, shard: Any, flt: PointFilter) -> PointFilter:
        """`flt` without the `none_of` conditions no stored point meets.

        Every search excludes quarantined and superseded memories, and most stores hold none:
        the exclusions still cost a check of each point the search visits (about a quarter of
        a dense search at 100k chunks, bench/README.md), while counting a value through its
        in-RAM index takes ~10 us. `_search` checks its results against the whole filter when
        a write may have crossed the count.
        """
        if not flt.none_of:
            return flt
        vacuous = [
            key for key, values in flt.none_of.items() if self._holds_none(shard, key, values)
        ]
        if not vacuous:
            return flt
        kept = {k: v for k, v in flt.none_of.items() if k not in vacuous}
        return flt.model_copy(update={'none_of': kept})

    def _holds_none(self, shard: Any, key: str, values: list[str | bool | int]) -> bool:
        """Whether no point of `shard` has any of `values` at `key`. Remembered until the next
        write (any write bumps the payload cache's generation, a payload write also the shards'
        write counts): a search asks the same three of each of its channels."""
        shards, generation = self._shards, self._payloads.generation
        begun = shards.writes_begun
        # typed: Python has True == 1, Edge keeps bool and integer values apart
        asked = (key, *((type(v), v) for v in values))
        seen = self._counted.get(asked)
        if seen is not None and seen[0] is shard and seen[1] == (generation, begun, begun):
            return seen[2]
        none = not shard.count(
            qe.CountRequest(
                exact=True,
                filter=self._edge_filter(PointFilter(scopes=None, any_of={key: values})),
            )
        )
        noted = (generation, begun, shards.writes_done)
        if noted == (self._payloads.generation, shards.writes_begun, begun):
            if len(self._counted) >= FILTER_CACHE_SIZE:
                self._counted.clear()
            self._counted[asked] = (shard, noted, none)  # no write crossed the count
        return none

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        """Top points of one channel, filtered in the shard, best first."""
        self._shards.get(collection)  # an unopened collection raises, whatever the filter
        if limit <= 0 or matches_nothing(flt):
            return []
        params = None
        if isinstance(vector, SparseVector):
            if not vector.indices:
                return []
            query_vector: Any = qe.SparseVector(vector.indices, vector.values)
            if vector.scoped_idf and flt.scopes is not None:
                # Edge counts the IDF over the points this filter matches
                corpus = self._edge_filter(PointFilter(scopes=flt.scopes))
                params = qe.SearchParams(idf=qe.IdfParams(corpus=corpus))
        else:
            query_vector = vector
        return self._search(
            collection, channel, query_vector, flt, limit, lighten=True, params=params
        )

    def _search(
        self,
        collection: str,
        channel: Channel,
        query_vector: Any,
        flt: PointFilter,
        limit: int,
        *,
        lighten: bool,
        params: Any = None,
    ) -> list[ScoredPoint]:
        """`query` once its vector is Edge's; `lighten` leaves out vacuous exclusions; `params`:
        Edge's search parameters (the IDF corpus), if any."""
        since = self._payloads.generation
        # noted before the exclusions are counted (see the check below)
        begun, done = self._shards.writes_begun, self._shards.writes_done
        with self._shards.reads.read():
            shard = self._shards.get(collection)
            searched = self._without_vacuous_exclusions(shard, flt) if lighten else flt
            request = qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(query_vector, using=channel),
                filter=self._edge_filter(searched),
                with_payload=False,  # from the cache, or read by id
                params=params,
            )
            found = shard.query(request)
        scored = [(str(p.id), float(p.score)) for p in found]
        ids = [i for i, _ in scored]
        if searched is not flt and (begun != done or self._shards.writes_begun != begun):
            # a write was under way or began since the count: it may have given a point the
            # value an exclusion left out, and the cache may not know it yet. Edge's payloads
            # as they are now show it (a write not applied now was not applied to the search
            # either). If one did cross, the search runs again with the whole filter, so the
            # answer still holds `limit` points when the store has them
            payloads = self._fresh_payloads(collection, ids)
            if any(i in payloads and not matches(payloads[i], flt) for i in ids):
                return self._search(
                    collection, channel, query_vector, flt, limit, lighten=False, params=params
                )
            return [scored_point(i, score, payloads[i]) for i, score in scored if i in payloads]
        payloads = self._payloads_of(collection, ids)
        # a point written between the search and the payload read may have left the filter:
        # those (all, if the cache cannot tell) are checked again
        changed = self._payloads.changed(collection, ids, since)
        # built unvalidated (vectors.models scored_point): the engine's ids, scores and JSON
        # payloads are already valid, and validating ~150 payload dicts would cost ~2 ms a search
        return [
            scored_point(i, score, payloads[i])
            for i, score in scored
            if i in payloads
            and (changed is not None and i not in changed or matches(payloads[i], flt))
        ]

    def _payloads_of(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Decoded payloads of these canonical ids (deleted ones left out), each a fresh top-level
        dict: cached ones, then the rest in one read by id."""
        self.last_read = time.monotonic()
        found = self._payloads.get(collection, ids)
        missing = [i for i in ids if i not in found]
        if missing:
            since = self._payloads.generation
            bools = self._shards.bools(collection)
            with self._shards.reads.read():
                records = self._shards.get(collection).retrieve(missing, True, False)
            # Edge builds every key string anew: interned, cached payloads share them (about
            # half the bytes of a cached memory payload)
            read = {
                str(r.id): decode_payload(
                    {sys.intern(k): v for k, v in (r.payload or {}).items()}, bools
                )
                for r in records
            }
            self._payloads.put(collection, read, since)
            found.update(read)
        # the cache hands out new dicts and keeps its own bytes: callers may change these
        return found

    def _fresh_payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Decoded payloads of these ids read from Edge now, not from the cache."""
        bools = self._shards.bools(collection)
        with self._shards.reads.read():
            records = self._shards.get(collection).retrieve(list(ids), True, False)
        return {str(r.id): decode_payload(dict(r.payload or {}), bools) for r in records}

    def retrieve(self, collection: str, wanted: Sequence[str]) -> list[StoredPoint]:
        """Points by canonical id in the order asked; missing ids left out."""
        self._shards.get(collection)  # an unopened collection raises, cached or not
        if not wanted:
            return []
        by_id = self._payloads_of(collection, wanted)
        return [stored_point(i, by_id[i]) for i in wanted if i in by_id]

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page in id order and the next page's offset (None at the end)."""
        self._shards.get(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return [], None
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=self._edge_filter(flt),
            with_payload=True,
            with_vector=False,
        )
        with self._shards.reads.read():
            records, nxt = self._shards.get(collection).scroll(request)
        bools = self._shards.bools(collection)
        points = [stored_point(str(r.id), decode_payload(r.payload, bools)) for r in records]
        return points, (str(nxt) if nxt is not None else None)

    def count(self, collection: str, flt: PointFilter) -> int:
        """Exact number of matching points."""
        self._shards.get(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return 0
        request = qe.CountRequest(exact=True, filter=self._edge_filter(flt))
        with self._shards.reads.read():
            return int(self._shards.get(collection).count(request))

    def facet(self, collection: str, key: str, flt: PointFilter, limit: int) -> dict[str, int]:
        """Exact counts of each value of an indexed field among matching points."""
        self._shards.get(collection)  # an unopened collection raises, whatever the filter
        if matches_nothing(flt):
            return {}
        request = qe.FacetRequest(key=key, limit=limit, exact=True, filter=self._edge_filter(flt))
        as_bool = key in self._shards.bools(collection)
        with self._shards.reads.read():
            hits = self._shards.get(collection).facet(request).hits
        return {facet_key(bool(h.value) if as_bool else h.value): h.count for h in hits}

    def warm(
        self,
        collection: str,
        flt: PointFilter,
        *,
        delay_s: float = 0.0,
        page: int = WARM_PAGE,
        idle_s: float = WARM_IDLE_S,
    ) -> int:
        """Read the payloads of `collection`'s points matching `flt` into the payload cache
        (see EdgeVectorStore.warm); returns how many points were read."""
        if self._stop.wait(delay_s):
            return 0
        pages = partial(self.scroll, collection, flt, page)
        read = warm_cache(
            self._payloads, collection, pages, lambda: self.last_read, self._stop, idle_s
        )
        log.info('payload cache warmed with %d %s payloads', read, collection)
        return read

    def warm_in_background(self, collection: str, flt: PointFilter, delay_s: float) -> None:
        """`warm` on a daemon thread that `stop` ends."""
        warm = partial(self.warm, collection, flt, delay_s=delay_s)
        thread = threading.Thread(target=warm, name='mnemos-edge-warm', daemon=True)
        self._warmers.append(thread)
        thread.start()

    def stop(self) -> None:
        """Stop the warmers and wait for them."""
        self._stop.set()
        for warmer in self._warmers:
            if warmer is not threading.current_thread():
                warmer.join(timeout=5)
