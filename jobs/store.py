"""JobStore adapters: a SQLite outbox (embedded), Redis hashes (server) and an in-memory twin."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.clock import Clock, from_epoch, to_epoch
from core.errors import StoreUnavailable
from core.transactions import transaction
from jobs.models import JobInfo, JobStatus
from jobs.owners import owner_alive, process_owner

log = logging.getLogger(__name__)

FILENAME = 'jobs.sqlite3'
# finished jobs stay readable this long, then they are forgotten
KEEP_FINISHED = timedelta(days=7)
# params this large hold memory text (a session transcript): when such a job finishes, the WAL
# is checkpointed so the text leaves the disk too; small params (ids) are not worth the fsync
TRANSCRIPT_BYTES = 256
CANCELLED_ERROR = 'cancelled: its scope or user was forgotten'

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
    updated_at REAL NOT NULL,
    user_id TEXT,
    live INTEGER NOT NULL DEFAULT 0,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state);
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    until REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT ''
);
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _user_of(params: dict[str, Any]) -> str | None:
    user = params.get('user_id')
    return user if isinstance(user, str) else None


def _targets(scope: str | None, user_id: str | None) -> None:
    if scope is None and user_id is None:
        raise ValueError('cancel needs a scope, a user_id or both')


_COLUMNS = 'id, job, state, attempts, error, result, scope, created_at, updated_at, worker'


def _row_info(row: Sequence[Any]) -> JobInfo:
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


def newest(jobs: Iterable[JobInfo], scope: str | None, limit: int) -> list[JobInfo]:
    """The `limit` newest of `jobs` of `scope` (every scope when None)."""
    mine = [j for j in jobs if scope is None or j.scope == scope]
    return sorted(mine, key=lambda j: j.created_at, reverse=True)[:limit]


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
            # cleared params (whole session transcripts) are overwritten, not left in free pages
            self._db.execute('PRAGMA secure_delete=ON')
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f'cannot open the job outbox {path}: {exc}') from exc
        self._owner = process_owner()
        self._prune()

    def _migrate(self) -> None:
        columns = {row[1] for row in self._db.execute('PRAGMA table_info(leases)')}
        if 'owner' not in columns:  # a data dir from before locks recorded their owner
            self._db.execute("ALTER TABLE leases ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
        columns = {row[1] for row in self._db.execute('PRAGMA table_info(jobs)')}
        # a data dir from before running jobs were tracked across a cancel
        for column, kind in (('user_id', 'TEXT'), ('live', 'INTEGER NOT NULL DEFAULT 0')):
            if column not in columns:
                self._db.execute(f'ALTER TABLE jobs ADD COLUMN {column} {kind}')
        if 'owner' not in columns:
            self._db.execute('ALTER TABLE jobs ADD COLUMN owner TEXT')

    def _prune(self) -> None:
        cutoff = to_epoch(self._clock.now() - KEEP_FINISHED)
        with self._lock:
            self._db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed', 'cancelled')"
                ' AND updated_at < ?',
                (cutoff,),
            )

    def create(
        self, job_id: str, job: str, queue: str, params: dict[str, Any], scope: str | None
    ) -> None:
        """Record an accepted job as queued."""
        now = to_epoch(self._clock.now())
        with self._lock:
            self._db.execute(
                'INSERT OR IGNORE INTO jobs (id, job, queue, params, scope, user_id, state,'
                ' created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
                (
                    job_id,
                    job,
                    queue,
                    _dumps(params),
                    scope,
                    _user_of(params),
                    JobStatus.QUEUED.value,
                    now,
                    now,
                ),
            )

    def started(self, job_id: str, worker: str) -> bool:
        """Mark running in `worker` (this process) and count the attempt; False when the job
        was cancelled."""
        now = to_epoch(self._clock.now())
        with self._lock:
            cursor = self._db.execute(
                'UPDATE jobs SET state = ?, attempts = attempts + 1, worker = ?, updated_at = ?,'
                " live = 1, owner = ? WHERE id = ? AND state != 'cancelled'",
                (JobStatus.RUNNING.value, worker, now, self._owner, job_id),
            )
            if cursor.rowcount == 1:
                return True
            row = self._db.execute('SELECT state FROM jobs WHERE id = ?', (job_id,)).fetchone()
        return row is None or row[0] != JobStatus.CANCELLED.value

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        state = _state(error, final)
        now = to_epoch(self._clock.now())
        with self._lock:
            self._db.execute('UPDATE jobs SET live = 0 WHERE id = ?', (job_id,))
            if state == JobStatus.QUEUED:
                self._db.execute(
                    'UPDATE jobs SET state = ?, error = ?, updated_at = ?'
                    " WHERE id = ? AND state != 'cancelled'",
                    (state.value, error, now, job_id),
                )
            else:
                # a finished job is never replayed: its params (whole sessions) can go
                row = self._db.execute(
                    'SELECT length(params) FROM jobs WHERE id = ?', (job_id,)
                ).fetchone()
                self._db.execute(
                    'UPDATE jobs SET state = ?, error = ?, result = ?, params = NULL,'
                    " updated_at = ? WHERE id = ? AND state != 'cancelled'",
                    (state.value, error, _dumps(result), now, job_id),
                )
                if row is not None and (row[0] or 0) >= TRANSCRIPT_BYTES:
                    # the WAL still holds the transcript as first written: fold it into the
                    # database (where secure_delete zeroes it) and truncate the WAL file
                    self._db.execute('PRAGMA wal_checkpoint(TRUNCATE)')

    def get(self, job_id: str) -> JobInfo | None:
        """A job's state, or None."""
        with self._lock:
            row = self._db.execute(
                f'SELECT {_COLUMNS} FROM jobs WHERE id = ?', (job_id,)
            ).fetchone()
        return _row_info(row) if row is not None else None

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (of every scope, system jobs included, when None)."""
        with self._lock:
            rows = self._db.execute(
                f'SELECT {_COLUMNS} FROM jobs WHERE ? IS NULL OR scope = ?'
                ' ORDER BY created_at DESC, rowid DESC LIMIT ?',
                (scope, scope, limit),
            ).fetchall()
        return [_row_info(row) for row in rows]

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Accepted jobs that never finished, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, job, queue, params FROM jobs WHERE state IN ('queued', 'running')"
                ' ORDER BY created_at, rowid'
            ).fetchall()
        return [(r[0], r[1], r[2], json.loads(r[3] or '{}')) for r in rows]

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Cancel the unfinished jobs of `scope` (and `user_id`) and erase their params."""
        _targets(scope, user_id)
        now = to_epoch(self._clock.now())
        with self._lock:
            # all or none: a cancel that fails part-way must not leave some of the scope's jobs
            # running with their params erased from the others
            with transaction(self._db, 'BEGIN IMMEDIATE'):
                rows = self._db.execute(
                    "SELECT id, length(params) FROM jobs WHERE state IN ('queued', 'running')"
                    ' AND (?1 IS NULL OR scope = ?1)'
                    " AND (?2 IS NULL OR json_extract(params, '$.user_id') = ?2)",
                    (scope, user_id),
                ).fetchall()
                self._db.executemany(
                    'UPDATE jobs SET state = ?, error = ?, params = NULL, updated_at = ?'
                    ' WHERE id = ?',
                    [(JobStatus.CANCELLED.value, CANCELLED_ERROR, now, row[0]) for row in rows],
                )
            if any((row[1] or 0) >= TRANSCRIPT_BYTES for row in rows):
                # as for a finished job: the transcript must leave the WAL file too
                self._db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
        return len(rows)

    def running(self, scope: str | None, user_id: str | None) -> list[str]:
        """Jobs of `scope` (and `user_id`) a live process runs, cancelled ones included."""
        with self._lock:
            rows = self._db.execute(
                'SELECT id, owner FROM jobs WHERE live = 1 AND (?1 IS NULL OR scope = ?1)'
                " AND (?2 IS NULL OR coalesce(user_id, json_extract(params, '$.user_id')) = ?2)"
                ' ORDER BY created_at, rowid',
                (scope, user_id),
            ).fetchall()
        return [row[0] for row in rows if not row[1] or owner_alive(row[1])]

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

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take lock `key` for this process unless a live owner holds it past `now`.

        0.0 when taken, else the seconds until the holder's lock ends.
        """
        at = to_epoch(now)
        key = f'lock:{key}'  # the leases table holds both; a lock never blocks a lease
        with self._lock, transaction(self._db, 'BEGIN IMMEDIATE'):
            row = self._db.execute(
                'SELECT until, owner FROM leases WHERE key = ?', (key,)
            ).fetchone()
            if row is not None and row[0] > at and (not row[1] or owner_alive(row[1])):
                return float(row[0] - at)
            if row is not None and row[0] > at:
                log.info('lock %s: its owner %s is gone; taken over', key, row[1])
            self._db.execute(
                'INSERT INTO leases (key, until, owner) VALUES (?, ?, ?) ON CONFLICT(key)'
                ' DO UPDATE SET until = excluded.until, owner = excluded.owner',
                (key, at + seconds, self._owner),
            )
            return 0.0

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
# A lock's value is `until|owner`. Take it when absent, expired, or still holding ARGV[4] (the
# value of a holder found dead); else return the holder's value.
_LOCK = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[4] then
  local untl = tonumber(string.match(held, '^[^|]+'))
  if untl and untl > tonumber(ARGV[1]) then return held end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return false
"""
# Start a job (KEYS[1] its hash, KEYS[2] the set of running jobs) unless it was cancelled (a
# final state no later event may undo): 0 then, else 1 (also for a job the store no longer
# knows, which is run but not tracked). ARGV: job id, worker, owner, updated_at.
_START = """
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'cancelled' then return 0 end
if not state then return 1 end
redis.call('HSET', KEYS[1], 'state', 'running', 'worker', ARGV[2], 'owner', ARGV[3],
  'updated_at', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""
# A job's attempt ended: it leaves the running set, and its hash is updated unless it was
# cancelled. ARGV: job id, ttl, then field, value pairs.
_FINISH = """
redis.call('SREM', KEYS[2], ARGV[1])
local state = redis.call('HGET', KEYS[1], 'state')
if not state or state == 'cancelled' then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
# Cancel one job when unfinished and of scope ARGV[1] and user ARGV[2] ('' matches any).
_CANCEL = """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'queued' and state ~= 'running' then return 0 end
if ARGV[1] ~= '' and redis.call('HGET', KEYS[1], 'scope') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'user_id') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'cancelled', 'error', ARGV[3], 'updated_at', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
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
        self._lock_script = client.register_script(_LOCK)
        self._start = client.register_script(_START)
        self._finish = client.register_script(_FINISH)
        self._cancel = client.register_script(_CANCEL)
        self._owner = process_owner()

    def _key(self, job_id: str) -> str:
        return f'{self._ns}:job:{job_id}'

    @property
    def _live(self) -> str:
        # ids of the jobs started and not finished: what forget waits for, cancelled or not
        return f'{self._ns}:running'

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
            'user_id': _user_of(params) or '',  # what forget-by-user cancels on
            'created_at': now,
            'updated_at': now,
        }
        pipe = self._redis.pipeline()
        pipe.hset(self._key(job_id), mapping=fields)
        pipe.expire(self._key(job_id), self._ttl)
        pipe.execute()

    def started(self, job_id: str, worker: str) -> bool:
        """Mark running in `worker` (this process) and count the attempt; False when the job
        was cancelled."""
        args = [job_id, worker, self._owner, to_epoch(self._clock.now())]
        return bool(self._start(keys=[self._key(job_id), self._live], args=args))

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        state = _state(error, final)
        fields: dict[str, Any] = {'state': state.value, 'updated_at': to_epoch(self._clock.now())}
        fields['error'] = error or ''
        if state != JobStatus.QUEUED:
            fields['result'] = _dumps(result)
        pairs = [str(item) for pair in fields.items() for item in pair]
        self._finish(keys=[self._key(job_id), self._live], args=[job_id, self._ttl, *pairs])

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

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (every scope when None) still kept (7 days)."""
        # an inspector's look, not a hot path: a scan of the job hashes beats an index per scope
        keys = self._redis.scan_iter(f'{self._ns}:job:*', count=1000)
        found = (self.get(k.decode().rsplit(':', 1)[1]) for k in keys)
        return newest((j for j in found if j is not None), scope, limit)

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Nothing: the Redis broker keeps accepted messages itself."""
        return []

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Cancel the unfinished jobs of `scope` (and `user_id`). Params live in the broker's
        message, not here: the actor skips the message of a cancelled job when it comes."""
        _targets(scope, user_id)
        now = to_epoch(self._clock.now())
        args = [scope or '', user_id or '', CANCELLED_ERROR, now, self._ttl]
        cancelled = 0
        # forgetting is rare and admin-only: a scan of the job hashes beats an index per scope
        for key in self._redis.scan_iter(f'{self._ns}:job:*', count=1000):
            cancelled += int(self._cancel(keys=[key], args=args))
        return cancelled

    def running(self, scope: str | None, user_id: str | None) -> list[str]:
        """Jobs of `scope` (and `user_id`) a live process runs, cancelled ones included."""
        found = []
        for raw in sorted(self._redis.smembers(self._live)):
            job_id = raw.decode()
            fields = self._redis.hmget(self._key(job_id), 'scope', 'user_id', 'owner')
            if fields[0] is None:  # the job's hash expired: nothing to wait for
                self._redis.srem(self._live, job_id)
                continue
            job_scope, job_user, owner = (f.decode() if f else '' for f in fields)
            if scope is not None and job_scope != scope:
                continue
            if user_id is not None and job_user != user_id:
                continue
            if owner_alive(owner):
                found.append(job_id)
        return found

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` unless it is held past `now`."""
        at = to_epoch(now)
        ttl = max(1, int(seconds) + 1)
        taken = self._claim(keys=[f'{self._ns}:lease:{key}'], args=[at, at + seconds, ttl])
        return bool(taken)

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take lock `key` for this process unless a live owner holds it past `now`.

        0.0 when taken, else the seconds until the holder's lock ends.
        """
        at = to_epoch(now)
        ttl = max(1, int(seconds) + 1)
        value = f'{at + seconds}|{self._owner}'
        keys = [f'{self._ns}:lock:{key}']
        held = self._lock_script(keys=keys, args=[at, value, ttl, ''])
        if held is None:
            return 0.0
        held = held.decode() if isinstance(held, bytes) else str(held)
        until, _, owner = held.partition('|')
        if not owner_alive(owner):
            log.info('lock %s: its owner %s is gone; taken over', key, owner)
            again = self._lock_script(keys=keys, args=[at, value, ttl, held])
            if again is None:
                return 0.0
            until = (again.decode() if isinstance(again, bytes) else str(again)).split('|')[0]
        return max(0.0, float(until) - at)

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
        self._locks: dict[str, float] = {}
        self._live: dict[str, tuple[Any, str | None]] = {}  # job id -> (scope, user_id)
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
            if info is not None and info.state != JobStatus.CANCELLED:
                fields['updated_at'] = self._clock.now()
                self._jobs[job_id] = info.model_copy(update=fields)

    def started(self, job_id: str, worker: str) -> bool:
        """Mark running in `worker`; count the attempt; False when the job was cancelled."""
        with self._lock:
            info = self._jobs.get(job_id)
            if info is not None and info.state == JobStatus.CANCELLED:
                return False
            params = self._params.get(job_id, ('', '', {}))[2]
            self._live[job_id] = (params.get('scope'), _user_of(params))
        attempts = (info.attempts if info else 0) + 1
        self._update(job_id, state=JobStatus.RUNNING, attempts=attempts, worker=worker)
        return True

    def finished(
        self, job_id: str, *, result: Any = None, error: str | None = None, final: bool = True
    ) -> None:
        """Done, failed, or queued again for a retry."""
        with self._lock:
            self._live.pop(job_id, None)
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

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (every scope when None)."""
        with self._lock:
            return newest(list(self._jobs.values()), scope, limit)

    def pending(self) -> Sequence[tuple[str, str, str, dict[str, Any]]]:
        """Accepted jobs that never finished."""
        with self._lock:
            return [(i, *self._params[i]) for i in self._params]

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Cancel the unfinished jobs of `scope` (and `user_id`) and drop their params."""
        _targets(scope, user_id)
        now = self._clock.now()
        with self._lock:
            hits = [
                job_id
                for job_id, (_job, _queue, params) in self._params.items()
                if (scope is None or params.get('scope') == scope)
                and (user_id is None or _user_of(params) == user_id)
                and self._jobs[job_id].state in (JobStatus.QUEUED, JobStatus.RUNNING)
            ]
            for job_id in hits:
                del self._params[job_id]
                self._jobs[job_id] = self._jobs[job_id].model_copy(
                    update={
                        'state': JobStatus.CANCELLED,
                        'error': CANCELLED_ERROR,
                        'updated_at': now,
                    }
                )
        return len(hits)

    def running(self, scope: str | None, user_id: str | None) -> list[str]:
        """Jobs of `scope` (and `user_id`) started and not finished, cancelled ones included."""
        with self._lock:
            return [
                job_id
                for job_id, (job_scope, job_user) in self._live.items()
                if (scope is None or job_scope == scope)
                and (user_id is None or job_user == user_id)
            ]

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take lease `key` unless it is held past `now`."""
        at = to_epoch(now)
        with self._lock:
            if self._leases.get(key, float('-inf')) > at:
                return False
            self._leases[key] = at + seconds
            return True

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take lock `key` unless held past `now`: 0.0 when taken, else the seconds left."""
        at = to_epoch(now)
        with self._lock:
            until = self._locks.get(key, float('-inf'))
            if until > at:
                return until - at
            self._locks[key] = at + seconds
            return 0.0

    def close(self) -> None:
        """Nothing to release."""
