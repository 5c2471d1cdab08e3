"""Shared pieces of the service benchmarks: the service process, HTTP helpers, LoCoMo loading.

The benchmarks start Mnemos exactly as a user would (`mnemos serve` with `KG_*` variables, a fresh
data dir and a random admin token) and talk to it over loopback HTTP with one keep-alive
connection, so every number includes the HTTP layer, auth and JSON.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import math
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / 'bench' / 'results'
LOCOMO_PATH = Path('/work/shared/bench/locomo_dev.json')
CATEGORY_NAMES = {
    1: 'multi-hop',
    2: 'temporal',
    3: 'open-domain',
    4: 'single-hop',
    5: 'adversarial',
}
_CLK_TCK = os.sysconf('SC_CLK_TCK')


# --------------------------------------------------------------------------- the service process


class ApiError(RuntimeError):
    """A non-2xx answer from the service."""

    def __init__(self, method: str, path: str, status: int, body: str) -> None:
        super().__init__(f'{method} {path} -> {status}: {body[:500]}')
        self.status = status
        self.body = body


@dataclass
class Service:
    """A running `mnemos serve` subprocess and a keep-alive HTTP connection to it."""

    process: subprocess.Popen[bytes]
    port: int
    token: str
    work_dir: Path
    data_dir: Path
    log_path: Path
    graph: bool
    timeout: float = 900.0
    _conn: http.client.HTTPConnection | None = field(default=None, repr=False)

    @property
    def pid(self) -> int:
        """Process id of the service."""
        return self.process.pid

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=self.timeout)
        return self._conn

    def text(self, path: str) -> str:
        """GET a text resource (e.g. Prometheus `/metrics`)."""
        return str(self.request('GET', path, as_text=True))

    def request(self, method: str, path: str, body: Any = None, *, as_text: bool = False) -> Any:
        """One JSON request; the parsed answer (the text with `as_text`), or ApiError for a
        non-2xx status.

        A dropped keep-alive connection is reopened and the request sent once more (every
        request the benchmarks send is idempotent: writes derive their ids from the content).
        """
        payload = json.dumps(body).encode() if body is not None else None
        headers = {'Authorization': f'Bearer {self.token}'}
        if payload is not None:
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
                raw = response.read()
                break
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                conn.close()
                self._conn = None
                if attempt == 2 or self.process.poll() is not None:
                    raise
        text = raw.decode('utf-8', errors='replace')
        if not 200 <= response.status < 300:
            raise ApiError(method, path, response.status, text)
        if as_text:
            return text
        return json.loads(text) if text else None

    def post(self, path: str, body: Any) -> Any:
        """POST a JSON body."""
        return self.request('POST', path, body)

    def get(self, path: str) -> Any:
        """GET a JSON resource."""
        return self.request('GET', path)

    def log_tail(self, lines: int = 40) -> str:
        """The last lines the service printed (stdout and stderr share one log file)."""
        try:
            return '\n'.join(self.log_path.read_text(errors='replace').splitlines()[-lines:])
        except OSError:
            return ''

    def stop(self, keep_data: bool = False, keep_log: bool = False) -> None:
        """Terminate the process (SIGTERM, then SIGKILL after 30 s); remove its temp dir.

        The log is kept in bench/results and its tail printed when the service had exited on
        its own (any exit code: a service never should), or with `keep_log` (a benchmark that
        failed mid-run: a service shutting down already refuses connections, yet is alive).
        """
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        died = self.process.poll() is not None
        if not died:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        if died or keep_log:
            # its log goes with the temp dir, so keep it and show how it ended. A native
            # crash's dump lists every thread's stack, and a tail alone cut off the top of it
            # (the scale run's crash at ~226k); a service that exited 0 mid-run left nothing
            # (the fifth partial scale run)
            code = self.process.returncode
            how = 'exited on its own' if died else 'was stopped after a failure'
            kept = RESULTS_DIR / f'service-{self.process.pid}-exit{code}.log'
            try:
                RESULTS_DIR.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.log_path, kept)
            except OSError as exc:
                kept = Path(f'(not kept: {exc})')
            print(f'bench: the service {how} (exit {code}); its log: {kept}', file=sys.stderr)
            print(self.log_tail(200), file=sys.stderr)
        if not keep_data:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# every channel weighted in: an explained search then lists each channel's candidates
ALL_CHANNELS = {'bm25': 1.0, 'dense': 1.0, 'context': 1.0, 'graph': 1.0}


def explained_receipt(service: Service, query: str, scope: str, top_k: int) -> dict[str, Any]:
    """The receipt of `query` asked with every channel on, no floor and `explain: true` (each
    channel's candidates and each candidate's factors: what the fits replay)."""
    body = {
        'query': query,
        'scope': scope,
        'top_k': top_k,
        'touch': False,
        'explain': True,
        'weights': ALL_CHANNELS,
        'min_score': 0.0,
    }
    return dict(service.post('/v1/memory_search', body)['receipt'])


def free_port() -> int:
    """A TCP port that is free on loopback right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


