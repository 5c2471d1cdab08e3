"""Waitress with the service's JSON errors: the answers waitress writes itself (a malformed
request line, headers over its limit, a bad chunked body) are plain text by default, which
clients that parse every error as `{error, message, details}` cannot read."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

from api.errors import error_details

# waitress logs "Task queue depth is N" for every request that finds no idle thread, from its
# I/O thread and while it holds the lock its request threads take their next task under
# (ThreadedTaskDispatcher.add_task). Under load that is every request, and each then waits for
# the logging handler's lock that request threads hold while writing their access lines, so
# request threads sit idle with requests queued. One warning a minute says the same.
QUEUE_WARNING_INTERVAL_S = 60.0


class AtMostEvery(logging.Filter):
    """Lets one record through per `interval_s` seconds and drops the rest."""

    def __init__(self, interval_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._interval_s = interval_s
        self._clock = clock
        self._next = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self._clock()
        # two threads racing here may both pass: one extra line, no lock on a hot path
        if now < self._next:
            return False
        self._next = now + self._interval_s
        return True


def json_error(code: int, reason: str, body: str) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status line, headers and the JSON body of one of waitress's own errors."""
    name = reason.lower().replace(' ', '_')
    message = body.strip() or reason
    payload = {'error': name, 'message': message, 'details': error_details(None, message, name)}
    data = json.dumps(payload).encode('utf-8')
    return f'{code} {reason}', [('Content-Type', 'application/json')], data


class JsonErrorTask(ErrorTask):  # type: ignore[misc]
    """ErrorTask writing the JSON error envelope instead of waitress's text."""

    def execute(self) -> None:
        error = self.request.error
        status, headers, body = json_error(error.code, error.reason, str(error.body or ''))
        self.status = status
        self.response_headers.extend(headers)
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class JsonErrorChannel(HTTPChannel):  # type: ignore[misc]
    """HTTPChannel whose protocol errors are answered by JsonErrorTask."""

    error_task_class = JsonErrorTask


def quiet_queue_warnings(interval_s: float = QUEUE_WARNING_INTERVAL_S) -> None:
    """Let waitress's queue-depth warning through once per `interval_s` (once per process)."""
    queue_log = logging.getLogger('waitress.queue')
    if not any(isinstance(f, AtMostEvery) for f in queue_log.filters):
        queue_log.addFilter(AtMostEvery(interval_s))


def serve(app: Any, **options: Any) -> None:
    """`waitress.serve` with JSON protocol errors and its queue-depth warning at most once a
    minute; blocks until the server stops."""
    quiet_queue_warnings()
    server = create_server(app, **options)
    listeners = [server]
    if not isinstance(server, BaseWSGIServer):  # several sockets: a MultiSocketServer
        listeners = [s for s in server.map.values() if isinstance(s, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = JsonErrorChannel
    server.print_listen('Serving on http://{}:{}')
    server.run()
