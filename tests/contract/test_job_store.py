"""The JobStore contract, over every adapter: in memory, the SQLite outbox and Redis."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.clock import ManualClock
from jobs.models import JobStatus
from jobs.owners import process_owner
from jobs.ports import JobStore
from jobs.store import InMemoryJobStore, RedisJobStore, SqliteJobStore

KINDS = ['memory', 'sqlite', pytest.param('redis', marks=pytest.mark.integration)]


def _redis() -> Any:
    import redis

    client = redis.Redis(host='127.0.0.1', port=6379, db=13, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        if os.environ.get('CI'):
            pytest.fail(f'Redis is unreachable at 127.0.0.1:6379: {exc}')
        pytest.skip(f'Redis is unreachable at 127.0.0.1:6379: {exc}')
    return client


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[JobStore]:
    made: JobStore
    if request.param == 'memory':
        made = InMemoryJobStore(clock)
    elif request.param == 'sqlite':
        made = SqliteJobStore(tmp_path / 'jobs.sqlite3', clock)
    else:
        client = _redis()
        namespace = f'mnemos-contract-{uuid.uuid4().hex[:8]}'
        made = RedisJobStore(client, clock, namespace=namespace)
        yield made
        for key in client.scan_iter(f'{namespace}:*'):
            client.delete(key)
        made.close()
        return
    yield made
    made.close()


def test_an_accepted_job_is_queued_with_its_scope(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', {'scope': 'agent:a'}, 'agent:a')
    info = store.get('j1')
    assert info is not None
    assert (info.id, info.job, info.state, info.attempts) == ('j1', 'episodic', 'queued', 0)
    assert info.scope == 'agent:a'


def test_recent_jobs_are_the_newest_first_of_one_scope_or_of_all(
    store: JobStore, clock: ManualClock
):
    for name, scope in (('j1', 'agent:a'), ('j2', None), ('j3', 'agent:b'), ('j4', 'agent:a')):
        store.create(name, 'episodic', 'consolidation', {}, scope)
        clock.advance(timedelta(seconds=1))
    store.started('j1', 'host:1')
    assert [j.id for j in store.recent('agent:a', 10)] == ['j4', 'j1']
    assert store.recent('agent:a', 10)[1].state == 'running'
    assert [j.id for j in store.recent(None, 3)] == ['j4', 'j3', 'j2']
    assert store.recent('agent:nobody', 10) == []


def test_an_unknown_job_is_none(store: JobStore):
    assert store.get('nope') is None


def test_a_started_job_runs_in_a_named_worker_and_counts_the_attempt(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', {}, None)
    store.started('j1', 'host:1')
    info = store.get('j1')
    assert info is not None
    assert (info.state, info.attempts, info.worker) == (JobStatus.RUNNING, 1, 'host:1')


def test_a_retried_failure_is_queued_again_and_a_final_one_failed(store: JobStore):
    store.create('j1', 'dedup', 'graph', {}, None)
    store.started('j1', 'host:1')
    store.finished('j1', error='boom', final=False)
    again = store.get('j1')
    assert again is not None and (again.state, again.error) == (JobStatus.QUEUED, 'boom')
    store.started('j1', 'host:1')
    store.finished('j1', error='boom twice', final=True)
    failed = store.get('j1')
    assert failed is not None
    assert (failed.state, failed.attempts, failed.error) == (JobStatus.FAILED, 2, 'boom twice')


def test_a_done_job_keeps_its_result_and_its_update_time(store: JobStore, clock: ManualClock):
    store.create('j1', 'expiry', 'consolidation', {}, None)
    store.started('j1', 'host:1')
    clock.advance(timedelta(seconds=5))
    store.finished('j1', result={'episodes_expired': 2})
    done = store.get('j1')
    assert done is not None
    assert (done.state, done.result) == (JobStatus.DONE, {'episodes_expired': 2})
    assert done.updated_at > done.created_at


def test_a_lease_is_held_until_it_expires(store: JobStore, clock: ManualClock):
    t0 = clock.now()
    assert store.claim('k', t0, 600)
    assert not store.claim('k', t0 + timedelta(seconds=599), 600)
    assert store.claim('k', t0 + timedelta(seconds=600), 600)
    assert store.claim('other', t0, 600)


@pytest.mark.parametrize('store', ['memory', 'sqlite'], indirect=True)
def test_an_outbox_lists_the_jobs_not_finished(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', {'n': 1}, None)
    store.create('j2', 'expiry', 'consolidation', {}, None)
    store.started('j1', 'host:1')
    store.finished('j1', result=None)
    assert [(p[0], p[1], p[3]) for p in store.pending()] == [('j2', 'expiry', {})]


def _session(scope: str, user: str | None, words: str = 'a transcript') -> dict[str, Any]:
    return {'scope': scope, 'user_id': user, 'messages': [{'role': 'user', 'content': words}]}


def _states(store: JobStore, *ids: str) -> list[str]:
    return [str(info.state) if (info := store.get(i)) else 'gone' for i in ids]


def test_cancelling_a_user_cancels_their_unfinished_jobs_only(store: JobStore):
    store.create('ann', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.create(
        'run', 'dreaming', 'consolidation', {'scope': 'agent:a', 'user_id': 'ann'}, 'agent:a'
    )
    store.started('run', 'host:1')
    store.create('done', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.finished('done', result={'ok': 1})
    store.create('joe', 'episodic', 'consolidation', _session('agent:a', 'joe'), 'agent:a')
    store.create('away', 'episodic', 'consolidation', _session('agent:b', 'ann'), 'agent:b')
    store.create('sys', 'expiry', 'consolidation', {}, None)
    assert store.cancel('agent:a', 'ann') == 2
    assert _states(store, 'ann', 'run', 'done', 'joe', 'away', 'sys') == [
        'cancelled',
        'cancelled',
        'done',
        'queued',
        'queued',
        'queued',
    ]
    info = store.get('ann')
    assert info is not None and info.error and 'forgotten' in info.error
    # without a scope, the user is cancelled in every scope
    assert store.cancel(None, 'ann') == 1
    assert _states(store, 'away', 'joe') == ['cancelled', 'queued']


def test_cancelling_a_scope_cancels_every_unfinished_job_in_it(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', None), 'agent:a')
    store.create('j2', 'semantic', 'graph', {'scope': 'agent:a', 'episode_id': 'e'}, 'agent:a')
    store.create('j3', 'episodic', 'consolidation', _session('agent:b', None), 'agent:b')
    assert store.cancel('agent:a', None) == 2
    assert _states(store, 'j1', 'j2', 'j3') == ['cancelled', 'cancelled', 'queued']
    assert store.cancel('agent:a', None) == 0  # already final


def test_a_cancelled_job_stays_cancelled_whatever_the_worker_reports(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.started('j1', 'host:1')
    store.cancel('agent:a', 'ann')
    store.finished('j1', error='WaitForLock', final=False)
    store.started('j1', 'host:1')
    store.finished('j1', result={'episode_id': 'e'})
    info = store.get('j1')
    assert info is not None and (info.state, info.attempts) == (JobStatus.CANCELLED, 1)


def test_a_cancelled_job_still_running_is_listed_until_its_worker_reports(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.create('j2', 'episodic', 'consolidation', _session('agent:a', 'joe'), 'agent:a')
    store.create('j3', 'episodic', 'consolidation', _session('agent:b', 'ann'), 'agent:b')
    assert store.running('agent:a', 'ann') == []  # queued is not running
    for job in ('j1', 'j2', 'j3'):
        assert store.started(job, 'host:1')
    assert store.running('agent:a', 'ann') == ['j1']
    assert sorted(store.running(None, 'ann')) == ['j1', 'j3']
    assert sorted(store.running('agent:a', None)) == ['j1', 'j2']
    store.cancel(None, 'ann')
    # cancelled, yet its worker still runs it: it may still write
    assert sorted(store.running(None, 'ann')) == ['j1', 'j3']
    store.finished('j1', result={'episode_id': 'e'})
    store.finished('j3', error='WaitForLock', final=False)
    assert store.running(None, 'ann') == []
    assert _states(store, 'j1', 'j3') == ['cancelled', 'cancelled']


def test_a_job_cancelled_before_it_starts_may_not_start(store: JobStore):
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.cancel('agent:a', 'ann')
    assert not store.started('j1', 'host:1')
    assert store.running('agent:a', 'ann') == []
    info = store.get('j1')
    assert info is not None and (info.state, info.attempts) == (JobStatus.CANCELLED, 0)


def test_cancel_needs_a_scope_or_a_user(store: JobStore):
    with pytest.raises(ValueError):
        store.cancel(None, None)


@pytest.mark.parametrize('store', ['memory', 'sqlite'], indirect=True)
def test_a_cancelled_job_leaves_the_outbox_and_its_transcript_the_disk(
    store: JobStore, tmp_path: Path
):
    secret = 'Ann whispered the gate code tangerine-0421 ' * 20
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', 'ann', secret), 'agent:a')
    store.create('j2', 'episodic', 'consolidation', _session('agent:a', 'joe'), 'agent:a')
    assert store.cancel('agent:a', 'ann') == 1
    assert [p[0] for p in store.pending()] == ['j2']
    on_disk = b''.join(f.read_bytes() for f in tmp_path.glob('jobs.sqlite3*'))
    assert b'tangerine-0421' not in on_disk


def test_a_lock_is_held_until_it_expires_and_says_how_long(store: JobStore, clock: ManualClock):
    t0 = clock.now()
    assert store.lock('episode:1', t0, 120) == 0.0
    assert store.lock('episode:1', t0 + timedelta(seconds=20), 120) == pytest.approx(100.0)
    assert store.lock('episode:1', t0 + timedelta(seconds=120), 120) == 0.0
    assert store.lock('episode:2', t0, 120) == 0.0
    # locks and leases are separate: a lock does not hold a lease of the same key
    assert store.claim('episode:2', t0, 120)


def _dead_owner() -> str:
    """The owner record of a process of this host that has exited."""
    import socket
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, '-c', 'pass'])
    proc.wait()
    return f'{socket.gethostname()}:{proc.pid}:00000000.1'


@pytest.mark.parametrize(
    'store', ['sqlite', pytest.param('redis', marks=pytest.mark.integration)], indirect=True
)
def test_a_lock_whose_owner_died_is_taken_over_at_once(store: Any, clock: ManualClock):
    """kill -9 leaves a job's lock behind; the restarted process must not wait out its TTL."""
    t0 = clock.now()
    owner = _dead_owner()
    until = t0.timestamp() + 120
    if isinstance(store, SqliteJobStore):
        store._db.execute(
            'INSERT INTO leases (key, until, owner) VALUES (?, ?, ?)',
            ('lock:episode:9', until, owner),
        )
    else:
        store._redis.set(f'{store._ns}:lock:episode:9', f'{until}|{owner}', ex=130)
    assert store.lock('episode:9', t0 + timedelta(seconds=1), 120) == 0.0
    # now this live process holds it
    assert store.lock('episode:9', t0 + timedelta(seconds=2), 120) > 100


