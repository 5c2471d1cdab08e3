"""The ranking stage alone of two code trees in one process: `rank()` over captured searches.

cp -r /tmp/ab10k /tmp/ab10k_b             # a store from `bench/search_ab.py build`
python bench/rank_interleave.py <tree A> /tmp/ab10k <tree B> /tmp/ab10k_b --passes 5

Each tree's modules are imported apart (as `bench/search_interleave.py` does), its services open
its copy of the store as `bench/search_ab.py run` does (fixed clock, graph off), and it asks the
400 LoCoMo questions service_bench asks at 10k once, keeping what each search handed
`recall.read.ranking.rank` (the request, recipe, what the channels found, terms, floor and
moment). Then every pass calls each tree's `rank` on its own inputs, A then B on even
questions, B then A on odd ones, timing each call's thread CPU. A tree whose `Found` keeps the
speakers its context stage read (`Found.speakers`) gets them back as that stage left them before
every call, so no call reads what an earlier call of the same search read. Reported: the median
and mean microseconds per call of each tree, and how many calls' hits (id, score, receipt) and
`below_floor` differ. Only the stage's own CPU is timed: no store, embedding or HTTP.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# imported from this tree before the trees compared are (each tree's imports are its own)
sys.path.insert(0, str(ROOT))
from bench._common import locomo_questions  # noqa: E402
from bench.search_interleave import ours, pair_parser, tree_imports  # noqa: E402

sys.path.remove(str(ROOT))

Captured = tuple[tuple[Any, ...], dict[str, Any], dict[str, Any] | None]


class Tree:
    """One tree's `rank` and the inputs its searches handed it."""

    def __init__(self, path: str, data: str, questions: list[str]) -> None:
        with tree_imports(path):
            from bench import search_ab
            from core.auth import Principal
            from recall.read import search
            from recall.schemas import SearchRequest

            self.tree = str(Path(search_ab.__file__).resolve().parents[1])
            self.services = search_ab._services(Path(data))
            self.rank: Callable[..., Any] = search.rank
            self.captured: list[Captured] = []

            def grab(*args: Any, **kwargs: Any) -> Any:
                memo = getattr(args[2], 'speakers', None)
                self.captured.append((args, kwargs, None if memo is None else dict(memo)))
                return self.rank(*args, **kwargs)

            search.rank = grab  # type: ignore[assignment]
            admin = Principal(name='bench', admin=True)
            for q in questions:
                req = SearchRequest(query=q, scope=search_ab.SCOPE, top_k=10, graph=False)
                self.services.recall.search(req.model_copy(update={'touch': False}), admin)
            search.rank = self.rank  # type: ignore[assignment]

    def call(self, n: int) -> tuple[float, list[Any]]:
        """Thread CPU microseconds of the n-th captured call, and what it ranked."""
        args, kwargs, memo = self.captured[n]
        if memo is not None:
            args[2].speakers.clear()
            args[2].speakers.update(memo)
        t = time.thread_time_ns()
        ranked = self.rank(*args, **kwargs)
        spent = (time.thread_time_ns() - t) / 1000
        return spent, [[(h.id, h.score, h.components) for h in ranked.hits], ranked.below_floor]


def main() -> int:
    args = pair_parser(__doc__ or '', passes=5).parse_args()
    questions = locomo_questions()[args.offset : args.offset + args.queries]
    for name in ours():
        del sys.modules[name]
    a, b = Tree(args.tree_a, args.data_a, questions), Tree(args.tree_b, args.data_b, questions)
    times: dict[str, list[float]] = {'A': [], 'B': []}
    differ = 0
    try:
        for p in range(args.passes):
            for n in range(len(questions)):
                turn = (('A', a), ('B', b)) if (n + p) % 2 == 0 else (('B', b), ('A', a))
                out = {}
                for name, tree in turn:
                    spent, out[name] = tree.call(n)
                    times[name].append(spent)
                differ += out['A'] != out['B']
    finally:
        a.services.close()
        b.services.close()
    ma, mb = statistics.median(times['A']), statistics.median(times['B'])
    print(f'A {a.tree}  B {b.tree}')
    print(f'{len(questions)} searches x {args.passes} passes: {differ} calls differ')
    print(f'rank us/call  median A {ma:.0f}  B {mb:.0f}  B-A {mb - ma:+.0f} ({mb / ma - 1:+.1%})')
    mean_a, mean_b = statistics.mean(times['A']), statistics.mean(times['B'])
    print(f'              mean   A {mean_a:.0f}  B {mean_b:.0f}')
    return 1 if differ else 0


if __name__ == '__main__':
    raise SystemExit(main())
