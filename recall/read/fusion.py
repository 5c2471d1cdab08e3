"""Pure fusion of per-channel ranked lists: reciprocal rank fusion and score-weighted merge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
