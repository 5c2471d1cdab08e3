"""The Kuzu graph store's reads: parameterised Cypher for entities, facts and mentions, and the
key lookups its writes share.

No kuzu call lives here: statements run through the store's connections (`Rows`, from
`kg/kuzu_store.py`), under its read lock or inside its write.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from kg.kuzu_rows import (
    ENTITY_COLS,
    REL_COLS,
    SMALL_BATCH,
    SOURCE_TABLES,
    entity_from_row,
    mention_from_row,
    naive,
    scan_cheaper,
    unique_relations,
)
from kg.models import Entity, Mention, Relation

# Kuzu TIMESTAMP is zone-less: we store naive UTC and re-attach UTC on the way out.
_RETURN_ENTITY = ', '.join(f'e.{c}' for c in ENTITY_COLS)
_RETURN_REL = 'a.id, b.id, ' + ', '.join(f'r.{c}' for c in REL_COLS)
_VALID_AT = (
    'r.expired_at IS NULL AND (r.valid_from IS NULL OR r.valid_from <= $t) '
    'AND (r.valid_to IS NULL OR r.valid_to > $t)'
)


class Rows(Protocol):
    """Run one statement and return its rows."""

    def __call__(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]: ...


class KeyLookups:
    """Many keys looked up by one statement scanning a table, or by one primary-key lookup per
    key, whichever is cheaper at the table's size now (kuzu_rows.scan_cheaper)."""

    def __init__(self, rows: Rows, scans: bool) -> None:
        """`scans=False` runs one indexed statement per key at any size."""
        self._rows = rows
        self._scans = scans

    def scan_cheaper(
        self, table: str, per_key_ms: float, keys: int, per_row: float | None = None
    ) -> bool:
        """kuzu_rows.scan_cheaper for `table` as it is now (counting its rows: ~0.3 ms)."""
        if not self._scans or keys <= SMALL_BATCH:
            return False
        rows = self._rows(f'MATCH (n:{table}) RETURN count(*)')[0][0]
        return scan_cheaper(int(rows), keys, per_key_ms, per_row)

    def by_keys(self, cost: tuple[str, float], keys: list[str], many: str, one: str) -> list[Any]:
        """Rows of `many` (`$keys` in an IN list: a scan of table `cost[0]`) or of `one` (`$key`,
        a primary-key lookup of ~`cost[1]` ms) run once per key, whichever is cheaper."""
        if self.scan_cheaper(*cost, len(keys)):
            return self._rows(many, {'keys': keys})
        return [r for k in keys for r in self._rows(one, {'key': k})]

    def existing(self, table: str, ids: list[str]) -> set[str]:
        """Which of `ids` are stored in a node table."""
        rows = self.by_keys(
            (table, 0.1),
            ids,
            f'MATCH (n:{table}) WHERE n.id IN $keys RETURN n.id',
            f'MATCH (n:{table} {{id: $key}}) RETURN n.id',
        )
        return {r[0] for r in rows}

    def linked(self, table: str, source_ids: list[str]) -> set[tuple[str, str]]:
        """(entity, source) pairs already linked, for sources that exist."""
        rows = self.by_keys(
            (table, 0.2),
            source_ids,
            f'MATCH (e:Entity)-[:MENTIONS]->(c:{table}) WHERE c.id IN $keys RETURN e.id, c.id',
            f'MATCH (e:Entity)-[:MENTIONS]->(c:{table} {{id: $key}}) RETURN e.id, c.id',
        )
        return {(r[0], r[1]) for r in rows}


class KuzuReads:
    """The GraphStore reads on Kuzu."""

    def __init__(self, rows: Rows, keys: KeyLookups) -> None:
        self._rows = rows
        self._keys = keys

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        if not ids:
            return []
        rows = self._keys.by_keys(
            ('Entity', 0.5),
            list(dict.fromkeys(ids)),
            f'MATCH (e:Entity) WHERE e.id IN $keys RETURN {_RETURN_ENTITY}',
            f'MATCH (e:Entity {{id: $key}}) RETURN {_RETURN_ENTITY}',
        )
        found = {r[0]: entity_from_row(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def list_entities(self, scope: str) -> list[Entity]:
        query = f'MATCH (e:Entity) WHERE e.scope = $scope RETURN {_RETURN_ENTITY}'
        return [entity_from_row(r) for r in self._rows(query, {'scope': scope})]

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        query = 'MATCH (e:Entity) WHERE e.scope = $scope AND e.embedding IS NOT NULL RETURN '
        rows = self._rows(query + 'e.id, e.embedding', {'scope': scope})
        return {r[0]: list(r[1]) for r in rows}

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        if not entity_ids:
            return []
        rows = self._rows(
            f'MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids RETURN {_RETURN_REL} '
            f'UNION MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE b.id IN $ids '
            f'RETURN {_RETURN_REL}',
            {'ids': list(entity_ids)},
        )
        return unique_relations(rows)

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        seen: dict[str, Relation] = {}
        visited = set(seed_ids)
        frontier = sorted(visited)
        t = naive(as_of)
        for _ in range(hops):
            if not frontier:
                break
            rows = self._rows(
                f'MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids AND {_VALID_AT} '
                f'RETURN {_RETURN_REL} LIMIT $n '
                f'UNION MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE b.id IN $ids AND '
                f'{_VALID_AT} RETURN {_RETURN_REL} LIMIT $n',
                {'ids': frontier, 't': t, 'n': max_edges},
            )
            nxt: set[str] = set()
            for rel in unique_relations(rows)[:max_edges]:
                if rel.id in seen:
                    continue
                seen[rel.id] = rel
                nxt.update(e for e in (rel.subject_id, rel.object_id) if e not in visited)
            visited |= nxt
            frontier = sorted(nxt)
        return list(seen.values())

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        if not entity_ids:
            return []
        rows = self._rows(
            'MATCH (e:Entity)-[m:MENTIONS]->(c) WHERE e.id IN $ids '
            'RETURN e.id, c.id, label(c), m.scope, m.at ORDER BY m.at DESC LIMIT $n',
            {'ids': list(entity_ids), 'n': limit},
        )
        return [mention_from_row(r) for r in rows]

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        if not entity_ids:
            return {}
        if per_entity is not None:
            # the mirror (kg/mirror.py) serves capped reads in production; here by link time
            rows = self._rows(
                'MATCH (e:Entity)-[m:MENTIONS]->(c:Chunk) WHERE e.id IN $ids '
                'RETURN e.id, c.id ORDER BY m.at DESC, c.id',
                {'ids': list(entity_ids)},
            )
            capped: dict[str, list[str]] = {}
            for entity, chunk in rows:
                kept = capped.setdefault(entity, [])
                if len(kept) < per_entity:
                    kept.append(chunk)
            return capped
        rows = self._rows(
            'MATCH (e:Entity)-[:MENTIONS]->(c:Chunk) WHERE e.id IN $ids RETURN e.id, c.id',
            {'ids': list(entity_ids)},
        )
        out: dict[str, list[str]] = {}
        for entity, chunk in rows:
            out.setdefault(entity, []).append(chunk)
        return out

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        wanted = list(dict.fromkeys(source_ids))
        for table in SOURCE_TABLES.values():
            for entity, source in self._keys.linked(table, wanted):
                out.setdefault(source, []).append(entity)
        return {source: sorted(entities) for source, entities in out.items()}
