"""The graph's read path: `knowledge_graph_search`, the recall channel's related chunks, the
slot evidence recall ranks with, and the entity pages (one entity's history, a scope's list).

Seeds are the entities a query names: names and aliases (whole words, or for Chinese any run of
characters the graph knows as a name, so "张伟在哪里工作" finds 张伟), the asker's own entity
for a first-person question with a `user_id`, then fuzzy words, then (search only) embeddings.
A question about a slot ("where does Dana work", "我住在哪里") reads that subject's facts of the
slot: the one holding at the question's time (the date it names, else now) comes first.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime

from core.clock import Clock
from core.errors import NotFound
from kg import temporal
from kg.models import (
    Entity,
    EntityDetail,
    EntityOut,
    KGSearchRequest,
    KGSearchResponse,
    Relation,
)
from kg.ports import GraphStore
from kg.question import SYMMETRIC_SLOTS, Question, read_question
from kg.ranking import (
    connecting_paths,
    entity_out,
    fact_out,
    hop_distances,
    matching_entities,
    personalized_pagerank,
)
from kg.resolution import NameIndex, cjk_seeds, name_seeds
from vectors.models import ScoredPoint, SlotEvidence
from vectors.ports import Embedder

_SEED_FUZZY = 88.0
_CONFIDENT_SEED = 1.0  # exact name or alias matches seed the recall channel
_SEED_EMBED = 0.6  # cosine of a query to a name; only used when no name matched lexically
_MAX_SEEDS = 8
_RELATED_EDGES = 200
_RELATED_ENTITIES = 100  # past this, an entity adds latency but no longer moves a rank
_RELATED_PER_ENTITY = 256  # chunks read per entity: the graph stage stays flat in store size
_SEARCH_EDGES = 500


class GraphReads:
    """Reads of the temporal graph over the store and each scope's name index."""

    def __init__(
        self,
        store: GraphStore,
        index: Callable[[str], NameIndex],
        embedder: Embedder,
        clock: Clock,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._clock = clock

    def search(self, req: KGSearchRequest, scopes: list[str]) -> KGSearchResponse:
        """Seed by name/alias/fuzzy/embedding, traverse valid at `as_of` (the request's, else
        the time the question names, else now), rank by personalised PageRank from the seeds;
        entities, facts with validity windows, and connecting paths. A question about a slot
        puts its subject's facts of that slot first, the one holding then leading."""
        now = self._clock.now()
        question = read_question(req.query, now)
        when = req.as_of or question.as_of or now
        seeds = self._seeds(req.query, scopes, True, self._asker(question, req.user_id))
        if not seeds:
            return KGSearchResponse(as_of=when)
        rels = self._store.neighbourhood(list(seeds), req.hops, when, max_edges=_SEARCH_EDGES)
        import networkx as nx  # here, not at the top: ~0.2 s of every start (kg/ranking.py)

        graph = nx.Graph()
        graph.add_nodes_from(seeds)
        for rel in rels:
            w = rel.confidence + (
                graph[rel.subject_id][rel.object_id]['weight']
                if graph.has_edge(rel.subject_id, rel.object_id)
                else 0.0
            )
            graph.add_edge(rel.subject_id, rel.object_id, weight=w)
        ranks = personalized_pagerank(graph, seeds) if graph.number_of_edges() else dict(seeds)
        top = sorted(ranks, key=lambda i: -ranks[i])[: req.limit]
        entities = self.entities(top, scopes)
        top = [i for i in top if i in entities]
        chosen = set(top)
        facts = [r for r in rels if r.subject_id in chosen and r.object_id in chosen]
        facts.sort(key=lambda r: -(ranks.get(r.subject_id, 0) + ranks.get(r.object_id, 0)))
        facts = facts[: req.limit * 3]
        history = req.include_history or question.history or question.past
        lead = self._slot_facts(seeds, question, when, history)
        if req.include_history:
            lead += [
                r
                for r in temporal.history(self._store.relations_of(top))
                if r.expired_at is None and not temporal.valid_at(r, when)
            ][::-1]
        if lead:
            leading = {r.id for r in lead}
            facts = list({r.id: r for r in lead}.values()) + [
                r for r in facts if r.id not in leading
            ]
            ends = {e for r in facts for e in (r.subject_id, r.object_id)} - set(entities)
            entities.update(self.entities(sorted(ends), scopes))
        names = {i: e.name for i, e in entities.items()}
        return KGSearchResponse(
            entities=[entity_out(entities[i], ranks.get(i, 0.0), i in seeds) for i in top],
            facts=[fact_out(r, names, when) for r in facts],
            paths=connecting_paths(graph, rels, seeds, top, names, req.limit),
            as_of=when,
        )

    def related_chunks(
        self, query: str, scopes: Sequence[str], hops: int, limit: int
    ) -> list[ScoredPoint]:
        """Chunks that mention entities within `hops` of those named in `query`, best first."""
        # the channel speaks only for entities the query names outright (name or alias): a
        # fuzzy or embedding guess feeds recall noise that lowers it (bench/locomo.py --cv)
        seeds = self._confident(query, scopes, None)
        if not seeds:
            return []
        now = self._clock.now()
        rels = self._store.neighbourhood(list(seeds), max(1, hops), now, max_edges=_RELATED_EDGES)
        weight = dict(seeds)
        for ident, dist in hop_distances(seeds, rels).items():
            weight.setdefault(ident, 1.0 / (1.0 + dist))
        entities = self.entities(list(weight), scopes)
        for ident in weight:
            # an entity named in every chunk (the speaker of a chat) says little about any one
            # of them: damp by how many chunks mention it, as IDF does for words
            count = entities[ident].mention_count if ident in entities else 1
            weight[ident] /= math.log2(2 + count)
        ranked = sorted(weight, key=lambda i: -weight[i])[:_RELATED_ENTITIES]
        scores: dict[str, float] = defaultdict(float)
        # capped fan-out: an entity every chunk names would make this grow with the store
        mentions = self._store.chunk_mentions(ranked, per_entity=_RELATED_PER_ENTITY)
        for ident, chunks in mentions.items():
            for chunk in chunks:
                scores[chunk] += weight[ident]
        best = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [ScoredPoint(id=cid, score=score) for cid, score in best]

    def slot_evidence(
        self, query: str, scopes: Sequence[str], user_id: str | None
    ) -> SlotEvidence | None:
        """For a question about a slot of a subject the query names outright (or the asker,
        given `user_id`): the chunks stating the value holding at the question's time, and
        those stating values of the slot that do not hold then. None when the query names no
        slot or no such subject, or the graph holds no fact of it: the graph stays silent."""
        now = self._clock.now()
        question = read_question(query, now)
        if question.slot is None:
            return None
        # the subject the question names, not every name in it ("Where does Dana work, Tim?")
        seeds = self._confident(question.subject or query, scopes, self._asker(question, user_id))
        if not seeds:
            return None
        when = question.as_of or now
        holding: list[str] = []
        stale: list[str] = []
        for rel in self._slot_facts(seeds, question, when, history=True):
            if rel.source_chunk is None:
                continue
            (holding if temporal.valid_at(rel, when) else stale).append(rel.source_chunk)
        if not holding:
            return None
        holding = list(dict.fromkeys(holding))
        stale = [c for c in dict.fromkeys(stale) if c not in holding]
        return SlotEvidence(holding=holding, stale=stale, past=question.past)

    def entities(self, ids: Sequence[str], scopes: Sequence[str]) -> dict[str, Entity]:
        """The live entities of these ids that belong to `scopes`, by id."""
        out: dict[str, Entity] = {}
        missing = []
        for ident in ids:
            for scope in scopes:
                entity = self._index(scope).entities.get(ident)
                if entity is not None:
                    out[ident] = entity
                    break
            else:
                missing.append(ident)
        for entity in self._store.get_entities(missing):
            if entity.scope in scopes:
                out[entity.id] = entity
        return out

    def entity_detail(self, entity_id: str, scopes: Sequence[str]) -> EntityDetail:
        """An entity with its aliases, facts valid now and full fact history; NotFound if unseen."""
        found = self._store.get_entities([entity_id])
        if not found or found[0].scope not in scopes:
            raise NotFound('entity', entity_id)
        entity = found[0]
        index = self._index(entity.scope)
        live_id = index.live(entity.id)
        if live_id != entity.id:
            entity = (self._store.get_entities([live_id]) or [entity])[0]
        rels = self._store.relations_of([entity.id])
        others = {r.subject_id for r in rels} | {r.object_id for r in rels}
        names = {e.id: e.name for e in self._store.get_entities(sorted(others))}
        names[entity.id] = entity.name
        now = self._clock.now()
        history = temporal.history(rels)
        return EntityDetail(
            entity=entity_out(entity, 0.0, False),
            current=[fact_out(r, names, now) for r in history if temporal.valid_at(r, now)],
            history=[fact_out(r, names, now) for r in history],
            merged_from=sorted(k for k, v in index.redirect.items() if v == entity.id),
        )

    def find_entities(self, scope: str, q: str | None, limit: int) -> tuple[list[EntityOut], int]:
        """Live entities of `scope` whose name or an alias contains `q`, most mentioned first;
        the page and the number that matched."""
        found = matching_entities(self._store.list_entities(scope), q)
        return [entity_out(e, 0.0, False) for e in found[:limit]], len(found)

    # ---- internals -------------------------------------------------------------------------

    @staticmethod
    def _asker(question: Question, user_id: str | None) -> str | None:
        # "I"/"my"/我 in a question stand for the caller's user, whose turns named them so
        return user_id if question.first_person else None

    def _slot_facts(
        self, seeds: dict[str, float], question: Question, when: datetime, history: bool
    ) -> list[Relation]:
        """The confident seeds' facts of the question's slot: those holding at `when` first
        (latest start first), then, with `history`, the others (latest first)."""
        if question.slot is None:
            return []
        subjects = {s for s, v in seeds.items() if v >= _CONFIDENT_SEED}
        if not subjects:
            return []
        both_ends = question.slot in SYMMETRIC_SLOTS
        found = [
            r
            for r in self._store.relations_of(sorted(subjects))
            if r.predicate in question.predicates
            and r.expired_at is None
            and (r.subject_id in subjects or (both_ends and r.object_id in subjects))
        ]
        found = list({r.id: r for r in found}.values())
        found.sort(key=lambda r: (temporal.start_of(r), r.id), reverse=True)
        holding = [r for r in found if temporal.valid_at(r, when)]
        rest = [r for r in found if not temporal.valid_at(r, when)] if history else []
        return holding + rest

    def _confident(self, query: str, scopes: Sequence[str], asker: str | None) -> dict[str, float]:
        return {
            k: v
            for k, v in self._seeds(query, scopes, False, asker).items()
            if v >= _CONFIDENT_SEED
        }

    def _seeds(
        self, query: str, scopes: Sequence[str], use_embeddings: bool, asker: str | None
    ) -> dict[str, float]:
        indexes = [self._index(s) for s in scopes]
        if not any(ix.entities for ix in indexes):
            return {}
        seeds = name_seeds(query, indexes, _SEED_FUZZY)
        for ident, score in cjk_seeds(query, indexes).items():
            seeds[ident] = max(seeds.get(ident, 0.0), score)
        if asker is not None:
            for index in indexes:
                found = index.exact(asker)
                if found is not None:
                    seeds[found] = _CONFIDENT_SEED
        if not seeds and use_embeddings:
            vector = self._embedder.embed_query(query)
            for index in indexes:
                for found, sim in index.nearest(vector, _SEED_EMBED, limit=3):
                    seeds[found] = max(seeds.get(found, 0.0), sim * 0.5)
        best = sorted(seeds.items(), key=lambda kv: -kv[1])[:_MAX_SEEDS]
        return dict(best)
