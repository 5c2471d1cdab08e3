"""Ending a process on SIGTERM or SIGINT: its work stopped and its stores closed in order, within
a bound, then an exit that runs no interpreter teardown.

Exiting through `sys.exit` would run the stores' closing from `atexit` and then tear the
interpreter down while job threads are still inside an extraction: Kuzu and spaCy objects go away
under them and the process dies of a segfault (exit 139). So the stop does it in this order: the
job workers get `STOP_GRACE_S` to finish what they run (a job still running after it stays
`running` in the outbox and is replayed at the next start), then every service closes newest
first (the extraction workers before the graph store, the graph before the vector store), and
the process ends with `os._exit`, so no daemon thread outlives a module it uses.

A job still running when its extraction workers are terminated fails; that is the stop's doing,
so it ends as `Interrupted` (jobs/actors.py: no traceback, not counted as a failure) and is
recorded as queued again. For that the job threads are joined, and the job store closed, only
after the extraction workers and before the stores the jobs write to: a job reporting to a
closed job store logged a CRITICAL traceback on every stop in mid-extraction.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from runtime.bootstrap import Services

log = logging.getLogger(__name__)

STOP_GRACE_S = 2.0  # for a running job to finish (the rest of a stop takes ~2-4 s)


def close_services(services: Services, grace_s: float = STOP_GRACE_S) -> None:
    """Stop the job workers (running jobs get `grace_s`), then close every service: the job
    queue and its store close after the extraction workers and before the graph store (see
    `runtime.bootstrap`), so a job cut short reports to an open store that it runs again."""
    try:
        services.jobs.stop(grace_s=grace_s)
    except Exception:
        log.exception('stopping the job workers failed')
    services.close()


def stop_process(services: Services, budget_s: float, code: int = 0) -> NoReturn:
    """Close `services` (at most `budget_s`, `KG_STOP_BUDGET_S`), flush the logs and end the
    process with `code`."""
    closing = threading.Thread(
        target=close_services, args=(services,), name='mnemos-stop', daemon=True
    )
    log.info('stopping: the job workers get %.0f s, the whole stop %.0f s', STOP_GRACE_S, budget_s)
    closing.start()
    closing.join(budget_s)
    if closing.is_alive():
        # the stores' logs hold every acknowledged write; the next start recovers from them
        log.error('closing the stores took over %.0f s; exiting without waiting', budget_s)
        with contextlib.suppress(OSError, ValueError):  # what it waited for
            faulthandler.dump_traceback(all_threads=True)
    else:
        log.info('stopped cleanly')
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
