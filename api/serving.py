"""Waitress with the service's JSON errors: the answers waitress writes itself (a malformed
request line, headers over its limit, a bad chunked body) are plain text by default, which
clients that parse every error as `{error, message, details}` cannot read."""

from __future__ import annotations

import json
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

from api.errors import error_details


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


def serve(app: Any, **options: Any) -> None:
    """`waitress.serve` with JSON protocol errors; blocks until the server stops."""
    server = create_server(app, **options)
    listeners = [server]
    if not isinstance(server, BaseWSGIServer):  # several sockets: a MultiSocketServer
        listeners = [s for s in server.map.values() if isinstance(s, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = JsonErrorChannel
    server.print_listen('Serving on http://{}:{}')
    server.run()
