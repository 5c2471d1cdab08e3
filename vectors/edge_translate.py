"""Translation between our vector-store models and Qdrant Edge's (module level: no per-call
closures): shard layout, payload encoding, filters, index schemas. Used by `vectors/edge.py`
only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import qdrant_edge as qe

from vectors.models import CollectionSpec, PointFilter, canonical_ids

# Edge's HNSW defaults, spelled out because its config takes all three or none
HNSW_M = 16
HNSW_EF_CONSTRUCT = 100


@dataclass(frozen=True)
class ShardLayout:
    """How a shard stores and indexes its vectors (`EdgeVectorStore`'s options, whose
    signature holds the defaults)."""

    vector_storage: str
    quantization: str
    max_segment_kb: int | None
    search_threads: int | None
    indexing_threshold_kb: int | None
    full_scan_kb: int | None

    def config(self, dense_dim: int) -> Any:
        """Edge's shard config for a collection of `dense_dim`-dimensional dense vectors."""
        # `mmap` keeps what grows with the store on disk, paged in as searches read it: the
        # vectors, their int8 copy and the BM25 inverted index (in RAM, the int8 copy and the
        # index hold ~0.7 GB at 1M chunks, copied in at every start); searches after a restart
        # pay the page faults instead
        on_disk = self.vector_storage == 'mmap'
        quantized = None
        if self.quantization == 'int8':
            # HNSW walks the int8 copy; the originals rescore its candidates
            quantized = qe.ScalarQuantizationConfig(
                type=qe.ScalarType.Int8, quantile=0.99, always_ram=not on_disk
            )
        hnsw = None
        if self.full_scan_kb is not None:
            hnsw = qe.HnswIndexConfig(HNSW_M, HNSW_EF_CONSTRUCT, self.full_scan_kb)
        dense = qe.EdgeVectorParams(
            size=dense_dim,
            distance=qe.Distance.Cosine,
            quantization_config=quantized,
            hnsw_config=hnsw,
            memory=qe.Memory.Cold if on_disk else None,
        )
        return qe.EdgeConfig(
            vectors={'dense': dense},
            sparse_vectors={
                'bm25': qe.EdgeSparseVectorParams(
                    modifier=qe.Modifier.Idf, on_disk=True if on_disk else None
                )
            },
            # 4 segments before merging: with Edge's automatic number the first two batches of
            # a bulk load merge into one segment that is rebuilt whole
            optimizers=qe.EdgeOptimizersConfig(
                max_segment_size=self.max_segment_kb,
                default_segment_number=4 if self.max_segment_kb else None,
                indexing_threshold=self.indexing_threshold_kb,
            ),
            # Edge's pool searches on other threads while the caller waits: searching in the
            # caller's thread spends less CPU per query and serves more requests/s
            max_search_threads=self.search_threads,
        )


# set_payload writes points with equal fields in one engine call of at most this many ids (a
# call of hundreds of scattered ids costs more per point than calls of 10-50)
SET_PAYLOAD_GROUP = 50


def same_fields(
    updates: Mapping[str, Mapping[str, Any]],
) -> list[tuple[list[str], Mapping[str, Any]]]:
    """Updates grouped by equal fields (canonical ids; empty updates dropped), at most
    SET_PAYLOAD_GROUP ids a group. Access bookkeeping writes many points with equal fields, and
    one engine call for a group is cheaper per point (at 100k, 1,000 neighbouring points: 0.12
    ms a point one call each, 0.09 in calls of 10, 0.02 of 50)."""
    groups: dict[Any, tuple[list[str], Mapping[str, Any]]] = {}
    for ident, fields in updates.items():
        canonical = canonical_ids([ident])
        if not fields or not canonical:
            continue
        try:
            # the type too: 1, 1.0 and True are equal keys but not equal payloads
            key: Any = frozenset((k, type(v), v) for k, v in fields.items())
        except TypeError:  # a list or dict value: its own group
            key = ('id', canonical[0])
        groups.setdefault(key, ([], fields))[0].append(canonical[0])
    return [
        (ids[start : start + SET_PAYLOAD_GROUP], fields)
        for ids, fields in groups.values()
        for start in range(0, len(ids), SET_PAYLOAD_GROUP)
    ]


