"""Pydantic models of the job system: a job's state as the queue records and reports it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class JobStatus(StrEnum):
    """Where a job is in its life; `queued` again after a failed attempt that will be retried.

    `done`, `failed` and `cancelled` are final; `cancelled` is a job whose scope or user was
    forgotten before it finished: it never runs (again) and its params are gone.
    """

    QUEUED = 'queued'
    RUNNING = 'running'
    DONE = 'done'
    FAILED = 'failed'
    CANCELLED = 'cancelled'


FINAL_STATES = frozenset({JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED})


class JobInfo(BaseModel):
    """A job's state as `GET /v1/jobs/<id>` shows it."""

    id: str
    job: str
    state: JobStatus
    attempts: int = 0
    error: str | None = None
    result: Any = None
    worker: str | None = Field(default=None, description='host:pid of the last process to run it')
    scope: str | None = Field(default=None, exclude=True, description='for read checks')
    created_at: datetime
    updated_at: datetime
