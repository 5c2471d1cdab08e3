"""Ports of the job system: the queue and the job-state store; services never import dramatiq."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from core.jobs import Jobs
from jobs.models import JobInfo


class JobQueue(Jobs, Protocol):
    """The `Jobs` port plus what consolidation and the runtime need: job states, leases, and
    starting and stopping the consumers. A job runs later, at least once."""

    def get(self, job_id: str) -> JobInfo | None:
        """The job's current state, or None when unknown (or forgotten after its TTL)."""
        ...

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope`, newest first; of every scope (and the system's) when None."""
        ...

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Cancel the unfinished jobs of `scope` (and `user_id`); how many were cancelled."""
        ...

    def wait_running(self, scope: str | None, user_id: str | None, timeout: float) -> bool:
        """Wait (at most `timeout` s) until no job of `scope` (and `user_id`) runs in any live
        process, cancelled ones included; True when one was running (it may have queued more),
        False when none was."""
        ...

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` until `now + seconds` unless someone holds it; True when taken."""
        ...

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take the mutual-exclusion lock `key` of a running job until `now + seconds`.

        Unlike a lease (a debounce that must hold across restarts), a lock held by a process
        that is gone is taken over at once. 0.0 when taken, else the seconds it stays held.
        """
        ...

    def start(self, queues: frozenset[str] | None = None, threads: int | None = None) -> None:
        """Replay accepted jobs and consume `queues` (default: this process's own)."""
        ...

    def stop(self, grace_s: float = 30.0) -> None:
        """Stop consuming; running jobs get `grace_s` to finish. One that fails after it (the
        stop closing what it runs on) is no failure: it stays unfinished and is replayed at
        the next start."""
        ...

    def close(self, grace_s: float = 30.0) -> None:
        """`stop`, then release the broker and the job store; running jobs get `grace_s` to
        finish (one still running after it is replayed at the next start)."""
        ...


class JobStore(Protocol):
    """Job states, visible to every process that runs or reports jobs; also leases."""

    def create(
        self, job_id: str, job: str, queue: str, params: dict[str, Any], scope: str | None
    ) -> None:
        """Record an accepted job as queued, before it is handed to the broker."""
        ...

    def started(self, job_id: str, worker: str) -> bool:
        """Mark a job running in `worker` (host:pid) and count the attempt; False, changing
        nothing, when the job was cancelled: it must not run."""
        ...

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done (no error), failed (error and final) or queued for a retry (error, not final);
        either way no longer running (`running`), cancelled or not."""
        ...

    def running(self, scope: str | None, user_id: str | None) -> list[str]:
        """Ids of the jobs of `scope` (any when None) and `user_id` (any when None) started and
        not finished by a process that still lives, cancelled ones included: they may still
        write."""
        ...

    def get(self, job_id: str) -> JobInfo | None:
        """A job's state, or None."""
        ...

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (every scope when None), newest first."""
        ...

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """(id, job, queue, params) of jobs accepted but not finished: replayed on start."""
        ...

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Mark every queued or running job whose params name `scope` (any scope when None) and
        `user_id` (any user when None; at least one is given) `cancelled`, and drop its params
        (session transcripts) from storage; returns how many. A cancelled job is final: it is
        never replayed, and `started`/`finished` leave its state alone."""
        ...

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` until `now + seconds` unless it is held past `now`."""
        ...

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take lock `key` for this process until `now + seconds` unless a live owner holds it
        past `now` (an owner recorded as gone loses it); 0.0 when taken, else the seconds left."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
