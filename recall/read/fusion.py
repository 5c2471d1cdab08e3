"""Pure fusion of per-channel ranked lists: reciprocal rank fusion and score-weighted merge."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

RRF_K = 60


class Fused(BaseModel):
    """One fused candidate: its fused score and its 1-based rank in each channel that found it."""

    id: str
    score: float
    ranks: dict[str, int] = Field(default_factory=dict)
    channel_scores: dict[str, float] = Field(default_factory=dict)


RankedList = Sequence[tuple[str, float]]


def rrf(
    lists: Mapping[str, RankedList],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Weighted reciprocal rank fusion: sum over channels of w / (k + rank); ties by id."""
    fused: dict[str, Fused] = {}
    for channel, ranked in lists.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        if weight <= 0:
            continue
        for rank, (ident, raw) in enumerate(ranked, start=1):
            item = fused.get(ident)
            if item is None:
                item = fused[ident] = Fused(id=ident, score=0.0)
            if channel in item.ranks:  # a channel listing an id twice counts its best rank only
                continue
            item.score += weight / (k + rank)
            item.ranks[channel] = rank
            item.channel_scores[channel] = raw
    return sorted(fused.values(), key=lambda f: (-f.score, f.id))


def weighted_merge(
    lists: Mapping[str, RankedList], *, weights: Mapping[str, float] | None = None
) -> list[Fused]:
    """Score-weighted merge: min-max normalise each channel's raw scores, then weighted sum."""
    fused: dict[str, Fused] = {}
    for channel, ranked in lists.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        if weight <= 0 or not ranked:
            continue
        scores = [s for _, s in ranked]
        low, high = min(scores), max(scores)
        span = high - low
        for rank, (ident, raw) in enumerate(ranked, start=1):
            item = fused.get(ident)
            if item is None:
                item = fused[ident] = Fused(id=ident, score=0.0)
            if channel in item.ranks:
                continue
            # a channel with one hit (or all equal scores) gives full credit to what it found
            norm = (raw - low) / span if span > 0 else 1.0
            item.score += weight * norm
            item.ranks[channel] = rank
            item.channel_scores[channel] = raw
    return sorted(fused.values(), key=lambda f: (-f.score, f.id))


class FusionConfig(BaseModel):
    """A fusion recipe: method, per-channel weights and the speaker boost.

    The defaults are chosen by leave-one-conversation-out cross-validation on the LoCoMo dev
    split through the plain client protocol (`python bench/locomo.py --protocol plain --cv`),
    never on the conversation they are scored on; the weights say how far each channel can be
    trusted relative to BM25, whose ranks are the most reliable on conversational memory.
    """

    method: Literal['rrf', 'weighted'] = 'rrf'
    weights: dict[str, float] = Field(
        default_factory=lambda: {'bm25': 1.0, 'dense': 0.5, 'context': 0.25, 'graph': 0.0}
    )
    speaker_boost: float = Field(default=0.1, ge=0.0)
    # a hit whose event time falls in a period the query names ("in May 2023", "last week")
    date_boost: float = Field(default=0.1, ge=0.0)
    # relevance floor on `confidence` when a request sets none; calibrated to drop almost no
    # gold hit on the dev split while an unrelated question finds nothing
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)

    def weight(self, channel: str) -> float:
        """A channel's weight; channels the recipe does not name (episodes) count fully."""
        base = channel.removeprefix('episodes_')
        return self.weights.get(base, 1.0)


DEFAULT_FUSION = FusionConfig()


def fuse(lists: Mapping[str, RankedList], method: str, weights: Mapping[str, float]) -> list[Fused]:
    """Fuse with the named method (`rrf` or `weighted`) and per-channel weights."""
    if method == 'weighted':
        return weighted_merge(lists, weights=weights)
    return rrf(lists, weights=weights)


# the graph channel's scores are entity weights damped by how many chunks mention the entity
# (kg.service.related_chunks): 1/log2(3) for an entity named once. A channel led by an entity
# the whole scope names (a chat's speaker) says little, whatever its ranks: it is silent below
# GRAPH_MIN_SCORE and weighs in proportion to its best score up to GRAPH_FULL_SCORE
GRAPH_FULL_SCORE = 1 / math.log2(3)
GRAPH_MIN_SCORE = 0.3


def graph_weight(weight: float, ranked: RankedList) -> float:
    """The fusion weight a graph list earns: 0 when its best score is unconvincing."""
    if not ranked or weight <= 0:
        return 0.0
    top = max(score for _, score in ranked)
    if top < GRAPH_MIN_SCORE:
        return 0.0
    return weight * min(1.0, top / GRAPH_FULL_SCORE)
