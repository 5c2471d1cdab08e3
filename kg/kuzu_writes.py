"""The Kuzu graph store's writes: entities, facts and mentions created or changed in batches,
sources forgotten, facts and entities purged.

Each write runs inside the store's write (`writing`: one writer, readers excluded) and, where
one statement per row is needed, inside one transaction, so a batch lands whole or not at all.
Many rows go as one UNWIND while the table is small, one indexed statement per row once a scan
would cost more (kuzu_rows.scan_cheaper). No kuzu call lives here (kg/kuzu_store.py runs them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from kg.kuzu_reads import KeyLookups, Rows
from kg.kuzu_rows import (
    CREATE_ENTITIES,
    CREATE_RELATION,
    CREATE_RELATIONS,
    CREATE_SOURCES,
    DELETE_MS_PER_KEY,
    SOURCE_TABLES,
    UNWIND_LINK_MS_PER_ROW,
    UNWIND_SET_MS_PER_ROW,
    WITH_EMBEDDING,
    entity_props,
    entity_row,
    naive,
    relation_props,
)
from kg.models import Entity, Mention, Relation, RelationUpdate

Scope = Callable[[], AbstractContextManager[None]]


class Write(Protocol):
    """Run one statement for its effect."""

    def __call__(self, query: str, params: dict[str, Any] | None = None) -> None: ...


class KuzuWrites:
    """The GraphStore writes on Kuzu."""

    def __init__(
        self, rows: Rows, write: Write, writing: Scope, transaction: Scope, keys: KeyLookups
    ) -> None:
        """`write(query, params)` runs a statement for its effect; `writing()` holds the store's
        single write, `transaction()` one transaction inside it."""
        self._rows = rows
        self._write = write
        self._writing = writing
        self._transaction = transaction
        self._keys = keys

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        latest = {e.id: e for e in entities}  # the last version of an id in a batch wins
        vectors = dict(embeddings or {})
        if not latest and not vectors:
            return
        with self._writing():
            stored = self._keys.existing('Entity', sorted(latest.keys() | vectors.keys()))
            fresh = [e for i, e in latest.items() if i not in stored]
            # one UNWIND per kind of row at every size: creating nodes matches nothing, so it
            # needs no lookup per row (kg/kuzu_rows.py says why it is never COPY)
            with self._transaction():
                for key in (WITH_EMBEDDING, ''):
                    rows = [
                        entity_props(e, vectors.get(e.id))
                        for e in fresh
                        if (e.id in vectors) == bool(key)
                    ]
                    if rows:
                        self._write(CREATE_ENTITIES.format(embedding=key), {'rows': rows})
            changed = [entity_row(e) for i, e in latest.items() if i in stored]
            self._each_or_unwind(
                'MATCH (e:Entity {id: r.id}) SET e.name = r.name, '
                'e.canonical_name = r.canonical_name, e.type = r.type, e.aliases = r.aliases, '
                'e.summary = r.summary, e.mention_count = r.mention_count, '
                'e.attributes = r.attributes, e.updated_at = r.updated_at, '
                "e.merged_into = CASE WHEN r.merged_into = '' THEN NULL "
                'ELSE r.merged_into END',
                changed,
            )
            fresh_ids = {e.id for e in fresh}
            revectored = [
                {'id': i, 'v': [float(x) for x in v]}
                for i, v in vectors.items()
                if i not in fresh_ids and (i in stored)
            ]
            self._each_or_unwind('MATCH (e:Entity {id: r.id}) SET e.embedding = r.v', revectored)

    # ---- relations -----------------------------------------------------------------------

    def add_relations(self, relations: Sequence[Relation]) -> None:
        unique = list({r.id: r for r in relations}.values())
        if not unique:
            return
        with self._writing():
            if self._keys.scan_cheaper('Entity', 0.57, len(unique)):
                rows = self._rows(
                    'MATCH (a:Entity)-[r:RELATES]->(:Entity) WHERE a.id IN $keys AND r.id IN $ids '
                    'RETURN r.id',
                    {'keys': sorted({r.subject_id for r in unique}), 'ids': [r.id for r in unique]},
                )
            else:  # from the subject's index entry; scalars only, so its plan is kept
                one = (
                    'MATCH (a:Entity {id: $a})-[r:RELATES]->(:Entity) WHERE r.id = $id RETURN r.id'
                )
                rows = [x for r in unique for x in self._rows(one, {'a': r.subject_id, 'id': r.id})]
            stored = {r[0] for r in rows}
            fresh = [r for r in unique if r.id not in stored]
            if fresh:
                self._create_relations(fresh)

    def _create_relations(self, fresh: list[Relation]) -> None:
        rows = [relation_props(r) for r in fresh]
        with self._transaction():
            if self._keys.scan_cheaper('Entity', 0.59, len(rows), UNWIND_LINK_MS_PER_ROW):
                created = len(self._rows(CREATE_RELATIONS, {'rows': rows}))
            else:
                created = sum(len(self._rows(CREATE_RELATION, row)) for row in rows)
            if created != len(rows):  # as COPY did: a relation needs both its ends stored
                raise ValueError('a relation endpoint entity is not stored')

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        closes = [
            {'s': u.subject_id, 'id': u.id, 'v': naive(u.valid_to)}
            for u in updates
            if u.valid_to is not None
        ]
        expiries = [
            {'s': u.subject_id, 'id': u.id, 'v': naive(u.expired_at)}
            for u in updates
            if u.expired_at is not None
        ]
        reopened = [
            {'s': u.subject_id, 'id': u.id} for u in updates if u.reopen and u.valid_to is None
        ]
        with self._writing():
            for field, rows in (('valid_to', closes), ('expired_at', expiries)):
                # MATCH from the indexed subject: rel properties have no index of their own
                self._each_or_unwind(
                    'MATCH (a:Entity {id: r.s})-[x:RELATES]->(:Entity) '
                    f'WHERE x.id = r.id SET x.{field} = r.v',
                    rows,
                )
            self._each_or_unwind(
                'MATCH (a:Entity {id: r.s})-[x:RELATES]->(:Entity) '
                'WHERE x.id = r.id SET x.valid_to = NULL',
                reopened,
            )

    # ---- mentions ------------------------------------------------------------------------

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        unique = list({(m.entity_id, m.source_id, m.kind): m for m in mentions}.values())
        if not unique:
            return
        with self._writing():
            for kind, table in SOURCE_TABLES.items():
                batch = [m for m in unique if m.kind == kind]
                if batch:
                    self._add_mentions(table, batch)

    def _add_mentions(self, table: str, batch: list[Mention]) -> None:
        source_ids = sorted({m.source_id for m in batch})
        stored = self._keys.existing(table, source_ids)
        entities = self._keys.existing('Entity', sorted({m.entity_id for m in batch}))
        known = {(m.entity_id, m.source_id): m for m in batch if m.entity_id in entities}
        links: dict[str, list[dict[str, Any]]] = {s: [] for s in source_ids if s not in stored}
        for (entity, source), m in known.items():
            if source in links:
                links[source].append({'e': entity, 'scope': m.scope, 'at': naive(m.at)})
        scopes = {m.source_id: m.scope for m in batch}
        # new sources with their links: one statement (kg/kuzu_rows.py says why) while it beats a
        # statement per link; Kuzu cannot type an empty list, so unlinked ones come on their own
        n = sum(map(len, links.values()))
        together = self._keys.scan_cheaper('Entity', 0.33, n, UNWIND_LINK_MS_PER_ROW)
        rows = [{'id': s, 'scope': scopes[s], 'links': ls} for s, ls in links.items() if ls]
        bare = [{'id': s, 'scope': scopes[s]} for s, ls in links.items() if not (ls and together)]
        if rows and together:
            self._write(CREATE_SOURCES.format(table=table), {'rows': rows})
        if bare:
            self._write(
                f'UNWIND $rows AS r CREATE (:{table} {{id: r.id, scope: r.scope}})', {'rows': bare}
            )
        linked = self._keys.linked(table, [s for s in source_ids if s in stored])
        todo = [m for k, m in known.items() if k not in linked and (k[1] in stored or not together)]
        with self._transaction():  # the other links: one statement per row
            for m in todo:
                self._write(
                    f'MATCH (e:Entity {{id: $e}}), (c:{table} {{id: $c}}) '
                    'CREATE (e)-[:MENTIONS {scope: $scope, at: $at}]->(c)',
                    {'e': m.entity_id, 'c': m.source_id, 'scope': m.scope, 'at': naive(m.at)},
                )

    # ---- deletes -------------------------------------------------------------------------

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        wanted, named = list(dict.fromkeys(source_ids)), dict[str, None]()
        if not wanted:  # nothing to forget: no write call
            return []
        with self._writing():
            for table in SOURCE_TABLES.values():
                named.update((entity, None) for entity, _ in self._keys.linked(table, wanted))
                self._delete_nodes(table, wanted)
        return list(named)

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        with self._writing():
            if relation_ids:  # a relation's id is no key: this scans the relations either way
                self._write(
                    'MATCH (:Entity)-[r:RELATES]->(:Entity) WHERE r.id IN $ids DELETE r',
                    {'ids': list(relation_ids)},
                )
            self._delete_nodes('Entity', list(dict.fromkeys(entity_ids)))

    def _delete_nodes(self, table: str, ids: list[str]) -> None:
        """DETACH DELETE the nodes of `table` with these ids: one statement scanning the table,
        or one primary-key lookup per id (DELETE_MS_PER_KEY), whichever is cheaper."""
        if self._keys.scan_cheaper(table, DELETE_MS_PER_KEY, len(ids)):
            self._write(f'MATCH (n:{table}) WHERE n.id IN $ids DETACH DELETE n', {'ids': ids})
        elif ids:
            with self._transaction():
                for key in ids:
                    self._write(f'MATCH (n:{table} {{id: $id}}) DETACH DELETE n', {'id': key})

    def _each_or_unwind(self, statement: str, rows: list[dict[str, Any]]) -> None:
        """Run `statement` (which reads row fields as `r.<field>` and matches entities) for every
        row: one UNWIND for many rows among few entities, else one indexed statement per row."""
        if self._keys.scan_cheaper('Entity', 1.0, len(rows), UNWIND_SET_MS_PER_ROW):
            self._write(f'UNWIND $rows AS r {statement}', {'rows': rows})
        elif rows:
            with self._transaction():
                for row in rows:
                    self._write(re.sub(r'\br\.(\w+)', r'$\1', statement), row)
