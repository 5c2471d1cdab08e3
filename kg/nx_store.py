"""GraphStore on networkx: the in-memory twin of the Kuzu adapter (tests, small graphs)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime

import networkx as nx

from kg.models import Entity, Mention, Relation, RelationUpdate
from kg.temporal import valid_at


class NetworkxGraphStore:
    """Entities are nodes, relations are keyed edges of a MultiDiGraph; one lock for all."""

    def __init__(self) -> None:
        self._graph = nx.MultiDiGraph()
        self._relations: dict[str, Relation] = {}
        self._embeddings: dict[str, list[float]] = {}
        self._mentions: dict[str, dict[str, Mention]] = {}  # entity id -> source id -> mention
        self._lock = threading.RLock()

    def upsert_entities(
        self,
        entities: Sequence[Entity],
        embeddings: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        with self._lock:
            for entity in entities:
                self._graph.add_node(entity.id, entity=entity.model_copy(deep=True))
            for ident, vector in (embeddings or {}).items():
                self._embeddings[ident] = list(vector)

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        with self._lock:
            return [
                self._graph.nodes[i]['entity'].model_copy(deep=True)
                for i in ids
                if i in self._graph
            ]

    def list_entities(self, scope: str) -> list[Entity]:
        with self._lock:
            return [
                data['entity'].model_copy(deep=True)
                for _, data in self._graph.nodes(data=True)
                if data['entity'].scope == scope
            ]

    def entity_embeddings(self, scope: str) -> dict[str, list[float]]:
        with self._lock:
            return {
                i: list(v)
                for i, v in self._embeddings.items()
                if i in self._graph and self._graph.nodes[i]['entity'].scope == scope
            }

    def add_relations(self, relations: Sequence[Relation]) -> None:
        with self._lock:
            for rel in relations:
                if rel.id in self._relations:
                    continue
                self._relations[rel.id] = rel
                self._graph.add_edge(rel.subject_id, rel.object_id, key=rel.id)

    def update_relations(self, updates: Sequence[RelationUpdate]) -> None:
        with self._lock:
            for upd in updates:
                rel = self._relations.get(upd.id)
                if rel is None:
                    continue
                changes: dict[str, datetime | None] = {
                    k: v
                    for k, v in (('valid_to', upd.valid_to), ('expired_at', upd.expired_at))
                    if v is not None
                }
                if upd.reopen and upd.valid_to is None:
                    changes['valid_to'] = None
                self._relations[upd.id] = rel.model_copy(update=changes)

    def relations_of(self, entity_ids: Sequence[str]) -> list[Relation]:
        with self._lock:
            return [self._relations[k] for k in self._edge_keys(entity_ids)]

    def neighbourhood(
        self, seed_ids: Sequence[str], hops: int, as_of: datetime, max_edges: int = 500
    ) -> list[Relation]:
        with self._lock:
            seen: dict[str, Relation] = {}
            visited = {i for i in seed_ids if i in self._graph}
            frontier = set(visited)
            for _ in range(hops):
                found = [
                    self._relations[k]
                    for k in self._edge_keys(sorted(frontier))
                    if k not in seen and valid_at(self._relations[k], as_of)
                ][:max_edges]
                nxt: set[str] = set()
                for rel in found:
                    seen[rel.id] = rel
                    for end in (rel.subject_id, rel.object_id):
                        if end not in visited:
                            nxt.add(end)
                visited |= nxt
                frontier = nxt
                if not frontier:
                    break
            return list(seen.values())

    def add_mentions(self, mentions: Sequence[Mention]) -> None:
        latest = {(m.entity_id, m.source_id, m.kind): m for m in mentions}  # last of a batch
        with self._lock:
            for m in latest.values():
                if m.entity_id in self._graph:
                    self._mentions.setdefault(m.entity_id, {}).setdefault(m.source_id, m)

    def mentions(self, entity_ids: Sequence[str], limit: int) -> list[Mention]:
        with self._lock:
            found = [m for i in entity_ids for m in self._mentions.get(i, {}).values()]
        found.sort(key=lambda m: m.at, reverse=True)
        return found[:limit]

    def chunk_mentions(
        self, entity_ids: Sequence[str], per_entity: int | None = None
    ) -> dict[str, list[str]]:
        with self._lock:
            out = {
                i: [s for s, m in self._mentions.get(i, {}).items() if m.kind == 'chunk']
                for i in entity_ids
            }
        if per_entity is not None:
            out = {i: sources[-per_entity:][::-1] for i, sources in out.items()}
        return {i: sources for i, sources in out.items() if sources}

    def source_entities(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        wanted = set(source_ids)
        out: dict[str, list[str]] = {}
        with self._lock:
            for entity, by_source in self._mentions.items():
                for source in wanted & by_source.keys():
                    out.setdefault(source, []).append(entity)
        return {source: sorted(entities) for source, entities in out.items()}

    def forget_sources(self, source_ids: Sequence[str]) -> list[str]:
        gone = set(source_ids)
        named: list[str] = []
        with self._lock:
            for entity, by_source in self._mentions.items():
                hit = gone & by_source.keys()
                for sid in hit:
                    del by_source[sid]
                if hit:
                    named.append(entity)
        return named

    def purge(self, relation_ids: Sequence[str], entity_ids: Sequence[str]) -> None:
        with self._lock:
            for rid in [*relation_ids, *self._edge_keys(entity_ids)]:
                rel = self._relations.pop(rid, None)
                if rel is not None and self._graph.has_edge(rel.subject_id, rel.object_id, rid):
                    self._graph.remove_edge(rel.subject_id, rel.object_id, key=rid)
            for ident in entity_ids:
                if ident in self._graph:
                    self._graph.remove_node(ident)
                self._embeddings.pop(ident, None)
                self._mentions.pop(ident, None)

    def close(self) -> None:
        return None

    def _edge_keys(self, entity_ids: Sequence[str]) -> list[str]:
        keys: dict[str, None] = {}
        for ident in entity_ids:
            if ident not in self._graph:
                continue
            for _, _, key in self._graph.out_edges(ident, keys=True):
                keys[key] = None
            for _, _, key in self._graph.in_edges(ident, keys=True):
                keys[key] = None
        return list(keys)
