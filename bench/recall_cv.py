"""Leave-one-conversation-out choice of fusion recipes, replayed offline over explained searches.

`bench/locomo.py --cv` asks every question once through HTTP with `explain: true` (every
channel's candidates with raw scores, and per candidate the decay multiplier, user and trust
factors, whether the query names its speaker, and its confidence). This module replays the
service's ranking over those lists for every recipe of a grid (numpy arrays mirroring
`recall.read.fusion.fuse` and `RecallService._rank`), chooses the recipe on four conversations and
scores it on the fifth. The report is the mean over the folds. A check replays the service's
default recipe and compares it with what the default request returned through HTTP, so the
replay cannot drift from the service unnoticed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from recall.read.fusion import (
    FEATURES,
    LEARNED_CHANNELS,
    RRF_K,
    FusionConfig,
    LinearModel,
    channel_columns,
    feature_matrix,
    graph_weight,
    learned_scores,
)

# the service ranks the head of the fused list only (recall.read.weights RANK_WINDOW_FACTOR/MIN)
RANK_WINDOW_FACTOR = 3
MIN_RANK_WINDOW = 30
CHANNELS = ('bm25', 'dense', 'context', 'graph')


@dataclass
class Explained:
    """One question's explained search: channel lists, per-candidate factors, gold and meta."""

    sample_id: str
    category: int
    evidence: tuple[str, ...]
    lists: dict[str, list[tuple[str, float]]]
    factors: dict[str, dict[str, float]]
    dia_of: dict[str, str] = field(repr=False)


class Prepared:
    """One question's candidates as arrays, so a recipe replays in microseconds."""

    def __init__(self, q: Explained, k: int = RRF_K) -> None:
        self.q = q
        ids = sorted({i for ranked in q.lists.values() for i, _ in ranked} & set(q.factors))
        self.ids = ids
        at = {ident: n for n, ident in enumerate(ids)}
        self.rrf: dict[str, np.ndarray] = {}
        self.norm: dict[str, np.ndarray] = {}
        self.present: dict[str, np.ndarray] = {}
        for channel, ranked in q.lists.items():
            column = channel_columns(at, ranked)
            self.rrf[channel] = np.where(column.found, 1.0 / (k + column.rank), 0.0)
            self.norm[channel], self.present[channel] = column.norm, column.found
        f = [q.factors[i] for i in ids]
        self.decay = np.array([x['decay_multiplier'] for x in f])
        self.user = np.array([x['user_boost'] for x in f])
        self.trust = np.array([x['trust_factor'] for x in f])
        self.speaker = np.array([x['speaker_named'] for x in f])
        self.date = np.array([x.get('date_match', 0.0) for x in f])
        self.confidence = np.array([x['confidence'] for x in f])
        self.dia = [q.dia_of.get(i) for i in ids]
        self.features = feature_matrix(ids, q.lists, q.factors)
        self.learnable = np.zeros(len(ids), bool)
        for channel in LEARNED_CHANNELS:
            if channel in self.present:
                self.learnable |= self.present[channel]
        wanted = set(q.evidence)
        self.gold = np.array([d in wanted for d in self.dia])


def replay(
    p: Prepared, recipe: FusionConfig, top_k: int, model: LinearModel | None = None
) -> list[str | None]:
    """The dia_ids the service would return under `recipe` (mirrors RecallService._rank)."""
    if recipe.method == 'learned':
        assert model is not None
        base = learned_scores(model, p.features)
        order = np.lexsort((np.arange(len(p.ids)), -base))
        order = order[p.learnable[order]][: max(top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)]
        order = order[p.confidence[order] >= recipe.min_score]
        score = base[order] * p.decay[order] * p.user[order] * p.trust[order]
        final = order[np.lexsort((order, -score))][:top_k]
        return [p.dia[n] for n in final]
    fused = np.zeros(len(p.ids))
    found = np.zeros(len(p.ids), bool)
    table = p.norm if recipe.method == 'weighted' else p.rrf
    for channel, ranked in p.q.lists.items():
        weight = recipe.weight(channel)
        if channel == 'graph':
            weight = graph_weight(weight, ranked)
        if weight <= 0 or not ranked:
            continue
        fused += weight * table[channel]
        found |= p.present[channel]
    order = np.lexsort((np.arange(len(p.ids)), -fused))
    order = order[found[order]][: max(top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)]
    order = order[p.confidence[order] >= recipe.min_score]
    score = (
        fused[order]
        * p.decay[order]
        * (1.0 + recipe.speaker_boost * p.speaker[order])
        * (1.0 + recipe.date_boost * p.date[order])
        * p.user[order]
        * p.trust[order]
    )
    final = order[np.lexsort((order, -score))][:top_k]
    return [p.dia[n] for n in final]


