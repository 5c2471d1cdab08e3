"""Pure fusion of per-channel ranked lists: reciprocal rank fusion, score-weighted merge, and a
learned (logistic) fusion over channel features fitted by cross-validation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, Field, field_validator

from recall.read.weights import GRAPH_FULL_SCORE, GRAPH_MIN_SCORE, RRF_K


# a slotted dataclass, not a model: ~150 are built per search from values that are valid
# already, and even model_construct costs a visible part of a search over a large store
@dataclass(frozen=True, slots=True)
class Fused:
    """One fused candidate: its fused score and its 1-based rank in each channel that found it."""

    id: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    channel_scores: dict[str, float] = field(default_factory=dict)


RankedList = Sequence[tuple[str, float]]


def rrf(
    lists: Mapping[str, RankedList],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Weighted reciprocal rank fusion: sum over channels of w / (k + rank); ties by id."""

    def credits(ranked: RankedList, weight: float) -> list[float]:
        return [weight / (k + rank) for rank in range(1, len(ranked) + 1)]

    return _combine(lists, weights, credits)


def weighted_merge(
    lists: Mapping[str, RankedList], *, weights: Mapping[str, float] | None = None
) -> list[Fused]:
    """Score-weighted merge: min-max normalise each channel's raw scores, then weighted sum."""

    def credits(ranked: RankedList, weight: float) -> list[float]:
        values = [s for _, s in ranked]
        low, high = min(values), max(values)
        span = high - low
        # a channel with one hit (or all equal scores) gives full credit to what it found
        return [weight * ((raw - low) / span if span > 0 else 1.0) for raw in values]

    return _combine(lists, weights, credits)


