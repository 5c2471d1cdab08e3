"""Ranking of a graph search, pure functions: personalized PageRank from the seed entities, hop
distances, and the entities, facts and paths of the response."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from kg import temporal
from kg.models import (
    Entity,
    EntityOut,
    FactOut,
    PathOut,
    Relation,
)

if TYPE_CHECKING:
    # imported where a search walks the graph: networkx is ~0.2 s of every start otherwise
    import networkx as nx


def personalized_pagerank(
    graph: nx.Graph, seeds: dict[str, float], alpha: float = 0.85, iterations: int = 50
) -> dict[str, float]:
    """PageRank restarting at the seeds (numpy power iteration: nx.pagerank needs scipy)."""
    import networkx as nx

    nodes = list(graph.nodes)
    matrix = nx.to_numpy_array(graph, nodelist=nodes, weight='weight')
    out_weight = matrix.sum(axis=1)
    out_weight[out_weight == 0] = 1.0
    transition = (matrix / out_weight[:, None]).T
    restart = np.array([seeds.get(n, 0.0) for n in nodes])
    restart = restart / restart.sum()
    rank = restart.copy()
    for _ in range(iterations):
        nxt = alpha * (transition @ rank) + (1 - alpha) * restart
        # dangling mass (isolated seeds) returns to the seeds instead of leaking
        nxt += (1.0 - nxt.sum()) * restart
        if np.abs(nxt - rank).sum() < 1e-8:
            rank = nxt
            break
        rank = nxt
    return {n: float(r) for n, r in zip(nodes, rank, strict=True)}


def hop_distances(seeds: dict[str, float], rels: Sequence[Relation]) -> dict[str, int]:
    adj: dict[str, set[str]] = defaultdict(set)
    for rel in rels:
        adj[rel.subject_id].add(rel.object_id)
        adj[rel.object_id].add(rel.subject_id)
    dist = dict.fromkeys(seeds, 0)
    frontier = list(seeds)
    while frontier:
        nxt = []
        for node in frontier:
            for other in adj[node]:
                if other not in dist:
                    dist[other] = dist[node] + 1
                    nxt.append(other)
        frontier = nxt
    return dist


def entity_out(entity: Entity, score: float, seed: bool) -> EntityOut:
    return EntityOut(
        id=entity.id,
        name=entity.name,
        type=entity.type,
        aliases=entity.aliases,
        summary=entity.summary,
        mention_count=entity.mention_count,
        attributes=entity.attributes,
        score=round(score, 6),
        seed=seed,
    )


def fact_out(rel: Relation, names: dict[str, str], when: datetime) -> FactOut:
    return FactOut(
        id=rel.id,
        subject_id=rel.subject_id,
        subject=names.get(rel.subject_id, rel.subject_id),
        predicate=rel.predicate,
        object_id=rel.object_id,
        object=names.get(rel.object_id, rel.object_id),
        fact=rel.fact,
        valid_from=rel.valid_from,
        valid_to=rel.valid_to,
        recorded_at=rel.recorded_at,
        expired_at=rel.expired_at,
        confidence=rel.confidence,
        source_chunk=rel.source_chunk,
        source_episode=rel.source_episode,
        current=temporal.valid_at(rel, when),
    )


def connecting_paths(
    graph: nx.Graph,
    rels: Sequence[Relation],
    seeds: dict[str, float],
    top: Sequence[str],
    names: dict[str, str],
    limit: int,
) -> list[PathOut]:
    if not graph.number_of_edges():
        return []
    edge: dict[frozenset[str], Relation] = {}
    for rel in sorted(rels, key=lambda r: -r.confidence):
        edge.setdefault(frozenset((rel.subject_id, rel.object_id)), rel)
    import networkx as nx

    sources = [s for s in seeds if s in graph]
    _, routes = nx.multi_source_dijkstra(graph, sources) if sources else ({}, {})
    out = []
    for target in top:
        route = routes.get(target)
        if route is None or len(route) < 2:
            continue
        steps = [edge[frozenset(pair)] for pair in zip(route, route[1:], strict=False)]
        text = names.get(route[0], route[0])
        for node, rel in zip(route[1:], steps, strict=True):
            arrow = f' -{rel.predicate}-> ' if rel.object_id == node else f' <-{rel.predicate}- '
            text += arrow + names.get(node, node)
        out.append(PathOut(entity_ids=list(route), fact_ids=[r.id for r in steps], text=text))
        if len(out) >= limit:
            break
    return out


def matching_entities(entities: Iterable[Entity], q: str | None) -> list[Entity]:
    """Live (unmerged) entities whose name or an alias contains `q` (any case), most mentioned
    first, then by name."""
    needle = q.casefold() if q else None
    found = [
        e
        for e in entities
        if e.merged_into is None
        and (
            needle is None
            or needle in e.name.casefold()
            or any(needle in a.casefold() for a in e.aliases)
        )
    ]
    found.sort(key=lambda e: (-e.mention_count, e.name.casefold(), e.id))
    return found


def survivor(a: Entity, b: Entity) -> tuple[Entity, Entity]:
    """Of two duplicates, (kept, merged away): more mentions win, then the older entity."""
    if (b.mention_count, -b.created_at.timestamp()) > (a.mention_count, -a.created_at.timestamp()):
        return b, a
    return a, b