@pytest.mark.parametrize(
    'store', ['sqlite', pytest.param('redis', marks=pytest.mark.integration)], indirect=True
)
def test_a_job_whose_process_died_running_it_is_not_running(store: Any):
    """kill -9 of a worker leaves its job marked running: forget must not wait for it."""
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store.create('j2', 'episodic', 'consolidation', _session('agent:a', 'ann'), 'agent:a')
    store._owner = _dead_owner()
    store.started('j1', 'host:1')
    store._owner = process_owner()
    store.started('j2', 'host:2')
    assert store.running('agent:a', 'ann') == ['j2']


def test_owner_liveness_tells_a_dead_or_recycled_pid_from_a_live_one():
    import os
    import socket

    from jobs.store import owner_alive, process_owner

    me = process_owner()
    assert owner_alive(me)
    host, pid, _token = me.split(':', 2)
    assert not owner_alive(f'{host}:{pid}:00000000.1')  # same pid, another process start
    assert not owner_alive(_dead_owner())
    assert owner_alive(f'another-{socket.gethostname()}:{os.getpid()}:x')  # cannot tell: alive
    assert owner_alive('')  # an unknown (old) owner record


def test_a_cancel_that_fails_part_way_cancels_nothing(tmp_path: Path, clock: ManualClock):
    import sqlite3

    store = SqliteJobStore(tmp_path / 'jobs.sqlite3', clock)
    store.create('j1', 'episodic', 'consolidation', _session('agent:a', None), 'agent:a')
    store.create('j2', 'episodic', 'consolidation', _session('agent:a', None), 'agent:a')
    # the disk refuses the second row's update, after the first was written in the same cancel
    other = sqlite3.connect(tmp_path / 'jobs.sqlite3')
    other.execute(
        "CREATE TRIGGER refuse BEFORE UPDATE OF state ON jobs WHEN NEW.id = 'j2'"
        " BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
    )
    other.commit()
    with pytest.raises(sqlite3.DatabaseError, match='disk trouble'):
        store.cancel('agent:a', None)
    other.execute('DROP TRIGGER refuse')
    other.commit()
    other.close()
    # neither job was cancelled nor lost its params, and the store takes the next transaction
    assert _states(store, 'j1', 'j2') == ['queued', 'queued']
    assert sorted(p[0] for p in store.pending()) == ['j1', 'j2']
    assert store.cancel('agent:a', None) == 2
    store.close()