def _combine(
    lists: Mapping[str, RankedList],
    weights: Mapping[str, float] | None,
    credits: Callable[[RankedList, float], list[float]],
) -> list[Fused]:
    """Sum each id's weighted credit over the channels, best first, ties by id; a channel
    listing an id twice counts its best rank only."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    raws: dict[str, dict[str, float]] = {}
    for channel, ranked in lists.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        if weight <= 0 or not ranked:
            continue
        for rank, ((ident, raw), credit) in enumerate(
            zip(ranked, credits(ranked, weight), strict=True), start=1
        ):
            seen = ranks.get(ident)
            if seen is None:
                seen = ranks[ident] = {}
                scores[ident] = 0.0
                raws[ident] = {}
            elif channel in seen:
                continue
            scores[ident] += credit
            seen[channel] = rank
            raws[ident][channel] = raw
    return [
        Fused(id=i, score=scores[i], ranks=ranks[i], channel_scores=raws[i])
        for i in sorted(scores, key=lambda i: (-scores[i], i))
    ]


class FusionConfig(BaseModel):
    """A fusion recipe: method, per-channel weights, boosts and the relevance floor.

    The default method, `learned`, ranks with the logistic model in
    recall/assets/fusion_model.json, fitted on every kind of the kinds suite (dialogue turns,
    notes, summaries, memory banks, documents, Chinese; `python bench/kinds_fit.py`) and scored
    leave-one-kind-out. The weights and boosts serve `rrf` and `weighted`: chosen by
    leave-one-conversation-out cross-validation on the LoCoMo dev split through the plain client
    protocol (`python bench/locomo.py --protocol plain --cv`); the `context` weight also says
    whether the context channel is read at all.
    """

    method: Literal['learned', 'rrf', 'weighted'] = 'learned'
    weights: dict[str, float] = Field(
        default_factory=lambda: {'bm25': 1.0, 'dense': 0.75, 'context': 1.0, 'graph': 0.0}
    )
    # the graph's slot evidence (recall.read.evidence): for a question asking the value of one
    # slot of a subject the graph knows, the chunk stating the value holding at the question's
    # time leads and those stating values that no longer hold sink; silent otherwise, so it
    # costs other questions nothing and is on; `graph: false` turns it off
    slot_evidence: bool = True
    speaker_boost: float = Field(default=0.5, ge=0.0)
    # a hit whose event time falls in a period the query names ("in May 2023", "last week")
    date_boost: float = Field(default=0.5, ge=0.0)
    # relevance floor on `confidence` when a request sets none: low enough to keep a paraphrase
    # that shares few words (or, in Chinese, few characters) with the question, high enough
    # that an unrelated question finds nothing
    min_score: float = Field(default=0.3, ge=0.0, le=1.0)

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


def graph_weight(weight: float, ranked: RankedList) -> float:
    """The fusion weight a graph list earns: 0 when its best score is unconvincing."""
    if not ranked or weight <= 0:
        return 0.0
    top = max(score for _, score in ranked)
    if top < GRAPH_MIN_SCORE:
        return 0.0
    return weight * min(1.0, top / GRAPH_FULL_SCORE)


# ---- learned fusion: a logistic model over channel features ----------------------------------

FEATURES: tuple[str, ...] = (
    'bm25_rrf',
    'dense_rrf',
    'context_rrf',
    'bm25_norm',
    'dense_norm',
    'context_norm',
    'dense_cosine',
    'speaker_named',
    'date_match',
    'confidence',
)
LEARNED_CHANNELS = ('bm25', 'dense', 'context')
MODEL_PATH = Path(__file__).resolve().parents[1] / 'assets' / 'fusion_model.json'


class ScriptCorrection(BaseModel):
    """Weights added to the base model's logit over the same standardised FEATURES, for the
    candidates where the base model's evidence weighs differently (LinearModel `cjk`, `prose`).
    Fitted with the base logit held fixed (bench/kinds_fit.py), so every other candidate ranks
    exactly as before.
    """

    weights: list[float]
    bias: float
    fitted_on: str = ''


class LinearModel(BaseModel):
    """Logistic relevance model over FEATURES; standardised inputs, fitted by bench/locomo.py."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    fitted_on: str = ''
    # Platt scaling (slope, intercept) of the logit onto the chance that a hit is relevant,
    # fitted with every kind of memory weighing the same, so that the same score means the same
    # on dialogue, notes, profile fields and documents. A dialogue turn's logit leans on signals
    # only turns have (the question names its speaker, its neighbours lend context), so turns
    # get a mapping of their own (`turn_calibration`; None: the same as other memories). Both
    # slopes are positive: among turns, and among other memories, the order is the logit's
    calibration: tuple[float, float] = (1.0, 0.0)
    turn_calibration: tuple[float, float] | None = None
    # added to the logit of every candidate of a query written mostly in Chinese
    # (recall.read.slots `is_cjk`; None: none). The base model is fitted on English dialogue,
    # where the dense model reads the question; on a Chinese question the default embedder
    # (MiniLM, trained on English) finds the answer about half as often as BM25 (kinds suite,
    # dense alone R@5 0.42-0.50 against 0.87-0.93); for the same reason a Chinese candidate's
    # `confidence` is its coverage alone (recall.read.ranking Signals.full)
    cjk: ScriptCorrection | None = None
    # added to the logit of every candidate that is not a dialogue turn, for a query not in
    # Chinese (None: none). The base model learned from dialogue turns, found mostly by the
    # speaker's name and their neighbours; a note, summary, profile field or document is found
    # by its words and meaning, where a close cosine is evidence (on turns it mostly echoes the
    # name). Fitted on notes, summaries and memory banks, leave one kind out
    prose: ScriptCorrection | None = None

    @field_validator('cjk', 'prose')
    @classmethod
    def _one_weight_per_feature(cls, value: ScriptCorrection | None) -> ScriptCorrection | None:
        if value is not None and len(value.weights) != len(FEATURES):
            raise ValueError(f'a correction needs one weight per feature ({FEATURES})')
        return value

    @field_validator('calibration', 'turn_calibration')
    @classmethod
    def _order_kept(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        if value is not None and not value[0] > 0:
            raise ValueError('the calibration slope must be positive (it keeps the order)')
        return value


class ChannelColumns(NamedTuple):
    """One channel's list laid over candidate rows (0 where the channel did not find a row)."""

    rank: np.ndarray  # 1-based rank
    norm: np.ndarray  # min-max normalised score (1 when every score is equal)
    raw: np.ndarray  # the channel's own score
    found: np.ndarray  # bool


def channel_columns(at: Mapping[str, int], ranked: RankedList) -> ChannelColumns:
    """A channel's ranks and scores per row of `at` (id -> row), each id at its best rank
    only, as `rrf` and `weighted_merge` count it; ids without a row are left out."""
    size = len(at)
    rank, norm, raw, found = np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size, bool)
    scores = [s for _, s in ranked]
    low, high = (min(scores), max(scores)) if scores else (0.0, 0.0)
    for position, (ident, score) in enumerate(ranked, start=1):
        n = at.get(ident)
        if n is None or found[n]:
            continue
        found[n] = True
        rank[n] = position
        norm[n] = (score - low) / (high - low) if high > low else 1.0
        raw[n] = score
    return ChannelColumns(rank, norm, raw, found)


