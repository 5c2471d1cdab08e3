"""Server mode for real except the vector store: Redis at 127.0.0.1:6379 (broker and job
store), this process as the API and graph owner, and a `mnemos worker` subprocess
(worker_main.py: the real entrypoint with the vector store pointed at the Qdrant stand-in of
vector_server.py; no Qdrant server exists on these machines).

Shared by the Redis chain test and bench/forget_race_bench.py, which import it from here: the
worker entrypoint and the stand-in it needs are test code already.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.waiting import wait_until

REDIS_HOST, REDIS_PORT = '127.0.0.1', 6379
ROOT = Path(__file__).resolve().parents[2]
# the worker loads its models before it says it is ready: minutes on a busy 2-core machine
READY_S = 300.0


@contextmanager
def free_redis_db(lock_key: str, ttl_s: int) -> Iterator[int]:
    """A Redis database (1-15) no other holder of `lock_key` is using, emptied before and after.

    The lock expires after `ttl_s` seconds, so a run that died does not hold a database forever.
    """
    import redis

    for db in range(15, 0, -1):
        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db)
        if client.set(lock_key, str(os.getpid()), nx=True, ex=ttl_s):
            client.flushdb()  # what a dead run left; the lock goes with it
            client.set(lock_key, str(os.getpid()), ex=ttl_s)
            try:
                yield db
            finally:
                client.flushdb()
                client.close()
            return
        client.close()
    raise AssertionError(f'no free Redis database (1-15) for {lock_key}')


@dataclass
class Stack:
    """The API app of this process and the `mnemos worker` process beside it."""

    app: Any
    worker: subprocess.Popen[bytes]
    api_dir: Path
    worker_dir: Path


@contextmanager
def server_stack(db: int, work: Path, token: str, **env: str) -> Iterator[Stack]:
    """The stand-in vector server, the API app here and one `mnemos worker` process, on Redis
    database `db`; data under `work` (api/, worker/, worker.log). `env` adds KG_* settings
    that both processes get (e.g. KG_EMBEDDER)."""
    import runtime.bootstrap
    from api.app import create_app
    from core.settings import Settings
    from tests.integration.vector_server import RemoteVectorStore, serve

    server, vectors_url = serve()
    settings_env = {
        'KG_REDIS_URL': f'redis://{REDIS_HOST}:{REDIS_PORT}/{db}',
        'KG_QDRANT_URL': vectors_url,
        'KG_API_TOKEN': token,
        **env,
    }
    api_dir, worker_dir, log = work / 'api', work / 'worker', work / 'worker.log'
    original = runtime.bootstrap.build_vector_store
    runtime.bootstrap.build_vector_store = lambda s: RemoteVectorStore(s.qdrant_url)  # type: ignore
    worker: subprocess.Popen[bytes] | None = None
    app = None
    try:
        app = create_app(Settings.load(settings_env, data_dir=api_dir))
        with log.open('wb') as out:  # a file, not a pipe: nobody reads the worker's output
            worker = subprocess.Popen(
                [sys.executable, '-m', 'tests.integration.worker_main'],
                cwd=ROOT,
                env={
                    # the worker's settings are the API's, not whatever KG_* this shell has
                    **{k: v for k, v in os.environ.items() if not k.startswith('KG_')},
                    **settings_env,
                    'KG_DATA_DIR': str(worker_dir),
                    'PYTHONPATH': str(ROOT),
                },
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        running = worker

        def output() -> str:
            return log.read_text(errors='replace')

        wait_until(
            lambda: 'mnemos worker: ready' in output() or running.poll() is not None,
            lambda: f'the worker did not start:\n{output()}',
            timeout=READY_S,
            interval=0.1,
        )
        assert worker.poll() is None, f'the worker exited:\n{output()}'
        yield Stack(app, worker, api_dir, worker_dir)
    finally:
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        if app is not None:
            app.extensions['mnemos'].close()
        runtime.bootstrap.build_vector_store = original
        server.shutdown()
