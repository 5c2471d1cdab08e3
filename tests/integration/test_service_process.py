"""`mnemos serve` as a process: a stop signal closes it cleanly, and no extraction worker outlives
it, however it ends."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TOKEN = secrets.token_hex(16)
# a busy 2-core machine: a start imports the models' runtimes, a stop waits out a grace, a
# graph job parses hundreds of texts; a condition that holds ends the wait at once
START_S, STOP_S, JOB_S = 120.0, 120.0, 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def children(pid: int) -> set[int]:
    """Live child processes of `pid` (from /proc: no psutil here)."""
    found = set()
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / 'stat').read_text()
        except OSError:
            continue
        # the command name may hold spaces: fields after the closing parenthesis are fixed
        ppid = int(stat.rsplit(')', 1)[1].split()[1])
        if ppid == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0]
    except OSError:
        return False
    return state != 'Z'


def call(port: int, path: str, body: object | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f'http://127.0.0.1:{port}{path}',
        data=data,
        headers={'Authorization': f'Bearer {TOKEN}', 'Content-Type': 'application/json'},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def running(proc: subprocess.Popen[bytes], log: Path | None = None) -> None:
    """Fail (with the log, if there is one) when `proc` has exited: a wait on it is over."""
    said = log.read_text(errors='replace') if log is not None else ''
    assert proc.poll() is None, f'the service exited with {proc.returncode}: {said}'


def wait_healthy(proc: subprocess.Popen[bytes], port: int, log: Path | None = None) -> None:
    """Wait until the service at `port` answers /healthz; fail if it exits first."""

    def healthy() -> bool:
        try:
            urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=10)
            return True
        except OSError:
            running(proc, log)
            return False

    wait_until(healthy, 'the service never answered /healthz', START_S)


def spawn(tmp_path: Path, out: IO[bytes] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """`mnemos serve` on a fresh data dir and a free port (output to `out`, if given)."""
    port = free_port()
    env = {
        **os.environ,
        'KG_DATA_DIR': str(tmp_path / 'data'),
        'KG_API_TOKEN': TOKEN,
        'KG_PORT': str(port),
        'KG_EXTRACT_WORKERS': '1',
        # these tests check what a stop closes and in what order, not how fast: at a quarter of
        # a core a clean stop took 4.5 s of the default 8, so a loaded machine gets more room
        'KG_STOP_BUDGET_S': '60',
    }
    proc = subprocess.Popen(
        [sys.executable, '-m', 'api.cli', 'serve'], env=env, stdout=out, stderr=out
    )
    return proc, port


def stopped(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc` unless it has ended already."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    proc, port = spawn(tmp_path)
    try:
        wait_healthy(proc, port)
        yield proc, port
    finally:
        stopped(proc)


def start_workers(proc: subprocess.Popen[bytes], port: int) -> set[int]:
    """Write a batch large enough for the graph job to use the extraction worker."""
    items = [
        {'scope': 'agent:p', 'text': f'Alice number {i} works at Acme in Lisbon.'}
        for i in range(80)
    ]
    call(port, '/v1/memories/batch', {'items': items})
    return wait_until(lambda: children(proc.pid), 'no extraction worker started')


def test_sigterm_closes_the_service_and_its_workers(service) -> None:  # type: ignore[no-untyped-def]
    proc, port = service
    workers = start_workers(proc, port)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=STOP_S) == 0  # killed by the signal it would be -15
    gone = lambda: not any(alive(w) for w in workers)  # noqa: E731
    wait_until(gone, lambda: f'extraction workers {workers} outlived the service')


def test_workers_exit_when_the_service_is_killed_outright(service) -> None:  # type: ignore[no-untyped-def]
    proc, port = service
    workers = start_workers(proc, port)
    proc.kill()
    proc.wait()
    gone = lambda: not any(alive(w) for w in workers)  # noqa: E731
    wait_until(gone, lambda: f'extraction workers {workers} outlived a killed service')


def test_a_native_crash_logs_every_thread_s_python_stack(tmp_path: Path) -> None:
    # a segfault inside Kuzu, Qdrant Edge or onnxruntime would otherwise end the service with
    # nothing in its log; SIGSEGV sent from outside takes the same path as one raised inside
    log = tmp_path / 'service.log'
    with log.open('wb') as out:
        proc, port = spawn(tmp_path, out)
    try:
        wait_healthy(proc, port, log)
        proc.send_signal(signal.SIGSEGV)
        assert proc.wait(timeout=STOP_S) == -signal.SIGSEGV
    finally:
        stopped(proc)
    text = log.read_text(errors='replace')
    assert 'Fatal Python error: Segmentation fault' in text
    # the main thread (waitress's loop) and the service's other threads
    assert 'Current thread' in text and text.count('Thread 0x') >= 3
    assert 'waitress' in text


def test_sigterm_in_mid_extraction_exits_0_and_the_graph_job_runs_at_the_next_start(
    tmp_path: Path,
) -> None:
    # a graph job still running at the stop gets a short grace, then its extraction worker is
    # terminated; the job stays in the outbox and the next start runs it again
    first = tmp_path / 'first.log'
    with first.open('wb') as out:
        proc, port = spawn(tmp_path, out)
    try:
        wait_healthy(proc, port, first)
        items = [
            {'scope': 'agent:p', 'text': f'Alice Smith moved to Lisbon in {1400 + i}.'}
            for i in range(599)
        ]
        # the last text the graph job reads: its entity shows that the job ran to its end
        items.append({'scope': 'agent:p', 'text': 'Quentin Tarrow works at Initech in Oslo.'})
        for start in range(0, len(items) - 100, 100):  # one graph job per batch
            call(port, '/v1/memories/batch', {'items': items[start : start + 100]})
        # the extraction worker has had a batch
        wait_until(lambda: children(proc.pid), 'no extraction worker started', interval=0.01)
        call(port, '/v1/memories/batch', {'items': items[-100:]})
        proc.send_signal(signal.SIGTERM)  # the last batch's graph job has just begun
        assert proc.wait(timeout=STOP_S) == 0  # 139 was a segfault in the interpreter's teardown
    finally:
        stopped(proc)
    assert 'stopped cleanly' in first.read_text(errors='replace')

    second = tmp_path / 'second.log'
    with second.open('wb') as out:
        proc, port = spawn(tmp_path, out)
    try:
        wait_healthy(proc, port, second)

        def extracted() -> bool:
            running(proc, second)
            return call(port, '/v1/kg/entities?scope=agent:p&q=Quentin')['total'] > 0

        wait_until(extracted, 'the cut graph job never extracted Quentin', JOB_S, 0.5)
    finally:
        stopped(proc)


def graph_jobs(port: int) -> list[dict]:
    """The service's graph-indexing jobs (system jobs: listed without a scope, admin only)."""
    return [j for j in call(port, '/v1/jobs?limit=200')['jobs'] if j['job'] == 'index_graph']