def mnemos_command() -> str:
    """The `mnemos` script of the checkout's venv (or the one on PATH)."""
    local = ROOT / '.venv' / 'bin' / 'mnemos'
    if local.exists():
        return str(local)
    found = shutil.which('mnemos')
    if found is None:
        raise SystemExit('bench: no mnemos command: install the project into .venv first')
    return found


def start_service(
    *, graph: bool = True, startup_timeout: float = 180.0, env: dict[str, str] | None = None
) -> Service:
    """Start `mnemos serve` on a free port with a fresh data dir and token; wait for /healthz.

    `BENCH_SERVE_ARGS` in the environment adds `serve` options (e.g. `--threads 16`).
    """
    work_dir = Path(tempfile.mkdtemp(prefix='mnemos-bench-'))
    token = secrets.token_hex(16)  # 32 characters
    port = free_port()
    child_env = {k: v for k, v in os.environ.items() if not k.startswith('KG_')}
    child_env.update({'KG_DATA_DIR': str(work_dir / 'data'), 'KG_API_TOKEN': token})
    if not graph:
        child_env['KG_GRAPH_ENABLED'] = 'false'
    child_env.update(env or {})
    log_path = work_dir / 'service.log'
    extra = os.environ.get('BENCH_SERVE_ARGS', '').split()
    with log_path.open('wb') as log:
        process = subprocess.Popen(
            [mnemos_command(), 'serve', '--port', str(port), *extra],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=child_env,
            cwd=str(work_dir),
        )
    service = Service(process, port, token, work_dir, work_dir / 'data', log_path, graph)
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = service.log_tail()
            service.stop()
            raise SystemExit(f'bench: mnemos serve exited with {process.returncode}:\n{tail}')
        try:
            health = service.get('/healthz')
            if health and health.get('status') == 'ok':
                return service
        except (OSError, http.client.HTTPException, ApiError):
            service._conn = None
        # fine-grained: the restart phase reports time to healthy, and a 0.25 s poll added up
        # to 0.25 s (0.125 s on average) to it
        time.sleep(0.02)
    tail = service.log_tail()
    service.stop()
    raise SystemExit(f'bench: mnemos serve not healthy after {startup_timeout:.0f} s:\n{tail}')


# --------------------------------------------------------------------------- process measurements


def rss_mb(pid: int, key: str = 'VmRSS') -> float:
    """Resident memory of `pid` in MB from /proc/<pid>/status (`VmHWM` gives the peak)."""
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith(f'{key}:'):
            return int(line.split()[1]) / 1024.0
    raise ValueError(f'no {key} in /proc/{pid}/status')


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name: index 0 is field 3 (state)."""
    stat = Path(f'/proc/{pid}/stat').read_text()
    return stat[stat.rindex(')') + 2 :].split()


def major_faults(pid: int) -> int:
    """Page faults of `pid` so far that had to read from disk (majflt, field 12): a search that
    pays them reads a store file the page cache no longer held."""
    return int(_stat_fields(pid)[9])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` so far (utime, stime: fields 14, 15)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


def descendants(pid: int) -> list[int]:
    """Every live process started by `pid` or by one of them (the spaCy worker pool)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f'/proc/{parent}/task').iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(c) for c in (task / 'children').read_text().split()]
            except (OSError, ValueError):
                continue
            found.extend(children)
            todo.extend(children)
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of `pid` and its live descendants: a child's time reaches the parent's own
    counters only once it is reaped, and extraction runs in worker processes that live on."""
    total = cpu_seconds(pid)
    for child in descendants(pid):
        # OSError: it exited between the listing and the read
        with contextlib.suppress(OSError):
            total += cpu_seconds(child)
    return total


def children_rss_mb(pid: int) -> float:
    """Resident memory of `pid`'s live descendants together, in MB."""
    total = 0.0
    for child in descendants(pid):
        with contextlib.suppress(OSError, ValueError):
            total += rss_mb(child)
    return total


def wait_idle(
    pid: int,
    *,
    min_wait: float = 5.0,
    quiet: float = 5.0,
    threshold: float = 0.05,
    timeout: float = 900.0,
) -> float:
    """Wait until `pid` and its worker processes together have used < `threshold` of one core
    for `quiet` seconds in a row.

    Sleeps at least `min_wait` first (background work starts once writes pause). Gives up after
    `timeout`; returns the seconds waited.
    """
    started = time.monotonic()
    time.sleep(min_wait)
    calm = 0.0
    last = tree_cpu_seconds(pid)
    while calm < quiet and time.monotonic() - started < timeout:
        time.sleep(1.0)
        now = tree_cpu_seconds(pid)
        calm = calm + 1.0 if now - last < threshold else 0.0
        last = now
    return time.monotonic() - started


