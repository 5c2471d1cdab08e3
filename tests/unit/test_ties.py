"""A channel's candidates are cut and ordered by score, then id, whatever order the store
returns ties in and wherever it cuts them."""

from __future__ import annotations

import random
from collections.abc import Callable

from recall.read.ties import settled, stable_top
from recall.read.weights import MAX_TIE_FETCH
from vectors.models import ScoredPoint


def _store(
    scores: dict[str, float], seed: int
) -> tuple[list[int], Callable[[int], list[ScoredPoint]]]:
    """A store query that returns its best n with ties in a shuffled order, and the sizes asked."""
    asked: list[int] = []
    rng = random.Random(seed)

    def query(n: int) -> list[ScoredPoint]:
        asked.append(n)
        points = [ScoredPoint(id=i, score=s) for i, s in scores.items()]
        rng.shuffle(points)
        points.sort(key=lambda p: -p.score)  # stable: ties stay shuffled
        return points[:n]

    return asked, query


def test_scores_that_differ_in_the_last_bits_are_ties_ordered_by_id() -> None:
    points = [ScoredPoint(id='b', score=0.5 + 1e-9), ScoredPoint(id='a', score=0.5)]
    assert [p.id for p in settled(points)] == ['a', 'b']


def test_the_cut_takes_the_lowest_ids_of_a_tied_group_larger_than_the_fetch() -> None:
    scores = {f'id{n:03d}': 2.0 for n in range(150)} | {'top': 3.0, 'low': 1.0}
    wanted = ['top', *sorted(i for i in scores if scores[i] == 2.0)[:49]]
    for seed in range(5):
        asked, query = _store(scores, seed)
        assert [p.id for p in stable_top(query, 50)] == wanted
        assert asked[-1] > 150  # fetched past the whole tied group


def test_one_fetch_suffices_when_the_tied_group_ends_before_the_margin() -> None:
    scores = {f'id{n:03d}': float(n // 3) for n in range(100)}
    asked, query = _store(scores, 0)
    top = stable_top(query, 20)
    assert len(asked) == 1
    assert [p.id for p in top] == sorted(scores, key=lambda i: (-scores[i], i))[:20]


def test_a_tied_group_past_the_fetch_bound_is_cut_where_the_store_cuts_it() -> None:
    scores = {f'id{n:05d}': 1.0 for n in range(MAX_TIE_FETCH + 500)}
    asked, query = _store(scores, 0)
    assert len(stable_top(query, 50)) == 50
    assert max(asked) == MAX_TIE_FETCH
