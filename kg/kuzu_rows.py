"""Kuzu rows and bulk-write statements <-> our graph models, for `kg/kuzu_store.py`."""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu 0.11.3 uses importlib.util without importing it
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from core.clock import aware, aware_or_none
from kg.models import (
    Entity,
    Mention,
    Relation,
    SourceKind,
)

# Kuzu TIMESTAMP is zone-less: we store naive UTC and re-attach UTC on the way out.


ENTITY_COLS = (
    'id',
    'scope',
    'name',
    'canonical_name',
    'type',
    'aliases',
    'summary',
    'mention_count',
    'attributes',
    'created_at',
    'updated_at',
    'merged_into',
)
REL_COLS = (
    'id',
    'scope',
    'predicate',
    'fact',
    'valid_from',
    'valid_to',
    'recorded_at',
    'expired_at',
    'confidence',
    'source_chunk',
    'source_episode',
)


SOURCE_TABLES: dict[SourceKind, str] = {'chunk': 'Chunk', 'episode': 'Episode'}
SOURCE_KINDS: dict[str, SourceKind] = {t: k for k, t in SOURCE_TABLES.items()}


def naive(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


_UPDATED_FIELDS = tuple(c for c in ENTITY_COLS if c not in ('scope', 'created_at', 'merged_into'))


def entity_row(e: Entity) -> dict[str, Any]:
    row = {k: v for k, v in entity_props(e, None).items() if k in _UPDATED_FIELDS}
    # '' stands for null: UNWIND infers one struct type and a None-only column has none
    row['merged_into'] = e.merged_into or ''
    return row


def entity_props(e: Entity, vector: Sequence[float] | None) -> dict[str, Any]:
    return {
        'id': e.id,
        'scope': e.scope,
        'name': e.name,
        'canonical_name': e.canonical_name,
        'type': e.type.value,
        'aliases': list(e.aliases),
        'summary': e.summary,
        'mention_count': e.mention_count,
        'attributes': json.dumps(e.attributes, sort_keys=True),
        'created_at': naive(e.created_at),
        'updated_at': naive(e.updated_at),
        'merged_into': e.merged_into,
        'embedding': [float(x) for x in vector] if vector is not None else None,
    }


def relation_props(r: Relation) -> dict[str, Any]:
    return {
        'a': r.subject_id,
        'b': r.object_id,
        'id': r.id,
        'scope': r.scope,
        'predicate': r.predicate,
        'fact': r.fact,
        'valid_from': naive(r.valid_from),
        'valid_to': naive(r.valid_to),
        'recorded_at': naive(r.recorded_at),
        'expired_at': naive(r.expired_at),
        'confidence': r.confidence,
        'source_chunk': r.source_chunk,
        'source_episode': r.source_episode,
    }


# the tables (a store creates them when missing)
SCHEMA = (
    'CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, scope STRING, name STRING, '
    'canonical_name STRING, type STRING, aliases STRING[], summary STRING, mention_count INT64, '
    'attributes STRING, created_at TIMESTAMP, updated_at TIMESTAMP, merged_into STRING, '
    'embedding FLOAT[])',
    'CREATE NODE TABLE IF NOT EXISTS Chunk(id STRING PRIMARY KEY, scope STRING)',
    'CREATE NODE TABLE IF NOT EXISTS Episode(id STRING PRIMARY KEY, scope STRING)',
    # bi-temporal: valid_from/valid_to are world time, recorded_at/expired_at system time
    'CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, id STRING, scope STRING, '
    'predicate STRING, fact STRING, valid_from TIMESTAMP, valid_to TIMESTAMP, '
    'recorded_at TIMESTAMP, expired_at TIMESTAMP, confidence DOUBLE, source_chunk STRING, '
    'source_episode STRING)',
    'CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Entity TO Chunk, FROM Entity TO Episode, '
    'scope STRING, at TIMESTAMP)',
)

# Kuzu uses its primary-key index for `{id: $x}` only: `id IN $list` compares every row of the
# table with every key, and an UNWIND's match joins against a scan of the table (below). Both
# grow with the store, while one indexed statement per key, its plan kept (kg/kuzu_plans.py),
# costs the same at any size: ~0.1 ms for an id lookup, ~1 ms for a write with a list parameter
# (planned on every call). A store picks the cheaper by the table's row count, with these costs
# per row of the table (bench/README.md, "Graph writes at scale", measures them).
SMALL_BATCH = 24  # up to this many keys, one statement per key at any size
IN_LIST_MS_PER_ROW_KEY = 9e-6  # `id IN $list`, per row and key
UNWIND_SET_MS_PER_ROW = 1.3e-3  # an UNWIND whose match sets properties
UNWIND_LINK_MS_PER_ROW = 7.3e-3  # an UNWIND whose matches create relationships
DELETE_MS_PER_KEY = 1.5  # `MATCH (n:T {id: $id}) DETACH DELETE n` and the read of its links before


def scan_cheaper(
    table_rows: int, keys: int, per_key_ms: float, per_row_ms: float | None = None
) -> bool:
    """Whether one statement scanning a table of `table_rows` at `per_row_ms` a row (None: an
    IN list of `keys`) costs less than `keys` indexed statements of `per_key_ms` each."""
    if keys <= SMALL_BATCH:
        return False
    per_row = IN_LIST_MS_PER_ROW_KEY * keys if per_row_ms is None else per_row_ms
    return table_rows * per_row < keys * per_key_ms


# How bulk writes reach Kuzu 0.11, which puts a table's first 131,072 nodes in one node group:
# - Never COPY into a rel table: it rebuilds the whole node group it writes to, so its memory and
#   time grow with the store. Once that no longer fits the buffer pool it fails half-way ("Unable
#   to allocate memory! The buffer pool is full") and leaves the file corrupt: the next read, and
#   every later open, segfaults, which stops `mnemos serve` once a store outgrows its pool.
# - Never `UNWIND ... MATCH (x {id: r.id})`: the match joins against a scan of the table, so it too
#   grows with the store, in time and in buffer pool.
# - Nodes: one UNWIND ... CREATE, which matches nothing.
# - Mentions of new sources (nearly all): one statement that creates each source node and matches
#   only its entities, while the entity table is small (scan_cheaper, UNWIND_LINK_MS_PER_ROW: it
#   still scans the entities); else the nodes by one UNWIND ... CREATE and each link by an
#   indexed statement (~0.33 ms). Links of stored sources: per row.
# - Relations: one statement whose two matches each bind one entity while the entity table is
#   small (it scans it too), else per row (~0.6 ms).
CREATE_ENTITIES = (
    'UNWIND $rows AS r CREATE (:Entity {{id: r.id, scope: r.scope, name: r.name, '
    'canonical_name: r.canonical_name, type: r.type, aliases: CAST(r.aliases AS STRING[]), '
    'summary: r.summary, mention_count: CAST(r.mention_count AS INT64), '
    'attributes: r.attributes, created_at: CAST(r.created_at AS TIMESTAMP), '
    'updated_at: CAST(r.updated_at AS TIMESTAMP), merged_into: CAST(r.merged_into AS STRING)'
    '{embedding}}})'
)
# Kuzu's binding turns a None list inside a row into [] (and CASE around the cast fails with
# bad_function_call), so entities without a vector are created by a statement without the key
WITH_EMBEDDING = ', embedding: CAST(r.embedding AS FLOAT[])'
CREATE_SOURCES = (
    'UNWIND $rows AS r CREATE (c:{table} {{id: r.id, scope: r.scope}}) WITH c, r '
    'UNWIND r.links AS l MATCH (e:Entity {{id: l.e}}) '
    'CREATE (e)-[:MENTIONS {{scope: l.scope, at: CAST(l.at AS TIMESTAMP)}}]->(c)'
)
CREATE_RELATIONS = (
    'UNWIND $rows AS r MATCH (a:Entity {id: r.a}) WITH a, r MATCH (b:Entity {id: r.b}) '
    'CREATE (a)-[x:RELATES {id: r.id, scope: r.scope, predicate: r.predicate, fact: r.fact, '
    'valid_from: CAST(r.valid_from AS TIMESTAMP), valid_to: CAST(r.valid_to AS TIMESTAMP), '
    'recorded_at: CAST(r.recorded_at AS TIMESTAMP), expired_at: CAST(r.expired_at AS TIMESTAMP), '
    'confidence: CAST(r.confidence AS DOUBLE), source_chunk: CAST(r.source_chunk AS STRING), '
    'source_episode: CAST(r.source_episode AS STRING)}]->(b) RETURN x.id'
)
CREATE_RELATION = (
    'MATCH (a:Entity {id: $a}), (b:Entity {id: $b}) CREATE (a)-[r:RELATES '
    '{id: $id, scope: $scope, predicate: $predicate, fact: $fact, '
    'valid_from: $valid_from, valid_to: $valid_to, recorded_at: $recorded_at, '
    'expired_at: $expired_at, confidence: $confidence, '
    'source_chunk: $source_chunk, source_episode: $source_episode}]->(b) RETURN r.id'
)


def entity_from_row(row: list[Any]) -> Entity:
    data = dict(zip(ENTITY_COLS, row, strict=True))
    data['aliases'] = list(data['aliases'] or [])
    data['attributes'] = json.loads(data['attributes'] or '{}')
    data['summary'] = data['summary'] or ''
    data['mention_count'] = data['mention_count'] or 0
    for key in ('created_at', 'updated_at'):
        data[key] = aware_or_none(data[key])
    return Entity.model_validate(data)


def _relation(row: list[Any]) -> Relation:
    data = dict(zip(REL_COLS, row[2:], strict=True))
    for key in ('valid_from', 'valid_to', 'recorded_at', 'expired_at'):
        data[key] = aware_or_none(data[key])
    data['fact'] = data['fact'] or ''
    return Relation(subject_id=row[0], object_id=row[1], **data)


def mention_from_row(row: list[Any]) -> Mention:
    return Mention(
        entity_id=row[0],
        source_id=row[1],
        kind=SOURCE_KINDS[row[2]],
        scope=row[3],
        at=aware(row[4]),
    )


def unique_relations(rows: list[list[Any]]) -> list[Relation]:
    out: dict[str, Relation] = {}
    for row in rows:
        rel = _relation(row)
        out.setdefault(rel.id, rel)
    return list(out.values())
