"""A real Mnemos service on a free loopback port (waitress in a thread), for client, MCP and
browser tests that must talk HTTP rather than Flask's test client."""

from __future__ import annotations

import socket
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.settings import Settings

TOKEN = 'live-admin-token-0123456789abcdef'


def listening(proc: subprocess.Popen[bytes], port: int) -> bool:
    """Whether 127.0.0.1:`port` takes connections; fails once `proc`, which is to listen
    there (`mnemos mcp --http`), has exited."""
    try:
        socket.create_connection(('127.0.0.1', port), timeout=10).close()
        return True
    except OSError:
        assert proc.poll() is None, f'the process to listen on {port} exited: {proc.returncode}'
        return False


@contextmanager
def live_service(data_dir: Path, **overrides: object) -> Iterator[str]:
    """Serve `create_app` on 127.0.0.1:<free port>; yields the base URL, closes everything after.

    Defaults: the hash embedder (no model load) with the knowledge graph on.
    """
    from waitress import create_server

    from api.app import create_app

    options: dict[str, Any] = {'embedder': 'hash', 'extract_workers': 0, **overrides}
    settings = Settings.load({}, data_dir=data_dir, api_token=TOKEN, **options)
    app = create_app(settings)
    server = create_server(app, host='127.0.0.1', port=0, threads=4, ident='mnemos-test')
    port = server.effective_port  # type: ignore[union-attr]
    thread = threading.Thread(target=server.run, name='live-service', daemon=True)
    thread.start()
    url = f'http://127.0.0.1:{port}'
    urllib.request.urlopen(f'{url}/healthz', timeout=60).read()  # a busy machine
    try:
        yield url
    finally:
        # close every socket from inside the server's own loop (closing them from this thread
        # races its select()); the loop ends when nothing is left to watch
        def stop() -> None:
            for channel in list(server._map.values()):  # type: ignore[union-attr]
                channel.close()

        server.trigger.pull_trigger(stop)  # type: ignore[union-attr]
        thread.join(timeout=10)
        server.task_dispatcher.shutdown()  # type: ignore[union-attr]
        app.extensions['mnemos'].close()
