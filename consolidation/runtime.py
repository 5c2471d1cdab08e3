"""Start consolidation in a built process: the episodes collection, then the job consumers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from consolidation.episodic import ensure_episodes

if TYPE_CHECKING:
    from runtime.bootstrap import Services


def start(services: Services, *, consume: bool = True) -> None:
    """Ensure the `episodes` collection; with `consume`, replay pending jobs and start workers.

    Embedded: worker threads drain every queue. Server mode: this process owns the graph and
    drains the `graph` queue only. `mnemos worker` passes consume=False and starts its own.
    """
    ensure_episodes(services)
    if consume:
        start_jobs = getattr(services.jobs, 'start', None)
        if start_jobs is not None:
            start_jobs()
