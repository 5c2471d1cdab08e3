"""JobQueue adapters: dramatiq on an in-process StubBroker or a RedisBroker, and an inline twin.

Queues: `graph` holds every job that touches Kuzu (index_graph, semantic, dedup) and is consumed
only by the graph-owning process (the service itself; in server mode the API process, since Kuzu
allows one read-write process per database). `consolidation` holds the rest (episodic, dreaming,
expiry), consumed by in-process threads (embedded) or `mnemos worker` processes (server).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import dramatiq
from dramatiq.errors import BrokerConnectionError
from dramatiq.middleware import CurrentMessage, Retries, SkipMessage

from core.clock import Clock
from core.errors import StoreUnavailable
from core.jobs import JobName
from jobs import actors
from jobs.models import JobInfo
from jobs.ports import JobStore
from jobs.store import FILENAME, InMemoryJobStore, RedisJobStore, SqliteJobStore

if TYPE_CHECKING:
    from core.settings import Settings

log = logging.getLogger(__name__)

Runner = Callable[[str, dict[str, Any]], Any]

GRAPH_QUEUE = 'graph'
DEFAULT_QUEUE = 'consolidation'
# Jobs that open Kuzu go to the graph owner; anything not listed runs on the default queue.
JOB_QUEUES: dict[str, str] = {
    JobName.INDEX_GRAPH: GRAPH_QUEUE,
    JobName.FORGET_MENTIONS: GRAPH_QUEUE,
    JobName.SEMANTIC: GRAPH_QUEUE,
    JobName.DEDUP: GRAPH_QUEUE,
    JobName.COMPACT: GRAPH_QUEUE,
}
WORKER_QUEUES = frozenset({DEFAULT_QUEUE})
EXPIRY_JOB = JobName.EXPIRY
WORKER_ID = f'{socket.gethostname()}:{os.getpid()}'  # spawned worker processes import anew
# how often a forget waiting for a running job asks the job store (it waits in one request)
RUNNING_POLL_S = 0.05
# how long a closing queue waits for job threads to end once their extraction was closed
JOIN_S = 1.0


class _JobArgsOutOfLogs(logging.Filter):
    """dramatiq logs a failed message with its arguments, which for a session job are the whole
    transcript; above DEBUG a message is logged as `actor[id]` only, so no memory text reaches
    the logs unless DEBUG is asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG and isinstance(record.args, tuple):
            record.args = tuple(_brief(arg) for arg in record.args)
        return True


def _brief(arg: Any) -> Any:
    if hasattr(arg, 'message_id') and hasattr(arg, 'actor_name'):
        return f'{arg.actor_name}[{arg.message_id}]'
    return arg


_WORKER_LOG = logging.getLogger('dramatiq.worker.WorkerThread')
if not any(isinstance(f, _JobArgsOutOfLogs) for f in _WORKER_LOG.filters):
    _WORKER_LOG.addFilter(_JobArgsOutOfLogs())


def queue_of(job: str) -> str:
    """The queue a job is routed to."""
    return JOB_QUEUES.get(job, DEFAULT_QUEUE)


class JobStateMiddleware(dramatiq.Middleware):
    """Records running/done/failed in the JobStore; installed before Retries so that its
    `after_process_message` runs after Retries has decided whether the message failed for good.

    A message whose job was cancelled (its scope or user forgotten) is skipped, not run: the
    broker may still deliver it (a retry waiting for a lock, a Redis queue). The store checks
    and marks the start in one step, so a job is either skipped or seen running (in whichever
    process) by the forget that cancelled it, which waits for it to end.

    The store is closed through `close()`: a job thread that outlived the stop's wait for it
    then reports nothing (its job stays unfinished in the store, so it runs again at the next
    start) instead of writing to a closed database."""

    def __init__(self, store: JobStore) -> None:
        self._store = store
        # held while a report is written, so the store never closes in the middle of one
        self._gate = threading.Lock()
        self._closed = False

    def before_process_message(self, broker: dramatiq.Broker, message: Any) -> None:
        with self._gate:
            if not self._closed and not self._store.started(message.message_id, WORKER_ID):
                raise SkipMessage(f'job {message.message_id} was cancelled')

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: Any,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        value = actors.take_result()
        with self._gate:
            if self._closed:
                log.info('job %s ended after the stop: it runs again at the next start', message)
            elif exception is None:
                self._store.finished(message.message_id, result=value)
            else:
                error = f'{type(exception).__name__}: {exception}'
                self._store.finished(message.message_id, error=error, final=bool(message.failed))

    def after_skip_message(self, broker: dramatiq.Broker, message: Any) -> None:
        # a cancelled job keeps its state: the store never moves a job out of `cancelled`
        with self._gate:
            if not self._closed:
                self._store.finished(message.message_id, error='skipped by the broker', final=True)

    def close(self) -> None:
        """Close the store once no report is being written; later reports are dropped."""
        with self._gate:
            self._closed = True
            self._store.close()


