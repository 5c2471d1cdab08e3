"""Keep the start-up heap out of the cyclic GC's full collections (`mnemos serve`, `mnemos worker`).

A started service holds a large heap it keeps for its life: the imported modules, pydantic's
schemas, onnxruntime's and spaCy's Python side, the open stores. CPython's full (generation-2)
collection walks every tracked object, so each one paid for that heap: 26-43 ms at 10k chunks,
8 per 400 searches, and those searches were the p99 (bench/README.md, "The tail is the cyclic
GC"). `gc.freeze()` moves every object alive at that moment to the permanent generation, which
no collection walks; full collections then walk only what came after start-up.

Called once, by the long-running process itself, when its start-up is done: not in
`runtime.bootstrap.build`, which tests and benchmarks call too. `mnemos serve` freezes only with
the graph off: with it on, the graph mirror is filled and grown after start-up, and the 25 %
rule that paces full collections (one only once the objects promoted since the last exceed a
quarter of the long-lived ones) then counts the mirror without the frozen heap, so full
collections of it came more often (6-7 against 4 per 400 searches after a 3k load), each
shorter, and p99 got worse. A `mnemos worker` holds no mirror (it is a graph client).
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


def freeze_startup_heap() -> int:
    """Move every object alive now out of the GC's reach; how many are frozen.

    Objects frozen here are never collected again, even once they are garbage: call it once
    start-up is done, not in code that runs per request. No `gc.collect()` first: at that
    point one freed 15 objects and took 76-113 ms of the restart (bench/README.md, "The start-up
    heap frozen"), while the freeze itself takes no measurable time.
    """
    started = time.perf_counter()
    gc.freeze()
    frozen = gc.get_freeze_count()
    spent_ms = (time.perf_counter() - started) * 1e3
    log.info('gc: %d start-up objects frozen in %.1f ms', frozen, spent_ms)
    return frozen
