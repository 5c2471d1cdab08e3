"""What the graph channel adds to a search's ranking: its slot evidence.

For a question about one slot of a subject the graph knows ("Where does Dana work now?", "我住在
哪里？" from that user), the graph says which chunks state the value holding at the question's
time and which state values of that slot that do not hold then. Ranking puts the first above
every other candidate (LEAD_MARGIN over the best of them), multiplies the second by STALE_FACTOR,
and counts the graph's word as GRAPH_CONFIDENCE of relevance, so the relevance floor never drops
the answer the graph is sure of. When the graph is not sure (no slot, no subject it knows, no
fact of the slot) it says nothing and nothing moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from recall.models import MEMORIES
from recall.ports import GraphIndex
from recall.read.fusion import Fused
from recall.read.weights import GRAPH_CONFIDENCE, LEAD_MARGIN, STALE_FACTOR
from vectors.filtering import matches
from vectors.models import PointFilter, SlotEvidence
from vectors.ports import VectorStore


@dataclass(frozen=True, slots=True)
class GraphVerdict:
    """Per chunk id: the relevance the graph vouches for (holding chunks), and the stale ones."""

    sure: dict[str, float] = field(default_factory=dict)
    stale: frozenset[str] = frozenset()

    def lift(self, base: dict[str, float]) -> tuple[dict[str, float], dict[str, float]]:
        """Scores with the evidence applied, and the factor each moved score got."""
        if not self.sure and not self.stale:
            return base, {}
        out = dict(base)
        for ident in self.stale & out.keys():
            out[ident] *= STALE_FACTOR
        top = max((v for i, v in out.items() if i not in self.sure), default=0.0)
        for ident in self.sure.keys() & out.keys():
            # holding chunks keep their own order among themselves
            out[ident] = max(out[ident], top * LEAD_MARGIN * (1.0 + 1e-3 * out[ident]))
        moved = {i: out[i] / base[i] for i in out if base[i] > 0 and out[i] != base[i]}
        return out, moved


def slot_verdict(
    graph: GraphIndex,
    vectors: VectorStore,
    query: str,
    scopes: Sequence[str],
    user_id: str | None,
    flt: PointFilter,
    payloads: dict[str, dict[str, Any]],
    fused: list[Fused],
) -> GraphVerdict:
    """Ask the graph for its slot evidence and turn it into factors. Holding chunks that no text
    channel found are read and appended to `fused` (below every fused candidate) and their
    payloads to `payloads`; a superseded one only for a question about a time that has ended,
    when the value it states held."""
    evidence = graph.slot_evidence(query, scopes, user_id)
    if evidence is None:
        return GraphVerdict()
    readable = _past_filter(flt) if evidence.past else flt
    missing = [i for i in evidence.holding if i not in payloads]
    if missing:
        floor = min((f.score for f in fused), default=1.0)
        for point in vectors.retrieve(MEMORIES, missing):
            if matches(point.payload, readable):
                payloads[point.id] = point.payload
                fused.append(Fused(id=point.id, score=floor))
    return _factors(evidence, payloads)


def _factors(evidence: SlotEvidence, payloads: dict[str, dict[str, Any]]) -> GraphVerdict:
    sure = {i: GRAPH_CONFIDENCE for i in evidence.holding if i in payloads}
    return GraphVerdict(sure=sure, stale=frozenset(evidence.stale) - sure.keys())


def _past_filter(flt: PointFilter) -> PointFilter:
    wider = flt.model_copy(deep=True)
    wider.none_of.pop('superseded', None)
    return wider