def test_a_stop_in_mid_extraction_logs_no_error_and_the_cut_job_runs_at_the_next_start(
    tmp_path: Path,
) -> None:
    # the graph job outlives the stop's grace, its extraction worker is terminated and the job
    # fails: the stop's doing, so no traceback and no ERROR/CRITICAL (its report once reached
    # a job store already closed: a CRITICAL on every stop), and the job stays not done
    first = tmp_path / 'first.log'
    with first.open('wb') as out:
        proc, port = spawn(tmp_path, out)
    try:
        wait_healthy(proc, port, first)
        places = ['Lisbon', 'Berlin', 'Oslo', 'Madrid', 'Vienna', 'Prague', 'Porto']
        # 1,000 texts (the batch limit) in one graph job: it parses them for many seconds
        # after the stop's 2 s grace, so the stop cuts it short (with 400, a quiet 2-core
        # machine once ran the whole job within the grace and nothing was cut)
        items = [
            {
                'scope': 'agent:stop',
                'text': f'Alice Smith {i} moved from {places[i % 7]} to {places[(i + 3) % 7]}'
                f' in {1500 + i}, where she met Bob Jones {i} at Acme {i}. Carol White {i}'
                f' joined them at Globex {i} in {places[(i + 5) % 7]} in {1501 + i}.',
            }
            for i in range(999)
        ]
        # the last text the graph job reads: its entity shows that the job ran to its end
        items.append({'scope': 'agent:stop', 'text': 'Quentin Tarrow works at Initech in Oslo.'})
        call(port, '/v1/memories/batch', {'items': items})
        wait_until(
            lambda: children(proc.pid) and any(j['state'] == 'running' for j in graph_jobs(port)),
            lambda: f'the graph job never ran: {graph_jobs(port)}',
            120,
        )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=STOP_S) == 0
    finally:
        stopped(proc)
    said = first.read_text(errors='replace')
    assert 'stopped cleanly' in said
    assert 'Traceback' not in said, said
    assert not re.search(r' (CRITICAL|ERROR) ', said), said
    with sqlite3.connect(tmp_path / 'data' / 'jobs.sqlite3') as db:
        cut = db.execute(
            "SELECT id, state, error FROM jobs WHERE job = 'index_graph' AND state != 'done'"
        ).fetchall()
    # the stop cut the job short and it stays not done: queued again, or (its thread outlived
    # the stop's wait for it) still running in a process that is gone
    assert len(cut) == 1, cut
    _, state, error = cut[0]
    assert (state, (error or '').split(':')[0]) in {('queued', 'Interrupted'), ('running', '')}

    second = tmp_path / 'second.log'
    with second.open('wb') as out:
        proc, port = spawn(tmp_path, out)
    try:
        wait_healthy(proc, port, second)

        job = f'/v1/jobs/{cut[0][0]}'

        def replayed() -> bool:
            running(proc, second)
            return call(port, job)['state'] == 'done'

        wait_until(
            replayed, lambda: f'the cut job was never replayed: {call(port, job)}', JOB_S, 0.5
        )
        assert call(port, '/v1/kg/entities?scope=agent:stop&q=Quentin')['total'] > 0
    finally:
        stopped(proc)
