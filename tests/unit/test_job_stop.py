"""A stop cuts running jobs short without an error: the embedded queue (dramatiq on a
StubBroker, the SQLite outbox) records a job that failed because the process was stopping as
queued again, logs no traceback, and replays it at the next start; a job that reports after the
job store closed reports nothing (issue 44: a CRITICAL "Cannot operate on a closed database" on
every stop in mid-extraction)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from core.clock import ManualClock
from core.jobs import JobName
from core.settings import Settings
from jobs import queue as job_queue
from jobs.models import JobStatus
from jobs.queue import DramatiqJobQueue, make_job_queue
from tests.waiting import DEADLINE_S, wait_until


class BlockingRunner:
    """Runs `episodic` jobs until released, then fails as a job whose extraction worker was
    terminated does (or returns, once `healthy`)."""

    def __init__(self) -> None:
        self.running = threading.Event()
        self.release = threading.Event()
        self.healthy = False

    def __call__(self, name: str, params: dict[str, Any]) -> Any:
        if name != 'episodic':  # the periodic expiry sweep also runs on start
            return None
        if self.healthy:
            return {'n': params['n']}
        self.running.set()
        assert self.release.wait(DEADLINE_S)
        raise RuntimeError('A process in the process pool was terminated abruptly')


def _queue(tmp_path: Path, runner: Any) -> DramatiqJobQueue:
    settings = Settings.load({}, data_dir=tmp_path, worker_threads=1)
    queue = make_job_queue(settings, runner, ManualClock())
    assert isinstance(queue, DramatiqJobQueue)
    return queue


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f'{r.levelname} {r.name}: {r.getMessage()}'
        for r in caplog.records
        if r.levelno >= logging.ERROR or r.exc_info
    ]


def _row(tmp_path: Path, job_id: str) -> tuple[str, str | None, int]:
    with sqlite3.connect(tmp_path / 'jobs.sqlite3') as db:
        row = db.execute('SELECT state, error, live FROM jobs WHERE id = ?', (job_id,)).fetchone()
    return row[0], row[1], row[2]


def test_a_job_the_stop_cuts_short_is_queued_again_quietly_and_runs_at_the_next_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    runner = BlockingRunner()
    queue = _queue(tmp_path, runner)
    failures: list[tuple[str, bool]] = []
    queue.on_failure(lambda job, final: failures.append((job, final)))
    queue.start()
    job_id = queue.enqueue(JobName.EPISODIC, n=1)
    assert runner.running.wait(DEADLINE_S)
    queue.stop(grace_s=0.05)  # the job outlives the grace
    runner.release.set()  # what it ran on is closed: it fails
    wait_until(lambda: _row(tmp_path, job_id)[0] == 'queued', 'the cut job was never reported')
    queue.close()
    state, error, live = _row(tmp_path, job_id)
    assert state == 'queued' and live == 0
    assert error is not None and error.startswith('Interrupted: the process stopped')
    assert failures == []  # not a failed attempt (metrics)
    assert _errors(caplog) == []  # no traceback, no ERROR/CRITICAL

    runner.healthy = True
    again = _queue(tmp_path, runner)
    again.start()
    try:
        wait_until(lambda: again.wait_idle(0.1), 'the cut job was not replayed')
        info = again.get(job_id)
        assert info is not None and info.state == JobStatus.DONE and info.result == {'n': 1}
        assert info.attempts == 2
    finally:
        again.close()


def test_a_job_ending_after_the_job_store_closed_reports_nothing_and_stays_unfinished(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(job_queue, 'JOIN_S', 0.05)
    runner = BlockingRunner()
    queue = _queue(tmp_path, runner)
    queue.start()
    job_id = queue.enqueue(JobName.EPISODIC, n=1)
    assert runner.running.wait(DEADLINE_S)
    queue.close(grace_s=0.05)  # the job thread outlives the stop's wait: the store closes
    runner.release.set()
    wait_until(
        lambda: any('ended after the stop' in r.getMessage() for r in caplog.records),
        'the late job never ended',
    )
    assert _errors(caplog) == []  # it once wrote to the closed store: a CRITICAL traceback
    state, error, _ = _row(tmp_path, job_id)
    assert state == 'running' and error is None  # not done: the next start replays it