def grid() -> list[FusionConfig]:
    """Every recipe the CV chooses among: BM25 is the reference channel at weight 1."""
    out = []
    methods: tuple[Literal['rrf', 'weighted'], ...] = ('rrf', 'weighted')
    for method, dense, context, graph, speaker, date in itertools.product(
        methods,
        (0.25, 0.5, 0.75, 1.0),
        (0.0, 0.5, 1.0),
        (0.0, 0.25),
        (0.0, 0.25, 0.5),
        (0.0, 0.25, 0.5),
    ):
        weights = {'bm25': 1.0, 'dense': dense, 'context': context, 'graph': graph}
        out.append(
            FusionConfig(method=method, weights=weights, speaker_boost=speaker, date_boost=date)
        )
    return out


def single_channel(channel: str) -> FusionConfig:
    """One channel alone (no boosts), for the best-single-channel comparison."""
    weights = {c: (1.0 if c == channel else 0.0) for c in CHANNELS}
    return FusionConfig(method='rrf', weights=weights, speaker_boost=0.0, date_boost=0.0)


Scorer = Callable[[list[str | None], tuple[str, ...]], dict[str, float]]


def evaluate(
    questions: Sequence[Prepared],
    recipe: FusionConfig,
    scorer: Scorer,
    top_k: int,
    model: LinearModel | None = None,
) -> dict[str, float]:
    """Question-weighted mean of every metric over `questions` (categories 1-4 only)."""
    totals: dict[str, float] = {}
    n = 0
    for p in questions:
        if p.q.category not in (1, 2, 3, 4):
            continue
        n += 1
        for metric, value in scorer(replay(p, recipe, top_k, model), p.q.evidence).items():
            totals[metric] = totals.get(metric, 0.0) + value
    return {m: v / n for m, v in totals.items()} | {'n': float(n)}


def _key(result: dict[str, float]) -> tuple[float, float]:
    return (round(result['recall@10'], 4), round(result['mrr'], 4))


def choose(
    questions: Sequence[Prepared],
    recipes: Sequence[FusionConfig],
    scorer: Scorer,
    top_k: int,
) -> tuple[FusionConfig, dict[str, float]]:
    """The recipe with the best recall@10 (then MRR) on `questions`."""
    best: tuple[FusionConfig, dict[str, float]] | None = None
    for recipe in recipes:
        result = evaluate(questions, recipe, scorer, top_k)
        if best is None or _key(result) > _key(best[1]):
            best = (recipe, result)
    assert best is not None
    return best


L2 = 1e-3
FIT_STEPS = 400
FIT_RATE = 0.5


def fit(questions: Sequence[Prepared], label: str = '') -> LinearModel:
    """Class-balanced logistic regression with L2 over the candidates of `questions`.

    Full-batch gradient descent from zero on standardised features: deterministic, no library
    beyond numpy, and ten weights leave little room to learn one conversation's quirks.
    """
    rows = [p for p in questions if p.q.category in (1, 2, 3, 4)]
    x = np.vstack([p.features[p.learnable] for p in rows])
    y = np.concatenate([p.gold[p.learnable] for p in rows]).astype(float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    positives = max(1.0, y.sum())
    sample = np.where(y > 0, (len(y) - positives) / positives, 1.0)
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(FIT_STEPS):
        prob = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        err = (prob - y) * sample / len(y)
        w -= FIT_RATE * (z.T @ err + L2 * w)
        b -= FIT_RATE * err.sum()
    return LinearModel(
        features=list(FEATURES),
        mean=[round(float(v), 6) for v in mean],
        scale=[round(float(v), 6) for v in scale],
        weights=[round(float(v), 6) for v in w],
        bias=round(float(b), 6),
        fitted_on=label,
    )


LEARNED = FusionConfig(method='learned')

FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6)
# the floor may cost at most this much recall@10 on the training folds
FLOOR_BUDGET = 0.005


