"""The `mnemos` command: serve the API, run workers, and query a running service."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import signal
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from core.errors import KnowledgeStoreError
from core.settings import Settings

TOKEN_FILE = 'api_token'


def ensure_token(settings: Settings) -> tuple[Settings, Path | None]:
    """Settings with an admin token: the configured one, or one kept in the data dir."""
    if settings.api_token:
        return settings, None
    path = settings.data_dir / TOKEN_FILE
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if path.exists():
        token = path.read_text(encoding='utf-8').strip()
    else:
        token = secrets.token_urlsafe(32)
        # created 0600 so other local users cannot read the admin token
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'w', encoding='utf-8') as fh:
            fh.write(token + '\n')
    return settings.model_copy(update={'api_token': token}), path


def serve(args: argparse.Namespace) -> int:
    """Run the API with waitress on the embedded default (or the configured servers)."""
    from waitress import serve as waitress_serve

    from api import create_app

    overrides: dict[str, Any] = {}
    if args.host:
        overrides['host'] = args.host
    if args.port:
        overrides['port'] = args.port
    settings, token_path = ensure_token(Settings.load(**overrides))
    app = create_app(settings)
    mode = 'embedded' if settings.embedded else 'server'
    print(f'mnemos: {mode} mode, data dir {settings.data_dir.resolve()}', flush=True)
    if token_path is not None:
        print(f'mnemos: admin token in {token_path.resolve()}', flush=True)
    print(f'mnemos: listening on http://{settings.host}:{settings.port}', flush=True)
    # SIGTERM (docker stop, systemd, kill) exits through atexit, which closes the stores
    # (Qdrant Edge flush, Kuzu) and stops the extraction workers; the default would just die
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    waitress_serve(
        app, host=settings.host, port=settings.port, threads=args.threads, ident='mnemos'
    )
    return 0


def _client_token(settings: Settings) -> str:
    if settings.api_token:
        return settings.api_token
    path = settings.data_dir / TOKEN_FILE
    if path.exists():
        return path.read_text(encoding='utf-8').strip()
    raise SystemExit("mnemos: no token: set KG_API_TOKEN or run from the service's data dir")


def _call(args: argparse.Namespace, method: str, path: str, body: Any = None) -> Any:
    settings = Settings.load()
    url = args.url or f'http://{settings.host}:{settings.port}'
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header('Authorization', f'Bearer {_client_token(settings)}')
    if data is not None:
        request.add_header('Content-Type', 'application/json')
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise SystemExit(f'mnemos: {exc.code} {exc.read().decode(errors="replace")}') from None
    except urllib.error.URLError as exc:
        raise SystemExit(f'mnemos: cannot reach {url}: {exc.reason}') from None


def search(args: argparse.Namespace) -> int:
    """Print the hits of a memory_search."""
    body = {'query': args.query, 'scope': args.scope, 'top_k': args.top_k, 'mode': args.mode}
    result = _call(args, 'POST', '/v1/memory_search', body)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    for rank, hit in enumerate(result['hits'], start=1):
        print(f'{rank:2d}. {hit["score"]:.4f} [{hit["kind"]}/{hit["tier"]}] {hit["text"][:160]}')
    receipt = result['receipt']
    print(
        f'-- {len(result["hits"])} hits in {receipt["latency_ms"].get("total", 0):.1f} ms'
        f' (scopes {", ".join(receipt["scopes"])})'
    )
    return 0


def stats(args: argparse.Namespace) -> int:
    """Print memory counts."""
    query = f'?{urllib.parse.urlencode({"scope": args.scope})}' if args.scope else ''
    print(json.dumps(_call(args, 'GET', f'/v1/memory/stats{query}'), indent=2))
    return 0


def worker(args: argparse.Namespace) -> int:
    """Run consolidation workers against the Redis broker (server mode)."""
    from runtime.worker import run_worker

    return run_worker(Settings.load(), processes=args.processes, threads=args.threads) or 0


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(prog='mnemos', description=__doc__)
    sub = parser.add_subparsers(dest='command', required=True)

    p = sub.add_parser('serve', help='run the HTTP API')
    p.add_argument('--host')
    p.add_argument('--port', type=int)
    p.add_argument('--threads', type=int, default=8, help='HTTP worker threads')
    p.set_defaults(func=serve)

    p = sub.add_parser('search', help='search a running service')
    p.add_argument('query')
    p.add_argument('--scope', required=True)
    p.add_argument('--top-k', type=int, default=10)
    p.add_argument('--mode', default='hybrid', choices=['hybrid', 'dense', 'bm25'])
    p.add_argument('--json', action='store_true')
    p.add_argument('--url', help='default http://KG_HOST:KG_PORT')
    p.set_defaults(func=search)

    p = sub.add_parser('stats', help='memory counts of a running service')
    p.add_argument('--scope')
    p.add_argument('--url')
    p.set_defaults(func=stats)

    p = sub.add_parser('worker', help='consolidation worker (server mode, KG_REDIS_URL)')
    p.add_argument('--processes', type=int, default=1)
    p.add_argument('--threads', type=int, default=4)
    p.set_defaults(func=worker)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `mnemos` script."""
    logging.basicConfig(
        # read before Settings so a configuration error is itself logged properly
        level=os.environ.get('KG_LOG_LEVEL', 'INFO'),
        format='%(asctime)s %(levelname)s %(name)s: %(message)s',
    )
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KnowledgeStoreError as exc:
        print(f'mnemos: {exc.message}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
