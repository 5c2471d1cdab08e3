"""Tier decay: the Weibull composite, tier transitions and the rerank of fused hits.

Pure functions over `Chunk` and a `now`; no store, no clock. The maths:

    half_life = 30 d * min(exp(1.5 * importance), 10)       important memories fade slower
    recency   = exp(-ln 2 / half_life * age_days ** beta)   beta 0.8 core, 1.0 working, 1.3 periph.
    frequency = 1 - exp(-access_count / 5)
    composite = 0.4 * recency + 0.3 * frequency + 0.3 * importance
    relevance = clamp(composite, tier floor, 1)             floors 0.9 / 0.3 / 0.1
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from core.clock import EARLIEST, LATEST, to_epoch
from recall.models import Chunk
from recall.tiers import Tier

BASE_HALF_LIFE_DAYS = 30.0
MAX_HALF_LIFE_FACTOR = 10.0
HALF_LIFE_IMPORTANCE_RATE = 1.5
FREQUENCY_SCALE = 5.0
W_RECENCY, W_FREQUENCY, W_IMPORTANCE = 0.4, 0.3, 0.3
BETA: Mapping[Tier, float] = {Tier.CORE: 0.8, Tier.WORKING: 1.0, Tier.PERIPHERAL: 1.3}
FLOOR: Mapping[Tier, float] = {Tier.CORE: 0.9, Tier.WORKING: 0.3, Tier.PERIPHERAL: 0.1}
_DAY = 86_400.0


class DecayComponents(BaseModel):
    """The parts of a memory's live priority at one instant."""

    model_config = ConfigDict(frozen=True)

    age_days: float = Field(description='days since last recall (or creation), >= 0')
    half_life_days: float
    beta: float
    recency: float
    frequency: float
    importance: float
    composite: float = Field(description='weighted sum before the tier floor')
    floor: float
    relevance: float = Field(description='composite clamped to [floor, 1]')


class TierThresholds(BaseModel):
    """Promotion/demotion thresholds of the tiers."""

    model_config = ConfigDict(frozen=True)

    # promote to core by any one of three paths: many recalls, high importance, or some of both
    core_access_only: int = Field(default=10, ge=1, description='access_count alone')
    core_importance_only: float = Field(default=0.9, ge=0, le=1, description='importance alone')
    core_both_access: int = Field(default=5, ge=1)
    core_both_importance: float = Field(default=0.7, ge=0, le=1)
    # demote to peripheral
    demote_relevance: float = Field(default=0.15, ge=0, le=1)
    demote_age_days: float = Field(default=60.0, ge=0)
    demote_max_access: int = Field(default=3, ge=0, description='demote by age only below this')
    # revive peripheral -> working
    revive_access: int = Field(default=3, ge=0)
    revive_relevance: float = Field(default=0.4, ge=0, le=1)


DEFAULT_THRESHOLDS = TierThresholds()


class TierTransition(BaseModel):
    """The tier a memory should be in, and the rule that put it there."""

    model_config = ConfigDict(frozen=True)

    tier: Tier
    changed: bool
    reason: str


def half_life_days(importance: float) -> float:
    """Importance-scaled half-life: 30 days * min(exp(1.5 * importance), 10)."""
    factor = min(math.exp(HALF_LIFE_IMPORTANCE_RATE * importance), MAX_HALF_LIFE_FACTOR)
    return BASE_HALF_LIFE_DAYS * factor


def recency(age_days: float, importance: float, tier: Tier) -> float:
    """Stretched-exponential recency exp(-ln2 / half_life * age^beta), in (0, 1]."""
    beta = BETA[tier]
    return math.exp(-math.log(2) / half_life_days(importance) * max(age_days, 0.0) ** beta)


def frequency(access_count: int) -> float:
    """Saturating frequency 1 - exp(-access / 5): 5 recalls give 0.63, 15 give 0.95."""
    return 1.0 - math.exp(-max(access_count, 0) / FREQUENCY_SCALE)


class Vitals(NamedTuple):
    """What decay reads of a memory, its instants as epoch seconds (as its payload keeps them)."""

    created: float
    accessed: float | None
    pinned: bool
    importance: float
    tier: Tier
    access_count: int


def vitals(chunk: Chunk) -> Vitals:
    """The decay inputs of `chunk`."""
    accessed = chunk.accessed_at
    return Vitals(
        created=to_epoch(chunk.created_at),
        accessed=None if accessed is None else to_epoch(accessed),
        pinned=chunk.pinned,
        importance=chunk.importance,
        tier=chunk.tier,
        access_count=chunk.access_count,
    )