def choose_floor(
    questions: Sequence[Prepared],
    recipe: FusionConfig,
    scorer: Scorer,
    top_k: int,
    model: LinearModel | None = None,
) -> float:
    """The highest floor whose recall@10 loss on `questions` stays within FLOOR_BUDGET."""
    base = evaluate(questions, recipe, scorer, top_k, model)['recall@10']
    chosen = 0.0
    for floor in FLOORS:
        probe = recipe.model_copy(update={'min_score': floor})
        loss = base - evaluate(questions, probe, scorer, top_k, model)['recall@10']
        if loss <= FLOOR_BUDGET:
            chosen = floor
    return chosen


def cross_validate(
    explained: Sequence[Explained],
    scorer: Scorer,
    top_k: int,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Leave one conversation out: choose recipe and floor on the rest, score on it."""
    questions = [Prepared(q) for q in explained]
    samples = sorted({p.q.sample_id for p in questions})
    recipes = grid()
    folds = []
    for held in samples:
        train = [p for p in questions if p.q.sample_id != held]
        test = [p for p in questions if p.q.sample_id == held]
        recipe, train_result = choose(train, recipes, scorer, top_k)
        floor = choose_floor(train, recipe, scorer, top_k)
        recipe = recipe.model_copy(update={'min_score': floor})
        fold: dict[str, Any] = {
            'held_out': held,
            'recipe': recipe.model_dump(),
            'train': train_result,
            'test': evaluate(test, recipe, scorer, top_k),
            'channels': {
                c: evaluate(test, single_channel(c), scorer, top_k)
                for c in CHANNELS
                if any(p.q.lists.get(c) for p in test)
            },
        }
        model = fit(train, label=f'LoCoMo dev without {held}')
        learned = LEARNED.model_copy(
            update={'min_score': choose_floor(train, LEARNED, scorer, top_k, model)}
        )
        fold['learned'] = {
            'model': model.model_dump(),
            'floor': learned.min_score,
            'test': evaluate(test, learned, scorer, top_k, model),
        }
        folds.append(fold)
        log(
            f'fold {held}: learned fusion (floor {learned.min_score}) held-out recall@10 '
            f'{fold["learned"]["test"]["recall@10"]:.3f} MRR {fold["learned"]["test"]["mrr"]:.3f}'
        )
        log(
            f'fold {held}: chose {recipe.method} {recipe.weights} speaker '
            f'{recipe.speaker_boost} date {recipe.date_boost} floor {floor}; held-out recall@10 '
            f'{fold["test"]["recall@10"]:.3f} MRR {fold["test"]["mrr"]:.3f}'
        )
    metrics = [m for m in folds[0]['test'] if m != 'n']
    mean = {m: sum(f['test'][m] for f in folds) / len(folds) for m in metrics}
    learned_mean = {m: sum(f['learned']['test'][m] for f in folds) / len(folds) for m in metrics}
    # a channel that found nothing for any question of a held-out conversation (the graph
    # channel, when extraction had not caught up under load) scores 0 there, not a KeyError
    nothing = dict.fromkeys(metrics, 0.0)
    channel_means = {
        c: {m: sum(f['channels'].get(c, nothing)[m] for f in folds) / len(folds) for m in metrics}
        for c in dict.fromkeys(c for f in folds for c in f['channels'])
    }
    final, final_result = choose(questions, recipes, scorer, top_k)
    final_floor = choose_floor(questions, final, scorer, top_k)
    model = fit(questions, label=f'LoCoMo dev, all {len(samples)} conversations')
    return {
        'folds': folds,
        'cv_mean': mean,
        'learned_cv_mean': learned_mean,
        'learned_model': model.model_dump(),
        'learned_floor': choose_floor(questions, LEARNED, scorer, top_k, model),
        'channel_cv_mean': channel_means,
        'chosen_on_all': final.model_copy(update={'min_score': final_floor}).model_dump(),
        'chosen_on_all_result': final_result,
        'grid_size': len(recipes),
    }