def feature_matrix(
    ids: Sequence[str],
    lists: Mapping[str, RankedList],
    extras: Mapping[str, Mapping[str, float]],
    *,
    k: int = RRF_K,
) -> np.ndarray:
    """One row of FEATURES per id: each channel's reciprocal rank (scaled so rank 1 is ~1) and
    min-max score, the raw cosine, and the per-hit signals (speaker named, date, confidence)."""
    at = {ident: n for n, ident in enumerate(ids)}
    out = np.zeros((len(ids), len(FEATURES)))
    for c, channel in enumerate(LEARNED_CHANNELS):
        ranked = lists.get(channel) or []
        if not ranked:
            continue
        column = channel_columns(at, ranked)
        out[column.found, c] = k / (k + column.rank[column.found])
        out[:, 3 + c] = column.norm
        if channel == 'dense':
            out[:, 6] = column.raw
    if ids:  # the signals' three columns in one assignment, not three per row
        none: Mapping[str, float] = {}
        rows = (extras.get(ident, none) for ident in ids)
        out[:, 7:10] = [
            [e.get('speaker_named', 0.0), e.get('date_match', 0.0), e.get('confidence', 0.0)]
            for e in rows
        ]
    return out


def learned_logits(
    model: LinearModel, matrix: np.ndarray, cjk: bool = False, turns: np.ndarray | None = None
) -> np.ndarray:
    """The logistic model's logit of each row (monotone in its probability); `cjk`: the rows
    answer a Chinese query, which adds the model's Chinese correction; otherwise the rows that
    `turns` does not flag as dialogue turns (None: no row is one) get its prose correction."""
    z = (matrix - np.asarray(model.mean)) / np.asarray(model.scale)
    weights = np.asarray(model.weights)
    bias = model.bias
    if cjk and model.cjk is not None:
        weights = weights + np.asarray(model.cjk.weights)
        bias += model.cjk.bias
    logit: np.ndarray = z @ weights + bias
    if not cjk and model.prose is not None:
        prose = np.ones(len(logit), bool) if turns is None else np.asarray(turns) <= 0
        logit[prose] += z[prose] @ np.asarray(model.prose.weights) + model.prose.bias
    return logit


def calibrated(model: LinearModel, logits: np.ndarray, turns: np.ndarray | None) -> np.ndarray:
    """The chance of relevance of each logit: turns (`turns` > 0) by the model's turn
    calibration, other memories by its calibration."""
    slope = np.full(len(logits), model.calibration[0])
    intercept = np.full(len(logits), model.calibration[1])
    if model.turn_calibration is not None and turns is not None:
        dialogue = np.asarray(turns) > 0
        slope[dialogue], intercept[dialogue] = model.turn_calibration
    return np.asarray(1.0 / (1.0 + np.exp(-(slope * logits + intercept))))


def turn_flags(ids: Sequence[str], extras: Mapping[str, Mapping[str, float]]) -> np.ndarray:
    """1 for each id whose signals say it is a dialogue turn, else 0."""
    return np.array([extras.get(i, {}).get('turn', 0.0) for i in ids])


