"""`mnemos worker`: consolidation worker processes for server mode (KG_REDIS_URL).

A worker builds the same Services as the API through `runtime.bootstrap.build`, as a graph
*client* (`GraphRole.CLIENT`): Kuzu admits one read-write process, and that is the API process
(the graph owner), which consumes the `graph` queue. Workers consume the `consolidation` queue
(episodic, dreaming, expiry) and hand graph work (semantic extraction, dedup, indexing written
memories, forgetting pruned ones) to the owner through the graph queue.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import io
import logging
import multiprocessing
import signal
import sys
import threading
from typing import Any

from core.errors import ConfigurationError
from core.settings import Settings

log = logging.getLogger(__name__)


def serve(
    settings: Settings,
    threads: int,
    stop: threading.Event | None = None,
    *,
    freeze_heap: bool = False,
) -> None:
    """Run one worker process until SIGTERM/SIGINT (or `stop`): consume the non-graph queues.

    `freeze_heap` (a worker process of its own, not a test's thread) freezes the start-up heap
    once the services are built (`runtime.gc_freeze`)."""
    from jobs.queue import WORKER_QUEUES
    from runtime.bootstrap import build
    from runtime.gc_freeze import freeze_startup_heap

    # a worker process's native crash logs its stacks too (api/cli.py says why)
    with contextlib.suppress(io.UnsupportedOperation, ValueError):
        faulthandler.enable()
    services = build(settings, consume_jobs=False, owns_graph=False)
    if freeze_heap:
        # as `mnemos serve`: the built services live as long as the process
        freeze_startup_heap()
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
    try:
        services.jobs.start(queues=WORKER_QUEUES, threads=threads)
        log.info('mnemos worker: consuming %s with %d threads', sorted(WORKER_QUEUES), threads)
        print('mnemos worker: ready', flush=True)
        stop.wait()
    finally:
        services.close()


def _child(settings_json: str, threads: int) -> None:
    logging.basicConfig(level=logging.INFO)
    _tune_malloc()
    serve(Settings.model_validate_json(settings_json), threads, freeze_heap=True)


def _tune_malloc() -> None:
    # as `mnemos serve` (runtime/malloc_arenas.py): before build() starts the job threads
    from runtime.malloc_arenas import limit_malloc_arenas, start_trimming

    limit_malloc_arenas()
    start_trimming()


def run_worker(settings: Settings, *, processes: int = 1, threads: int = 4) -> int:
    """Run `processes` worker processes with `threads` threads each; returns an exit status."""
    if settings.redis_url is None:
        raise ConfigurationError(
            'mnemos worker needs KG_REDIS_URL: in embedded mode the service runs its jobs itself'
        )
    if processes <= 1:
        _tune_malloc()
        serve(settings, threads, freeze_heap=True)
        return 0
    context = multiprocessing.get_context('spawn')
    children: list[Any] = [
        context.Process(
            target=_child, args=(settings.model_dump_json(), threads), name=f'mnemos-worker-{i}'
        )
        for i in range(processes)
    ]
    for child in children:
        child.start()

    def _forward(*_: Any) -> None:
        for child in children:
            if child.is_alive():
                child.terminate()

    signal.signal(signal.SIGTERM, _forward)
    signal.signal(signal.SIGINT, _forward)
    for child in children:
        child.join()
    return max((child.exitcode or 0) for child in children)


def main(argv: list[str] | None = None) -> int:
    """`python -m runtime.worker [--processes N] [--threads N]` with `KG_*` settings."""
    parser = argparse.ArgumentParser(prog='mnemos worker', description=__doc__)
    parser.add_argument('--processes', type=int, default=1)
    parser.add_argument('--threads', type=int, default=4)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format='%(asctime)s %(levelname)s %(name)s: %(message)s'
    )
    return run_worker(Settings.load(), processes=args.processes, threads=args.threads)


if __name__ == '__main__':
    sys.exit(main())
