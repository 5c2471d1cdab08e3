"""Kuzu rows and Arrow tables <-> our graph models: the conversions of `kg/kuzu_store.py`."""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu 0.11.3 uses importlib.util without importing it
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

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


TS = pa.timestamp('us')


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


def entity_table(entities: Sequence[Entity], vectors: Mapping[str, Sequence[float]]) -> pa.Table:
    return pa.table(
        {
            'id': [e.id for e in entities],
            'scope': [e.scope for e in entities],
            'name': [e.name for e in entities],
            'canonical_name': [e.canonical_name for e in entities],
            'type': [e.type.value for e in entities],
            'aliases': pa.array([list(e.aliases) for e in entities], type=pa.list_(pa.string())),
            'summary': [e.summary for e in entities],
            'mention_count': pa.array([e.mention_count for e in entities], type=pa.int64()),
            'attributes': [json.dumps(e.attributes, sort_keys=True) for e in entities],
            'created_at': pa.array([naive(e.created_at) for e in entities], type=TS),
            'updated_at': pa.array([naive(e.updated_at) for e in entities], type=TS),
            'merged_into': pa.array([e.merged_into for e in entities], type=pa.string()),
            'embedding': pa.array(
                [[float(x) for x in vectors[e.id]] if e.id in vectors else None for e in entities],
                type=pa.list_(pa.float32()),
            ),
        }
    )


def relation_table(relations: Sequence[Relation]) -> pa.Table:
    def ts(values: Iterable[datetime | None]) -> pa.Array:
        return pa.array([naive(v) for v in values], type=TS)

    return pa.table(
        {
            'from': [r.subject_id for r in relations],
            'to': [r.object_id for r in relations],
            'id': [r.id for r in relations],
            'scope': [r.scope for r in relations],
            'predicate': [r.predicate for r in relations],
            'fact': [r.fact for r in relations],
            'valid_from': ts(r.valid_from for r in relations),
            'valid_to': ts(r.valid_to for r in relations),
            'recorded_at': ts(r.recorded_at for r in relations),
            'expired_at': ts(r.expired_at for r in relations),
            'confidence': pa.array([r.confidence for r in relations], type=pa.float64()),
            'source_chunk': pa.array([r.source_chunk for r in relations], type=pa.string()),
            'source_episode': pa.array([r.source_episode for r in relations], type=pa.string()),
        }
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
