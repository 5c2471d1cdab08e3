"""A channel's candidates in an order that depends on the stored data only.

The store returns candidates with equal scores in whatever order its segments and threads give
them, and a dense score moves in its last bits between an unindexed and an indexed segment. A
candidate list cut there would change from one run to the next: which of several tied memories
make the channel's top `limit`, their ranks, and through the ranks the fused order. So scores are
rounded to SCORE_DECIMALS, equal ones ordered by id, and the cut is made here, after a fetch
that reaches past the tied group at the cut.
"""

from __future__ import annotations

from collections.abc import Callable

from recall.read.weights import MAX_TIE_FETCH, SCORE_DECIMALS, TIE_MARGIN
from vectors.models import ScoredPoint


def settled(points: list[ScoredPoint]) -> list[ScoredPoint]:
    """`points` with rounded scores, best first, equal scores by id. The points are changed in
    place: the port hands out new points on every query (the vector store contract suite holds
    each adapter to it), and building copies would cost more than the sort (~5 us a point)."""
    for p in points:
        p.score = round(p.score, SCORE_DECIMALS)
    points.sort(key=lambda p: (-p.score, p.id))
    return points


def stable_top(query: Callable[[int], list[ScoredPoint]], limit: int) -> list[ScoredPoint]:
    """The best `limit` of what `query(n)` (the store's best n) finds, in the `settled` order:
    asks for more while the candidates tied at the cut may reach past what was fetched."""
    if limit <= 0:
        return []
    asked = limit + TIE_MARGIN
    while True:
        points = settled(query(asked))
        if len(points) < asked or asked >= MAX_TIE_FETCH:
            return points[:limit]  # everything the store holds, or as far as a cut may go
        if points[-1].score < points[limit - 1].score:
            return points[:limit]  # the group tied at the cut ends inside the fetch
        asked = min(MAX_TIE_FETCH, asked * 2)