# --------------------------------------------------------------------------- statistics


def percentile(values: list[float], pct: float) -> float:
    """The `pct` percentile (0-100) with linear interpolation; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: list[float]) -> float:
    """The 50th percentile."""
    return percentile(values, 50.0)


def stage_medians(receipts: list[dict[str, float]]) -> dict[str, float]:
    """Median of every `receipt.latency_ms` stage over the receipts that report it."""
    names: list[str] = []
    for latency in receipts:
        names.extend(n for n in latency if n not in names)
    return {n: round(median([r[n] for r in receipts if n in r]), 3) for n in names}


def write_json(name: str, data: Any) -> Path:
    """Write `data` to bench/results/<name>.json; returns the path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f'{name}.json'
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
    return path


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    """A plain aligned table on stdout (floats with 3 decimals)."""

    def fmt(value: Any) -> str:
        if isinstance(value, float):
            return 'nan' if math.isnan(value) else f'{value:.3f}'
        return str(value)

    cells = [[fmt(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print('  '.join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print('  '.join('-' * w for w in widths))
    for row in cells:
        print('  '.join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


# --------------------------------------------------------------------------- LoCoMo


@dataclass(frozen=True)
class Turn:
    """One dialogue turn as the benchmarks index it."""

    dia_id: str
    speaker: str
    text: str
    session: int
    at: datetime


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its normalised evidence turn ids."""

    question: str
    category: int
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...]
    answer: str | None


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo sample: its turns in order and its questions."""

    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


_SESSION_KEY = re.compile(r'session_(\d+)')
_EVIDENCE = re.compile(r'D:?\s*(\d+)\s*:\s*(\d+)')


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56:00+00:00 (LoCoMo dates carry no zone)."""
    cleaned = ' '.join(text.split())
    for fmt in ('%I:%M %p on %d %B, %Y', '%I:%M %p on %d %b, %Y'):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f'unrecognised LoCoMo session date {text!r}')


def turn_text(turn: dict[str, Any]) -> str:
    """'speaker: text', plus ' [image: caption]' when the turn shared an image."""
    text = f'{turn["speaker"]}: {turn["text"]}'
    caption = turn.get('blip_caption')
    if caption:
        text += f' [image: {caption}]'
    return text


def normalise_evidence(raw: list[str], known: set[str]) -> list[str]:
    """Evidence as `D<session>:<turn>` ids that exist in the conversation, in order, once each.

    Handles 'D8:6; D9:17' (several ids in one string), 'D:11:26' (stray colon) and 'D30:05'
    (leading zero); ids missing from the conversation (e.g. a bare 'D') are dropped.
    """
    out: list[str] = []
    for item in raw:
        for session, turn in _EVIDENCE.findall(str(item)):
            ident = f'D{int(session)}:{int(turn)}'
            if ident in known and ident not in out:
                out.append(ident)
    return out


def load_locomo(path: Path = LOCOMO_PATH) -> list[Conversation]:
    """The LoCoMo samples in `path` with turn texts, ISO session times and clean evidence."""
    samples = json.loads(path.read_text(encoding='utf-8'))
    conversations: list[Conversation] = []
    for sample in samples:
        conv = sample['conversation']
        sessions = sorted(
            int(m.group(1))
            for key, value in conv.items()
            if (m := _SESSION_KEY.fullmatch(key)) and isinstance(value, list)
        )
        turns: list[Turn] = []
        for number in sessions:
            at = parse_session_date(conv[f'session_{number}_date_time'])
            for turn in conv[f'session_{number}']:
                turns.append(Turn(turn['dia_id'], turn['speaker'], turn_text(turn), number, at))
        known = {t.dia_id for t in turns}
        questions = tuple(
            Question(
                question=str(qa['question']),
                category=int(qa['category']),
                evidence=tuple(normalise_evidence(list(qa.get('evidence', [])), known)),
                raw_evidence=tuple(str(e) for e in qa.get('evidence', [])),
                answer=None if qa.get('answer') is None else str(qa['answer']),
            )
            for qa in sample['qa']
        )
        conversations.append(Conversation(str(sample['sample_id']), tuple(turns), questions))
    return conversations


def locomo_questions() -> list[str]:
    """Every LoCoMo question of the dev split, in file order (latency benchmarks' queries)."""
    return [q.question for conv in load_locomo() for q in conv.questions]


def numbered_turns(count: int, start: int = 0) -> Iterator[tuple[int, Turn]]:
    """`count` LoCoMo turns, cycled, numbered from `start`: store-growing benchmarks write
    turn n as `f'{turn.text} #{n}'`, so every text is unique (writes are idempotent on text)."""
    turns = [t for conv in load_locomo() for t in conv.turns]
    return zip(range(start, start + count), itertools.cycle(turns), strict=False)


def iso(at: datetime) -> str:
    """ISO 8601 in UTC with a Z suffix."""
    return at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')