_TIERS = {t.value: t for t in Tier}


# an instant a Chunk reads back as a datetime (core.clock storable): NaN, infinities and epochs
# past year 9999 make Chunk.from_payload fail, so they are left to it
_FIRST, _LAST = to_epoch(EARLIEST), to_epoch(LATEST)


def _number(value: Any) -> bool:
    return type(value) is float or type(value) is int


def _instant(value: Any) -> bool:
    return _number(value) and _FIRST <= value <= _LAST


def payload_vitals(payload: Mapping[str, Any]) -> Vitals | None:
    """The decay inputs of a stored memory read off its payload, without building its Chunk
    (~15 us of validation, for each of the ~30 candidates a search ranks); None when the payload
    does not hold them as `Chunk.to_payload` writes them (the caller then builds the Chunk, which
    validates or refuses them). Absent keys take the Chunk's defaults."""
    created: Any = payload.get('created_at')
    accessed = payload.get('accessed_at')
    importance, count = payload.get('importance', 0.5), payload.get('access_count', 0)
    pinned, named = payload.get('pinned', False), payload.get('tier', 'working')
    tier = _TIERS.get(named) if type(named) is str else None
    if (
        not _instant(created)
        or not (accessed is None or _instant(accessed))
        or not (_number(importance) and 0.0 <= importance <= 1.0)
        or type(count) is not int
        or type(pinned) is not bool
        or tier is None
    ):
        return None
    return Vitals(float(created), accessed, pinned, float(importance), tier, count)


def _parts(v: Vitals, now: float) -> tuple[float, float, float, float]:
    """Age in days, recency, frequency and the unclamped composite of a memory at `now`
    (epoch seconds)."""
    # recency runs from the last recall: a memory that keeps being used stays fresh
    last = v.created if v.accessed is None else max(v.accessed, v.created)
    age = max(0.0, (now - last) / _DAY)
    # a pin is the user saying "keep this": pinned memories never decay
    rec = 1.0 if v.pinned else recency(age, v.importance, v.tier)
    freq = frequency(v.access_count)
    composite = W_RECENCY * rec + W_FREQUENCY * freq + W_IMPORTANCE * v.importance
    return age, rec, freq, composite


def components(chunk: Chunk, now: datetime) -> DecayComponents:
    """Every part of the decay composite of `chunk` at `now`."""
    age, rec, freq, composite = _parts(vitals(chunk), to_epoch(now))
    floor = FLOOR[chunk.tier]
    return DecayComponents(
        age_days=age,
        half_life_days=half_life_days(chunk.importance),
        beta=BETA[chunk.tier],
        recency=rec,
        frequency=freq,
        importance=chunk.importance,
        composite=composite,
        floor=floor,
        relevance=min(1.0, max(floor, composite)),
    )


def relevance(chunk: Chunk | Vitals, now: datetime | float) -> float:
    """The decay composite of a memory (its Chunk or its `Vitals`) at `now` (a datetime or
    epoch seconds), clamped to its tier's [floor, 1]."""
    # without the DecayComponents model: a search asks this of every hit it ranks
    v = chunk if isinstance(chunk, Vitals) else vitals(chunk)
    at = now if isinstance(now, float | int) else to_epoch(now)
    return min(1.0, max(FLOOR[v.tier], _parts(v, at)[3]))


def _promotes_to_core(v: Vitals, t: TierThresholds) -> str | None:
    if v.access_count >= t.core_access_only:
        return 'promote:access'
    if v.importance >= t.core_importance_only:
        return 'promote:importance'
    if v.access_count >= t.core_both_access and v.importance >= t.core_both_importance:
        return 'promote:access+importance'
    return None