class _FailureListeners(dramatiq.Middleware):
    """Tells listeners (e.g. metrics) of each job attempt that raised in this process."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[str, bool], None]] = []

    def after_process_message(
        self, broker: Any, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        if exception is None or isinstance(exception, (actors.WaitForLock, actors.Interrupted)):
            return  # waiting for another run's lock, or a stop, is not a failed attempt
        final = bool(getattr(message, 'failed', False))
        for listener in self.listeners:
            try:
                listener(message.actor_name, final)
            except Exception:
                log.exception('a job-failure listener failed')


class DramatiqJobQueue:
    """JobQueue on dramatiq: records each job in the JobStore, then sends it to the broker.

    `start()` replays jobs the store still holds as pending (the embedded outbox), starts a
    dramatiq Worker on the chosen queues, and a scheduler thread for the periodic expiry sweep.
    """

    def __init__(
        self,
        broker: dramatiq.Broker,
        store: JobStore,
        runner: Runner,
        clock: Clock,
        *,
        threads: int,
        default_queues: frozenset[str] | None,
        expiry_interval: float,
    ) -> None:
        self.broker = broker
        self._store = store
        self._runner = runner
        self._clock = clock
        self._threads = threads
        self._default_queues = default_queues
        self._expiry_interval = expiry_interval
        self._lock = threading.Lock()
        self._worker: dramatiq.Worker | None = None
        self._stop = threading.Event()  # set when the stop begins: see `stop`
        self._scheduler: threading.Thread | None = None
        self._closed = False
        self._state = JobStateMiddleware(store)
        broker.add_middleware(self._state, before=Retries)
        # lets a job waiting for a lock back off by its own retry count (jobs.actors)
        broker.add_middleware(CurrentMessage())
        self._failures = _FailureListeners()
        broker.add_middleware(self._failures)
        for queue in (GRAPH_QUEUE, DEFAULT_QUEUE):
            broker.declare_queue(queue)
        self._actors: dict[str, dramatiq.Actor[Any, Any]] = {}
        for name in JobName:
            self._actors[name] = actors.declare(
                broker, str(name), queue_of(name), runner, self._stop
            )
        self._declare = actors.declare

    def _actor(self, job: str) -> dramatiq.Actor[Any, Any]:
        with self._lock:
            actor = self._actors.get(job)
            if actor is None:  # not a JobName: the handler table refuses it when it runs
                actor = self._actors[job] = self._declare(
                    self.broker, job, queue_of(job), self._runner, self._stop
                )
            return actor

    def on_failure(self, listener: Callable[[str, bool], None]) -> None:
        """Call `listener(job name, failed for good)` after each attempt that raised here."""
        self._failures.listeners.append(listener)

    def enqueue(self, job: JobName, **params: Any) -> str:
        """Record the job, then hand it to the broker; returns the job id."""
        actor = self._actor(job)
        job_id = str(uuid.uuid4())
        scope = params.get('scope') if isinstance(params.get('scope'), str) else None
        self._store.create(job_id, job, actor.queue_name, params, scope)
        self._send(job_id, actor, params)
        return job_id

    def _send(self, job_id: str, actor: dramatiq.Actor[Any, Any], params: dict[str, Any]) -> None:
        message: dramatiq.Message[Any] = dramatiq.Message(
            queue_name=actor.queue_name,
            actor_name=actor.actor_name,
            args=(),
            kwargs=params,
            options={},
            message_id=job_id,  # the job id: job states and replays key on it
        )
        try:
            self.broker.enqueue(message)
        except BrokerConnectionError as exc:
            self._store.finished(job_id, error=f'broker unreachable: {exc}', final=True)
            raise StoreUnavailable(f'cannot reach the job broker: {exc}') from exc

    def get(self, job_id: str) -> JobInfo | None:
        """The job's state, or None."""
        return self._store.get(job_id)

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (every scope when None), newest first."""
        return self._store.recent(scope, limit)

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take a lease (dreaming debounce, expiry schedule)."""
        return self._store.claim(key, now, seconds)

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take a job's lock (a dead owner's is taken over): 0.0, or the seconds it stays held."""
        return self._store.lock(key, now, seconds)

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Cancel the unfinished jobs of a forgotten scope or user: their messages are skipped
        when delivered and the outbox never replays them."""
        return self._store.cancel(scope, user_id)

    def wait_running(self, scope: str | None, user_id: str | None, timeout: float) -> bool:
        """Wait until no job of `scope` (and `user_id`) runs in any live process, as the job
        store records it (see the port); a job still running after `timeout` is logged."""
        deadline = time.monotonic() + timeout
        was = running = bool(self._store.running(scope, user_id))
        while running:
            if time.monotonic() >= deadline:
                log.warning('a job of %s/%s still runs after %.0f s', scope, user_id, timeout)
                break
            time.sleep(RUNNING_POLL_S)
            running = bool(self._store.running(scope, user_id))
        return was

    def pending(self) -> int:
        """How many accepted jobs have not finished (embedded outbox; 0 on Redis)."""
        return len(self._store.pending())

    def start(self, queues: frozenset[str] | None = None, threads: int | None = None) -> None:
        """Replay pending jobs, then consume `queues` (default: this mode's own) with threads."""
        replayed = 0
        for job_id, job, _queue, params in self._store.pending():
            self._send(job_id, self._actor(job), params)
            replayed += 1
        if replayed:
            log.info('replayed %d accepted jobs from the outbox', replayed)
        wanted = queues if queues is not None else self._default_queues
        self._worker = dramatiq.Worker(
            self.broker,
            queues=set(wanted) if wanted else None,
            worker_threads=threads or self._threads,
            worker_timeout=100,  # ms between checks for stop: closing takes 0.1 s, not 1 s
        )
        self._worker.start()
        if wanted is None or DEFAULT_QUEUE in wanted:
            self._scheduler = threading.Thread(
                target=self._schedule, name='mnemos-expiry-scheduler', daemon=True
            )
            self._scheduler.start()

    def _schedule(self) -> None:
        # the lease makes one sweep per interval across restarts and across worker processes
        tick = min(self._expiry_interval, 60.0)
        while not self._stop.is_set():
            try:
                if self._store.claim('schedule:expiry', self._clock.now(), self._expiry_interval):
                    self.enqueue(EXPIRY_JOB)
            except Exception:
                log.exception('could not schedule the expiry sweep')
            self._stop.wait(tick)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait until the outbox holds no unfinished job (embedded mode; tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._store.pending():
                return True
            time.sleep(0.02)
        return False

    def stop(self, grace_s: float = 30.0) -> None:
        """Stop taking jobs: the scheduler ends, and the worker's threads get `grace_s` to
        finish the jobs they run. From now on a job that fails is `Interrupted` (the stop
        closes what it runs on), recorded as queued again, and runs at the next start."""
        with self._lock:
            if self._stop.is_set():
                return
            self._stop.set()
        if self._scheduler is not None:
            self._scheduler.join(timeout=5)
        if self._worker is not None:
            self._worker.stop(timeout=int(grace_s * 1000))

    def close(self, grace_s: float = 30.0) -> None:
        """`stop` (if not done yet), wait up to `JOIN_S` for the job threads still running,
        then close the broker and the job store.

        The composition root closes the queue after whatever a job may wait on has been
        closed (the extraction workers), so its threads have ended by now and have reported
        to a store still open; one that has not reports nothing (the store keeps its job
        unfinished, and the next start runs it again)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.stop(grace_s)
        if self._worker is not None:
            deadline = time.monotonic() + JOIN_S
            for thread in self._worker.workers:
                thread.join(max(0.0, deadline - time.monotonic()))
            if any(thread.is_alive() for thread in self._worker.workers):
                log.info('a job still runs after the stop: it runs again at the next start')
        self.broker.close()
        self._state.close()


class InlineJobQueue:
    """Runs each job synchronously at enqueue time (unit tests and scripts)."""

    def __init__(self, runner: Runner, clock: Clock) -> None:
        self._runner = runner
        self._store = InMemoryJobStore(clock)

    def enqueue(self, job: JobName, **params: Any) -> str:
        """Run `job` now; return its id (its state is kept, failures are recorded and raised)."""
        job_id = str(uuid.uuid4())
        scope = params.get('scope') if isinstance(params.get('scope'), str) else None
        self._store.create(job_id, job, queue_of(job), params, scope)
        self._store.started(job_id, WORKER_ID)
        try:
            result = self._runner(job, params)
        except Exception as exc:
            self._store.finished(job_id, error=f'{type(exc).__name__}: {exc}')
            raise
        self._store.finished(job_id, result=result)
        return job_id

    def get(self, job_id: str) -> JobInfo | None:
        """The job's state, or None."""
        return self._store.get(job_id)

    def recent(self, scope: str | None, limit: int) -> list[JobInfo]:
        """The newest jobs of `scope` (every scope when None), newest first."""
        return self._store.recent(scope, limit)

    def claim(self, key: str, now: datetime, seconds: float) -> bool:
        """Take a lease."""
        return self._store.claim(key, now, seconds)

    def lock(self, key: str, now: datetime, seconds: float) -> float:
        """Take a job's lock: 0.0, or the seconds it stays held."""
        return self._store.lock(key, now, seconds)

    def cancel(self, scope: str | None, user_id: str | None) -> int:
        """Jobs run at once here: none is ever left to cancel."""
        return self._store.cancel(scope, user_id)

    def wait_running(self, scope: str | None, user_id: str | None, timeout: float) -> bool:
        """Jobs run at once here: none runs while another call waits."""
        return False

    def start(self, queues: frozenset[str] | None = None, threads: int | None = None) -> None:
        """Nothing runs in the background."""

    def stop(self, grace_s: float = 30.0) -> None:
        """Nothing runs in the background."""

    def close(self, grace_s: float = 30.0) -> None:
        """Nothing to stop."""


def make_job_queue(
    settings: Settings, runner: Runner, clock: Clock, *, inline: bool = False
) -> DramatiqJobQueue | InlineJobQueue:
    """The JobQueue for `settings`: inline, embedded StubBroker + outbox, or RedisBroker."""
    if inline:
        return InlineJobQueue(runner, clock)
    if settings.redis_url is None:
        from dramatiq.brokers.stub import StubBroker

        store: JobStore = SqliteJobStore(settings.data_dir / FILENAME, clock)
        return DramatiqJobQueue(
            StubBroker(),
            store,
            runner,
            clock,
            threads=settings.worker_threads,
            default_queues=None,
            expiry_interval=settings.expiry_interval_seconds,
        )
    import redis
    from dramatiq.brokers.redis import RedisBroker

    try:
        client = redis.Redis.from_url(settings.redis_url)
        client.ping()
    except redis.RedisError as exc:
        raise StoreUnavailable(f'cannot reach Redis at KG_REDIS_URL: {exc}') from exc
    broker = RedisBroker(url=settings.redis_url, namespace='mnemos')
    return DramatiqJobQueue(
        broker,
        RedisJobStore(client, clock),
        runner,
        clock,
        threads=settings.worker_threads,
        # this process is the graph owner: it consumes the graph queue only
        default_queues=frozenset({GRAPH_QUEUE}),
        expiry_interval=settings.expiry_interval_seconds,
    )