def encode_payload(payload: Mapping[str, Any], bools: frozenset[str]) -> dict[str, Any]:
    """A payload as Edge stores it: bool fields as 0/1, which its integer index matches."""
    # qdrant-edge-py 0.9 converts a Python bool in MatchValue/MatchAny to the integer 1/0, which
    # never matches a stored JSON boolean: indexed bool fields are stored as 0/1 integers instead
    data = dict(payload)
    for name in bools:
        value = data.get(name)
        if isinstance(value, bool):
            data[name] = int(value)
    return data


def decode_payload(payload: dict[str, Any] | None, bools: frozenset[str]) -> dict[str, Any]:
    """A payload as Edge returns it with the bool fields back from 0/1 (in place)."""
    data = payload if payload is not None else {}
    for name in bools:
        value = data.get(name)
        if type(value) is int:
            data[name] = bool(value)
    return data


def matches_nothing(flt: PointFilter) -> bool:
    """Whether the filter cannot match any point (an empty list of allowed values)."""
    # an empty scope list or an empty any_of list can match no point: skip the engine
    if flt.scopes is not None and not flt.scopes:
        return True
    return any(not values for values in flt.any_of.values())


def match_conditions(key: str, values: Sequence[str | bool | int]) -> list[Any]:
    """Conditions, one per value type, each matching `key` against any of its values."""
    # MatchAny takes one type; bools go as 0/1, which is how encode_payload stores them
    strings = [v for v in values if isinstance(v, str)]
    ints = [int(v) for v in values if not isinstance(v, str)]
    conditions = []
    if strings:
        conditions.append(qe.FieldCondition(key=key, match=qe.MatchAny(strings)))
    if ints:
        conditions.append(qe.FieldCondition(key=key, match=qe.MatchAny(ints)))
    return conditions


def filter_key(flt: PointFilter) -> tuple[Any, ...]:
    """A hashable form of the filter's content. Equal keys give equal Edge filters: a bool
    and its integer (True, 1) share a key, and match_conditions sends both as the same integer."""
    return (
        None if flt.scopes is None else tuple(flt.scopes),
        tuple((k, tuple(v)) for k, v in flt.any_of.items()),
        tuple((k, tuple(v)) for k, v in flt.none_of.items()),
        tuple((k, r.gte, r.lte) for k, r in flt.ranges.items()),
    )


def edge_filter(flt: PointFilter) -> Any:
    """Our filter as an Edge Filter, or None when it has no condition."""
    must: list[Any] = []
    must_not: list[Any] = []
    if flt.scopes is not None:
        must.append(qe.FieldCondition(key='scope', match=qe.MatchAny(list(flt.scopes))))
    for key, values in flt.any_of.items():
        conditions = match_conditions(key, values)
        must.append(conditions[0] if len(conditions) == 1 else qe.Filter(should=conditions))
    for key, values in flt.none_of.items():
        must_not.extend(match_conditions(key, values))
    for key, rng in flt.ranges.items():
        must.append(qe.FieldCondition(key=key, range=qe.RangeFloat(gte=rng.gte, lte=rng.lte)))
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)


def index_schemas(spec: CollectionSpec) -> list[tuple[str, Any]]:
    """Each indexed field of `spec` and its Edge index parameters (on disk unless a RAM field)."""
    schemas: list[tuple[str, Any]] = []
    for name in spec.keyword_fields:
        # scope is the tenant key: Edge co-locates each scope's points on disk
        schemas.append(
            (name, qe.KeywordIndexParams(is_tenant=name == 'scope', on_disk=spec.on_disk(name)))
        )
    for name in spec.bool_fields:
        # stored as 0/1 (see encode_payload); lookup only, no range index needed
        params = qe.IntegerIndexParams(lookup=True, range=False, on_disk=spec.on_disk(name))
        schemas.append((name, params))
    for name in spec.float_fields:
        schemas.append((name, qe.FloatIndexParams(on_disk=spec.on_disk(name))))
    for name in spec.integer_fields:
        params = qe.IntegerIndexParams(lookup=True, range=True, on_disk=spec.on_disk(name))
        schemas.append((name, params))
    return schemas