def tier_transition(
    chunk: Chunk | Vitals, now: datetime | float, thresholds: TierThresholds = DEFAULT_THRESHOLDS
) -> TierTransition:
    """The tier a memory (its Chunk or its `Vitals`) belongs in at `now` (a datetime or epoch
    seconds): pinned, promotion to core, revival, demotion by relevance or by age without
    recalls, with the rule that decided."""
    t = thresholds
    v = chunk if isinstance(chunk, Vitals) else vitals(chunk)
    at = now if isinstance(now, float | int) else to_epoch(now)

    def to(tier: Tier, reason: str) -> TierTransition:
        return TierTransition(tier=tier, changed=tier != v.tier, reason=reason)

    if v.pinned:
        return to(Tier.CORE, 'pinned')
    promoted = _promotes_to_core(v, t)
    if promoted is not None:
        return to(Tier.CORE, promoted)
    if v.tier == Tier.CORE:
        return to(Tier.CORE, 'core:never_demoted')  # core is identity-level: it never decays away
    composite = _parts(v, at)[3]
    if v.tier == Tier.PERIPHERAL:
        clamped = min(1.0, max(FLOOR[v.tier], composite))
        if v.access_count >= t.revive_access and clamped >= t.revive_relevance:
            return to(Tier.WORKING, 'revive:access+relevance')
        return to(Tier.PERIPHERAL, 'stay')
    # The clamped relevance of a working memory never drops below its floor (0.3), which would
    # make the "< 0.15" rule dead; the unclamped composite is what that rule can actually see.
    if composite < t.demote_relevance:
        return to(Tier.PERIPHERAL, 'demote:relevance')
    age = max(0.0, (at - v.created) / _DAY)  # age for demotion is since creation, not recall
    if age > t.demote_age_days and v.access_count < t.demote_max_access:
        return to(Tier.PERIPHERAL, 'demote:age')
    return to(Tier.WORKING, 'stay')


def next_tier(
    chunk: Chunk | Vitals, now: datetime | float, thresholds: TierThresholds = DEFAULT_THRESHOLDS
) -> Tier:
    """The tier a memory belongs in at `now`: pinned -> core, promotions, demotions, revival."""
    return tier_transition(chunk, now, thresholds).tier


# ---- rerank of fused recall results ---------------------------------------------------------


class RerankWeights(BaseModel):
    """How far decay, importance and pinning may move a fused score (see `rerank`)."""

    model_config = ConfigDict(frozen=True)

    relevance: float = Field(default=0.10, ge=0)
    importance: float = Field(default=0.05, ge=0)
    pinned: float = Field(default=0.025, ge=0)


DEFAULT_RERANK = RerankWeights()


class Reranked(BaseModel):
    """One reranked hit: final score and the components that produced it."""

    id: str
    score: float
    components: dict[str, float]


def multiplier(
    chunk: Chunk | Vitals,
    now: datetime | float,
    weights: RerankWeights = DEFAULT_RERANK,
    *,
    rel: float | None = None,
) -> float:
    """1 + w_r (relevance - 0.5) + w_i (importance - 0.5) + w_p [pinned]; in [0.935, 1.1].
    `rel`: the memory's `relevance` at `now`, when the caller has it already."""
    rel = relevance(chunk, now) if rel is None else rel
    pin = weights.pinned if chunk.pinned else 0.0
    lift = weights.relevance * (rel - 0.5) + weights.importance * (chunk.importance - 0.5)
    return 1.0 + lift + pin


def rerank(
    fused: Sequence[tuple[str, float]],
    chunks: Mapping[str, Chunk],
    now: datetime,
    weights: RerankWeights = DEFAULT_RERANK,
) -> list[Reranked]:
    """Scale each fused score by the decay multiplier; sorted by final score, then id.

    final = fused * (1 + 0.10 (relevance - 0.5) + 0.05 (importance - 0.5) + 0.025 [pinned])

    Multiplying keeps the fused order dominant: with the default weights the multiplier lies in
    [0.935, 1.1], so a hit can only overtake one whose fused score is less than ~18 % higher
    (1.1 / 0.935). In RRF terms that reorders near-ties inside a channel, never a hit both
    channels found below one only a single channel found. Ids without a chunk keep their fused
    score (multiplier 1) rather than vanish: dropping hits is the caller's filter's job.
    """
    out: list[Reranked] = []
    for ident, score in fused:
        chunk = chunks.get(ident)
        if chunk is None:
            out.append(Reranked(id=ident, score=score, components={'fused': score}))
            continue
        parts = components(chunk, now)
        factor = multiplier(chunk, now, weights)
        out.append(
            Reranked(
                id=ident,
                score=score * factor,
                components={
                    'fused': score,
                    'recency': parts.recency,
                    'frequency': parts.frequency,
                    'importance': parts.importance,
                    'relevance': parts.relevance,
                    'pinned': 1.0 if chunk.pinned else 0.0,
                    'decay_multiplier': factor,
                },
            )
        )
    return sorted(out, key=lambda r: (-r.score, r.id))
