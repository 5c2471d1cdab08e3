"""JobStore adapters: a SQLite outbox (embedded), Redis hashes (server) and an in-memory twin."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from consolidation.models import JobInfo, JobStatus
from core.clock import Clock, from_epoch, to_epoch
from core.errors import StoreUnavailable

FILENAME = 'jobs.sqlite3'
# finished jobs stay readable this long, then they are forgotten
KEEP_FINISHED = timedelta(days=7)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    job TEXT NOT NULL,
    queue TEXT NOT NULL,
    params TEXT,
    scope TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    result TEXT,
    worker TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state);
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    until REAL NOT NULL
);
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _state(error: str | None, final: bool) -> JobStatus:
    if error is None:
        return JobStatus.DONE
    return JobStatus.FAILED if final else JobStatus.QUEUED


class SqliteJobStore:
    """The embedded outbox: a job is recorded before the broker sees it and marked when it ends.

    The in-process StubBroker loses queued messages on exit; `pending()` lists what to replay.
    WAL mode keeps readers (job status requests) from blocking the writer.
    """

    def __init__(self, path: Path, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute('PRAGMA journal_mode=WAL')
            self._db.execute('PRAGMA synchronous=NORMAL')
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f'cannot open the job outbox {path}: {exc}') from exc
        self._prune()

    def _prune(self) -> None:
        cutoff = to_epoch(self._clock.now() - KEEP_FINISHED)
        with self._lock:
            self._db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < ?", (cutoff,)
            )

    def create(
        self, job_id: str, job: str, queue: str, params: dict[str, Any], scope: str | None
    ) -> None:
        """Record an accepted job as queued."""
        now = to_epoch(self._clock.now())
        with self._lock:
            self._db.execute(
                'INSERT OR IGNORE INTO jobs (id, job, queue, params, scope, state, created_at,'
                ' updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
                (job_id, job, queue, _dumps(params), scope, JobStatus.QUEUED.value, now, now),
            )

    def started(self, job_id: str, worker: str) -> None:
        """Mark running in `worker`; count the attempt."""
        with self._lock:
            self._db.execute(
                'UPDATE jobs SET state = ?, attempts = attempts + 1, worker = ?, updated_at = ?'
                ' WHERE id = ?',
                (JobStatus.RUNNING.value, worker, to_epoch(self._clock.now()), job_id),
            )

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        state = _state(error, final)
        now = to_epoch(self._clock.now())
        with self._lock:
            if state == JobStatus.QUEUED:
                self._db.execute(
                    'UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ?',
                    (state.value, error, now, job_id),
                )
            else:
                # a finished job is never replayed: its params (whole sessions) can go
                self._db.execute(
                    'UPDATE jobs SET state = ?, error = ?, result = ?, params = NULL,'
                    ' updated_at = ? WHERE id = ?',
                    (state.value, error, _dumps(result), now, job_id),
                )

    def get(self, job_id: str) -> JobInfo | None:
        """A job's state, or None."""
        with self._lock:
            row = self._db.execute(
                'SELECT id, job, state, attempts, error, result, scope, created_at, updated_at,'
                ' worker FROM jobs WHERE id = ?',
                (job_id,),
            ).fetchone()
        if row is None:
            return None
        return JobInfo(
            id=row[0],
            job=row[1],
            state=JobStatus(row[2]),
            attempts=row[3],
            error=row[4],
            result=json.loads(row[5]) if row[5] is not None else None,
            scope=row[6],
            created_at=from_epoch(row[7]),
            updated_at=from_epoch(row[8]),
            worker=row[9],
        )

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Accepted jobs that never finished, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, job, queue, params FROM jobs WHERE state IN ('queued', 'running')"
                ' ORDER BY created_at, rowid'
            ).fetchall()
        return [(r[0], r[1], r[2], json.loads(r[3] or '{}')) for r in rows]

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` unless it is held past `now`."""
        at, until = to_epoch(now), to_epoch(now) + seconds
        with self._lock:
            cursor = self._db.execute(
                'INSERT INTO leases (key, until) VALUES (?, ?) ON CONFLICT(key) DO UPDATE'
                ' SET until = excluded.until WHERE leases.until <= ?',
                (key, until, at),
            )
            return cursor.rowcount == 1

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


# Take the lease when absent or expired by the caller's clock (which tests may control).
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held and tonumber(held) > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


class RedisJobStore:
    """Job states as Redis hashes, so the API process reports what worker processes did.

    Durability of accepted jobs is the Redis broker's: `pending()` is empty here.
    """

    def __init__(self, client: Any, clock: Clock, namespace: str = 'mnemos') -> None:
        self._redis = client
        self._clock = clock
        self._ns = namespace
        self._ttl = int(KEEP_FINISHED.total_seconds())
        self._claim = client.register_script(_CLAIM)

    def _key(self, job_id: str) -> str:
        return f'{self._ns}:job:{job_id}'

    def create(
        self, job_id: str, job: str, queue: str, params: dict[str, Any], scope: str | None
    ) -> None:
        """Record an accepted job as queued."""
        now = to_epoch(self._clock.now())
        fields = {
            'id': job_id,
            'job': job,
            'queue': queue,
            'state': JobStatus.QUEUED.value,
            'attempts': 0,
            'scope': scope or '',
            'created_at': now,
            'updated_at': now,
        }
        pipe = self._redis.pipeline()
        pipe.hset(self._key(job_id), mapping=fields)
        pipe.expire(self._key(job_id), self._ttl)
        pipe.execute()

    def started(self, job_id: str, worker: str) -> None:
        """Mark running in `worker`; count the attempt."""
        pipe = self._redis.pipeline()
        pipe.hset(
            self._key(job_id),
            mapping={
                'state': JobStatus.RUNNING.value,
                'worker': worker,
                'updated_at': to_epoch(self._clock.now()),
            },
        )
        pipe.hincrby(self._key(job_id), 'attempts', 1)
        pipe.execute()

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        state = _state(error, final)
        fields: dict[str, Any] = {'state': state.value, 'updated_at': to_epoch(self._clock.now())}
        fields['error'] = error or ''
        if state != JobStatus.QUEUED:
            fields['result'] = _dumps(result)
        pipe = self._redis.pipeline()
        pipe.hset(self._key(job_id), mapping=fields)
        pipe.expire(self._key(job_id), self._ttl)
        pipe.execute()

    def get(self, job_id: str) -> JobInfo | None:
        """A job's state, or None."""
        raw = self._redis.hgetall(self._key(job_id))
        if not raw:
            return None
        row = {k.decode(): v.decode() for k, v in raw.items()}
        return JobInfo(
            id=row['id'],
            job=row['job'],
            state=JobStatus(row['state']),
            attempts=int(row.get('attempts', 0)),
            error=row.get('error') or None,
            result=json.loads(row['result']) if row.get('result') else None,
            scope=row.get('scope') or None,
            worker=row.get('worker') or None,
            created_at=from_epoch(float(row['created_at'])),
            updated_at=from_epoch(float(row['updated_at'])),
        )

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Nothing: the Redis broker keeps accepted messages itself."""
        return []

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` unless it is held past `now`."""
        at = to_epoch(now)
        ttl = max(1, int(seconds) + 1)
        taken = self._claim(keys=[f'{self._ns}:lease:{key}'], args=[at, at + seconds, ttl])
        return bool(taken)

    def close(self) -> None:
        """Release the connection pool."""
        self._redis.close()


class InMemoryJobStore:
    """JobStore in a dict: the twin used with InlineJobQueue."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._jobs: dict[str, JobInfo] = {}
        self._params: dict[str, tuple[str, str, dict[str, Any]]] = {}
        self._leases: dict[str, float] = {}
        self._lock = threading.Lock()

    def create(
        self, job_id: str, job: str, queue: str, params: dict[str, Any], scope: str | None
    ) -> None:
        """Record an accepted job as queued."""
        now = self._clock.now()
        with self._lock:
            self._jobs[job_id] = JobInfo(
                id=job_id,
                job=job,
                state=JobStatus.QUEUED,
                scope=scope,
                created_at=now,
                updated_at=now,
            )
            self._params[job_id] = (job, queue, params)

    def _update(self, job_id: str, **fields: Any) -> None:
        with self._lock:
            info = self._jobs.get(job_id)
            if info is not None:
                fields['updated_at'] = self._clock.now()
                self._jobs[job_id] = info.model_copy(update=fields)

    def started(self, job_id: str, worker: str) -> None:
        """Mark running in `worker`; count the attempt."""
        info = self._jobs.get(job_id)
        attempts = (info.attempts if info else 0) + 1
        self._update(job_id, state=JobStatus.RUNNING, attempts=attempts, worker=worker)

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        if error is None:
            self._update(job_id, state=JobStatus.DONE, result=result)
        elif final:
            self._update(job_id, state=JobStatus.FAILED, error=error, result=result)
        else:
            self._update(job_id, state=JobStatus.QUEUED, error=error)
        if error is None or final:
            self._params.pop(job_id, None)

    def get(self, job_id: str) -> JobInfo | None:
        """A job's state, or None."""
        return self._jobs.get(job_id)

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Accepted jobs that never finished."""
        with self._lock:
            return [(i, *self._params[i]) for i in self._params]

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` unless it is held past `now`."""
        at = to_epoch(now)
        with self._lock:
            if self._leases.get(key, float('-inf')) > at:
                return False
            self._leases[key] = at + seconds
            return True

    def close(self) -> None:
        """Nothing to release."""
