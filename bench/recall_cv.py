"""Leave-one-conversation-out choice of fusion recipes, replayed offline over explained searches.

`bench/locomo.py --cv` asks every question once through HTTP with `explain: true` (every
channel's candidates with raw scores, and per candidate the decay multiplier, user and trust
factors, whether the query names its speaker, and its confidence). This module replays the
service's ranking over those lists for every recipe of a grid (with `recall.fusion.fuse`, the
service's own function), chooses the recipe on four conversations and scores it on the fifth.
The report is the mean over the folds. A check replays the service's default recipe and compares
it with what the default request returned through HTTP, so the replay cannot drift from the
service unnoticed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from recall.fusion import FusionConfig, fuse, graph_weight

# the service ranks the head of the fused list only (recall.service RANK_WINDOW_FACTOR/MIN)
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


def replay(q: Explained, recipe: FusionConfig, top_k: int) -> list[str | None]:
    """The dia_ids the service would return under `recipe` (mirrors RecallService._rank)."""
    lists = {c: v for c, v in q.lists.items() if recipe.weight(c) > 0}
    weights = {c: recipe.weight(c) for c in lists}
    if 'graph' in lists:
        weights['graph'] = graph_weight(weights['graph'], lists['graph'])
    fused = fuse(lists, recipe.method, weights)
    scored: list[tuple[float, str]] = []
    for item in fused[: max(top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)]:
        f = q.factors.get(item.id)
        if f is None:
            continue
        if f['confidence'] < recipe.min_score:
            continue
        boost = 1.0 + recipe.speaker_boost if f['speaker_named'] else 1.0
        score = item.score * f['decay_multiplier'] * boost * f['user_boost'] * f['trust_factor']
        scored.append((score, item.id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [q.dia_of.get(ident) for _, ident in scored[:top_k]]


def grid() -> list[FusionConfig]:
    """Every recipe the CV chooses among: BM25 is the reference channel at weight 1."""
    out = []
    for method, dense, context, graph, speaker in itertools.product(
        ('rrf', 'weighted'),
        (0.0, 0.25, 0.5, 0.75, 1.0),
        (0.0, 0.25, 0.5, 1.0),
        (0.0, 0.25, 0.5),
        (0.0, 0.1, 0.25),
    ):
        weights = {'bm25': 1.0, 'dense': dense, 'context': context, 'graph': graph}
        out.append(FusionConfig(method=method, weights=weights, speaker_boost=speaker))
    return out


def single_channel(channel: str) -> FusionConfig:
    """One channel alone (no boosts), for the best-single-channel comparison."""
    weights = {c: (1.0 if c == channel else 0.0) for c in CHANNELS}
    return FusionConfig(method='rrf', weights=weights, speaker_boost=0.0)


Scorer = Callable[[list[str | None], tuple[str, ...]], dict[str, float]]


def evaluate(
    questions: Sequence[Explained], recipe: FusionConfig, scorer: Scorer, top_k: int
) -> dict[str, float]:
    """Question-weighted mean of every metric over `questions` (categories 1-4 only)."""
    totals: dict[str, float] = {}
    n = 0
    for q in questions:
        if q.category not in (1, 2, 3, 4):
            continue
        n += 1
        for metric, value in scorer(replay(q, recipe, top_k), q.evidence).items():
            totals[metric] = totals.get(metric, 0.0) + value
    return {m: v / n for m, v in totals.items()} | {'n': float(n)}


def _key(result: dict[str, float]) -> tuple[float, float]:
    return (round(result['recall@10'], 4), round(result['mrr'], 4))


def choose(
    questions: Sequence[Explained],
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


FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)
# the floor may cost at most this much recall@10 on the training folds
FLOOR_BUDGET = 0.005


def choose_floor(
    questions: Sequence[Explained], recipe: FusionConfig, scorer: Scorer, top_k: int
) -> float:
    """The highest floor whose recall@10 loss on `questions` stays within FLOOR_BUDGET."""
    base = evaluate(questions, recipe, scorer, top_k)['recall@10']
    chosen = 0.0
    for floor in FLOORS:
        probe = recipe.model_copy(update={'min_score': floor})
        if base - evaluate(questions, probe, scorer, top_k)['recall@10'] <= FLOOR_BUDGET:
            chosen = floor
    return chosen


def cross_validate(
    questions: Sequence[Explained], scorer: Scorer, top_k: int, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Leave one conversation out: choose recipe and floor on the rest, score on it."""
    samples = sorted({q.sample_id for q in questions})
    recipes = grid()
    folds = []
    for held in samples:
        train = [q for q in questions if q.sample_id != held]
        test = [q for q in questions if q.sample_id == held]
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
                if any(q.lists.get(c) for q in test)
            },
        }
        folds.append(fold)
        log(
            f'fold {held}: chose {recipe.method} {recipe.weights} speaker '
            f'{recipe.speaker_boost} floor {floor}; held-out recall@10 '
            f'{fold["test"]["recall@10"]:.3f} MRR {fold["test"]["mrr"]:.3f}'
        )
    metrics = [m for m in folds[0]['test'] if m != 'n']
    mean = {m: sum(f['test'][m] for f in folds) / len(folds) for m in metrics}
    channel_means = {
        c: {m: sum(f['channels'][c][m] for f in folds) / len(folds) for m in metrics}
        for c in folds[0]['channels']
    }
    final, final_result = choose(questions, recipes, scorer, top_k)
    final_floor = choose_floor(questions, final, scorer, top_k)
    return {
        'folds': folds,
        'cv_mean': mean,
        'channel_cv_mean': channel_means,
        'chosen_on_all': final.model_copy(update={'min_score': final_floor}).model_dump(),
        'chosen_on_all_result': final_result,
        'grid_size': len(recipes),
    }