def learned_scores(
    model: LinearModel, matrix: np.ndarray, turns: np.ndarray | None = None, cjk: bool = False
) -> np.ndarray:
    """Calibrated probability of relevance of each row, in (0, 1); `turns` flags the rows
    that are dialogue turns (None: none is), `cjk` says the query is Chinese."""
    return calibrated(model, learned_logits(model, matrix, cjk, turns), turns)


def learned_head(
    model: LinearModel,
    ids: Sequence[str],
    lists: Mapping[str, RankedList],
    size: int,
    cheap: Callable[[str], Mapping[str, float]],
    signals: Callable[[str], dict[str, float]],
    cjk: bool = False,
    low: Sequence[float] | None = None,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Learned probabilities of the candidates that can rank in the first `size`, and their
    signals; `cheap(id)` gives every signal but `confidence`, `signals(id)` all of them; `cjk`
    says the query is Chinese; `low`: a bound each id's `confidence` is known not to fall
    below (None: 0).

    The model is linear in `confidence` (the one signal that costs real work, in [0, 1]), so
    each candidate's logit with confidence `low` and with 1 bounds it; a candidate whose best
    case is below the `size`-th best worst case cannot reach the head and is never scored.
    Exact: the head is the one scoring every candidate gives (each row is computed alike).
    """
    first = {i: cheap(i) for i in ids}
    matrix = feature_matrix(ids, lists, first)
    turns = turn_flags(ids, first)
    column = FEATURES.index('confidence')
    # `kept` rows are scored, `read` rows get their signals read: the rows scored are those
    # without `low` whatever it is, so each row's sums run as they do without it, to the bit
    kept = np.ones(len(ids), bool)
    read = kept
    if len(ids) > size:
        high = matrix.copy()
        high[:, column] = 1.0
        at_one = calibrated(model, learned_logits(model, high, cjk, turns), turns)
        kept = read = _reachable(model, matrix, column, 0.0, at_one, cjk, turns, size)
        if low is not None:
            read = kept & _reachable(model, matrix, column, low, at_one, cjk, turns, size)
    names = [ids[int(n)] for n in np.flatnonzero(read)]
    extras = {i: signals(i) for i in names}
    rows = matrix[kept]  # a row not read keeps the bound in its confidence: its score is unused
    scored = read[kept]
    rows[scored, column] = [extras[i]['confidence'] for i in names]
    probability = learned_scores(model, rows, turns[kept], cjk)[scored]
    return {i: float(p) for i, p in zip(names, probability, strict=True)}, extras


def _reachable(
    model: LinearModel,
    matrix: np.ndarray,
    column: int,
    low: float | Sequence[float],
    at_one: np.ndarray,
    cjk: bool,
    turns: np.ndarray,
    size: int,
) -> np.ndarray:
    """Which rows' chance, with `confidence` anywhere from `low` to 1 (`at_one`: the chance at
    1), may reach the first `size`; `matrix`'s confidence column is set to `low`."""
    matrix[:, column] = low
    # each row's calibration is increasing, so it keeps each row's bounds apart
    at_low = calibrated(model, learned_logits(model, matrix, cjk, turns), turns)
    worst, best = np.minimum(at_low, at_one), np.maximum(at_low, at_one)
    cut = len(worst) - size
    threshold = np.partition(worst, cut)[cut]
    # the slack keeps a candidate whose bound ties the threshold up to rounding
    return np.asarray(best >= threshold - 1e-12)


@lru_cache(maxsize=1)
def shipped_model() -> LinearModel | None:
    """The model in recall/assets/fusion_model.json (None if absent: fusion falls back to RRF)."""
    if not MODEL_PATH.exists():
        return None
    model = LinearModel.model_validate_json(MODEL_PATH.read_text())
    if tuple(model.features) != FEATURES:
        raise ValueError(f'{MODEL_PATH} was fitted on other features: {model.features}')
    return model
