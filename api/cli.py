"""The `mnemos` command: serve the API, run workers, and query a running service."""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import io
import json
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from api.version import version
from core.errors import KnowledgeStoreError
from core.settings import Settings

if TYPE_CHECKING:
    from mnemos_client import Mnemos
    from mnemos_client.models import Dedupe, ImportReport

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
    from runtime.gc_freeze import freeze_startup_heap
    from runtime.malloc_arenas import limit_malloc_arenas, start_trimming
    from runtime.preload import preload_embedder

    overrides: dict[str, Any] = {}
    if args.host:
        overrides['host'] = args.host
    if args.port:
        overrides['port'] = args.port
    settings, token_path = ensure_token(Settings.load(**overrides))
    # before the slow start (models, stores): a busy port is one line, not a traceback
    busy = port_in_use(settings.host, settings.port)
    if busy:
        print(f'mnemos: cannot listen on {settings.host}:{settings.port}: {busy}', file=sys.stderr)
        return 1
    # before any thread starts: the preload's, then create_app's job, model and store threads
    # (see runtime/malloc_arenas.py)
    limit_malloc_arenas()
    # a crash inside a native library (Kuzu, Qdrant Edge, onnxruntime) kills the process
    # without a Python traceback; this prints every thread's stack to stderr first, so the log
    # says which call it was.
    # A stderr without a file (a test runner's capture) keeps the runner's own handler.
    with contextlib.suppress(io.UnsupportedOperation, ValueError):
        faulthandler.enable()
    from api.app import create_app
    from api.serving import serve as waitress_serve

    # the model loads while create_app opens the stores: see preload_model. Not before the
    # imports above: its thread's own imports and session build then take the GIL from theirs
    # (a restart on a 10k store was healthy 0.4 s later, bench/README.md, restart)
    preload_embedder(settings)
    start_trimming()

    app = create_app(settings)
    if not settings.graph_enabled:
        # start-up is done (build took the preloaded model): full collections stop walking its
        # heap. Not with the graph on, whose mirror grows after it (runtime/gc_freeze.py says why)
        freeze_startup_heap()
    mode = 'embedded' if settings.embedded else 'server'
    print(f'mnemos: {mode} mode, data dir {settings.data_dir.resolve()}', flush=True)
    if token_path is not None:
        print(f'mnemos: admin token in {token_path.resolve()}', flush=True)
    print(f'mnemos: listening on http://{settings.host}:{settings.port}', flush=True)
    # SIGTERM (docker stop, systemd, kill) ends the serving loop; runtime/stop.py then stops
    # the jobs and closes the stores in order and exits 0 (the default would just die)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        waitress_serve(
            app, host=settings.host, port=settings.port, threads=args.threads, ident='mnemos'
        )
    except OSError as exc:  # lost a race for the port since the check
        print(f'mnemos: cannot listen on {settings.host}:{settings.port}: {exc}', file=sys.stderr)
        return 1
    except (SystemExit, KeyboardInterrupt):  # waitress returns on these itself
        pass
    from runtime.stop import stop_process

    stop_process(app.extensions['mnemos'], budget_s=settings.stop_budget_s)


def port_in_use(host: str, port: int) -> str | None:
    """Why `host:port` cannot be bound (e.g. 'address already in use'), or None if it can."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return str(exc)
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # as waitress binds: SO_REUSEADDR, so a port in TIME_WAIT does not count as busy
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return (exc.strerror or str(exc)).lower()
    return None


def _client_token(settings: Settings) -> str:
    if settings.api_token:
        return settings.api_token
    path = settings.data_dir / TOKEN_FILE
    if path.exists():
        return path.read_text(encoding='utf-8').strip()
    raise SystemExit("mnemos: no token: set KG_API_TOKEN or run from the service's data dir")


def _client(args: argparse.Namespace) -> Mnemos:
    """A client of the service at --url (default http://KG_HOST:KG_PORT) with --token or
    KG_API_TOKEN (or the data dir's token file)."""
    from mnemos_client import Mnemos

    # a log line per HTTP call would bury the command's own output
    logging.getLogger('httpx').setLevel(logging.WARNING)
    settings = Settings.load()
    url = getattr(args, 'url', None) or f'http://{settings.host}:{settings.port}'
    token = getattr(args, 'token', None) or _client_token(settings)
    return Mnemos(url, token)


def search(args: argparse.Namespace) -> int:
    """Print the hits of a memory_search."""
    with _client(args) as client:
        result = client.search(args.query, args.scope, top_k=args.top_k, mode=args.mode)
    if args.json:
        print(json.dumps(result.model_dump(mode='json'), indent=2, ensure_ascii=False))
        return 0
    for rank, hit in enumerate(result.hits, start=1):
        print(f'{rank:2d}. {hit.score:.4f} [{hit.kind}/{hit.tier}] {hit.text[:160]}')
    receipt = result.receipt
    print(
        f'-- {len(result.hits)} hits in {receipt.latency_ms.get("total", 0):.1f} ms'
        f' (scopes {", ".join(receipt.scopes)})'
    )
    return 0


def stats(args: argparse.Namespace) -> int:
    """Print memory counts."""
    with _client(args) as client:
        print(json.dumps(client.stats(args.scope).model_dump(mode='json'), indent=2))
    return 0


def _bar(total: int | None, desc: str, unit: str = 'rec') -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)


def private_file(path: Path) -> TextIO:
    """`path` opened for writing text, readable by its owner only (0600), even when it existed
    with wider permissions: an export holds every memory, unredacted with --unredacted."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        return os.fdopen(fd, 'w', encoding='utf-8')
    except BaseException:
        os.close(fd)
        raise


def export(args: argparse.Namespace) -> int:
    """Write every chunk record (or one scope's) as JSONL to --output or stdout."""
    with _client(args) as client:
        total = client.export_count(args.scope)
        out = private_file(Path(args.output)) if args.output else sys.stdout
        try:
            with _bar(total, 'export') as bar:
                redact = True if args.redact else (False if args.unredacted else None)
                for record in client.export(args.scope, redact=redact):
                    out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + '\n')
                    bar.update(1)
        finally:
            if out is not sys.stdout:
                out.close()
    if args.output:
        print(f'mnemos: exported {total} records to {args.output}', file=sys.stderr)
    return 0


def _lines_with_progress(path: Path, desc: str, start: int = 1) -> Iterator[bytes]:
    size = path.stat().st_size
    with path.open('rb') as fh, _bar(size, desc, unit='B') as bar:
        bar.unit_scale = True
        for number, line in enumerate(fh, 1):
            bar.update(len(line))
            yield line if number >= start else b''  # skipped lines still count


def _import_file(args: argparse.Namespace, path: Path, desc: str, dedupe: Dedupe) -> ImportReport:
    """Import a JSONL file in bounded chunks; on a stop, say where to resume and exit 2."""
    from mnemos_client.bulk import ImportStopped, import_chunked

    start = max(getattr(args, 'resume_from', None) or 1, 1)
    with _client(args) as client:
        try:
            return import_chunked(
                client,
                _lines_with_progress(path, desc, start),
                dedupe=dedupe,
                dry_run=getattr(args, 'dry_run', False),
                start=start,
                chunk_bytes=args.chunk_bytes,
                chunk_records=args.chunk_records,
            )
        except ImportStopped as stopped:
            done = stopped.report
            raise SystemExit(
                f'mnemos: {desc} stopped at line {stopped.resume_from} ({done.imported} records '
                f'imported before it): {stopped.cause}; rerun with --resume-from '
                f'{stopped.resume_from}'
            ) from None


def import_(args: argparse.Namespace) -> int:
    """Import a JSONL export (ids kept, texts re-embedded) in bounded chunks; print the
    report."""
    path = Path(args.file)
    if not path.is_file():
        raise SystemExit(f'mnemos: no such file: {path}')
    report = _import_file(args, path, 'import', args.dedupe)
    print(json.dumps(report.model_dump(mode='json'), indent=2))
    return 1 if report.invalid else 0


def reindex(args: argparse.Namespace) -> int:
    """Re-embed every memory and re-extract the graph: export, then re-import over the same
    ids (`dedupe=none` overwrites each record in place) in bounded chunks. With --file the
    export is kept there, and --resume-from re-imports it from a line without exporting."""
    import tempfile

    with contextlib.ExitStack() as stack:
        if args.file:
            path = Path(args.file)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix='mnemos-reindex-'))
            path = Path(tmp) / 'export.jsonl'
        if args.resume_from and not path.is_file():
            raise SystemExit(f'mnemos: --resume-from needs the kept export: no such file {path}')
        if not args.resume_from:
            with _client(args) as client:
                total = client.export_count(args.scope)
                with path.open('w', encoding='utf-8') as out, _bar(total, 'export ') as bar:
                    # unredacted: the records are written back over themselves
                    for record in client.export(args.scope, redact=False):
                        out.write(json.dumps(record, ensure_ascii=False) + '\n')
                        bar.update(1)
        report = _import_file(args, path, 'reindex', 'none')
    print(
        f'mnemos: reindexed {report.imported} of {report.read} records'
        + (f', {report.invalid} invalid' if report.invalid else ''),
        file=sys.stderr,
    )
    return 1 if report.invalid else 0


def mcp(args: argparse.Namespace) -> int:
    """Serve the MCP tools over a running service (`mnemos_client.mcp`): on stdio with --token
    (or KG_API_TOKEN, or the data dir's token file), or as streamable HTTP with --http PORT,
    where every caller sends its own bearer token. --scope/--user (MNEMOS_SCOPE/MNEMOS_USER)
    are the defaults the tools use when a call leaves them out."""
    from mnemos_client.mcp import command

    defaults = command.defaults_of(args)
    settings = Settings.load()
    url = args.url or f'http://{settings.host}:{settings.port}'
    token = None if args.http is not None else args.token or _client_token(settings)
    return command.serve(args, url, token, defaults)


def worker(args: argparse.Namespace) -> int:
    """Run consolidation workers against the Redis broker (server mode)."""
    from runtime.worker import run_worker

    return run_worker(Settings.load(), processes=args.processes, threads=args.threads) or 0


Subparsers: TypeAlias = 'argparse._SubParsersAction[argparse.ArgumentParser]'


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(prog='mnemos', description=__doc__)
    parser.add_argument('--version', action='version', version=f'mnemos {version()}')
    sub = parser.add_subparsers(dest='command', required=True)
    _add_serve(sub)
    _add_queries(sub)
    _add_data_commands(sub)
    _add_mcp(sub)
    p = sub.add_parser('worker', help='consolidation worker (server mode, KG_REDIS_URL)')
    p.add_argument('--processes', type=int, default=1)
    p.add_argument('--threads', type=int, default=4)
    p.set_defaults(func=worker)
    return parser


def _client_options(p: argparse.ArgumentParser) -> None:
    p.add_argument('--url', help='default http://KG_HOST:KG_PORT')
    p.add_argument('--token', help='default KG_API_TOKEN, or the data dir token file')


def _chunk_options(p: argparse.ArgumentParser) -> None:
    from mnemos_client.bulk import CHUNK_BYTES, CHUNK_RECORDS

    p.add_argument(
        '--chunk-bytes', type=int, default=CHUNK_BYTES, help='request size (halved on 413)'
    )
    p.add_argument('--chunk-records', type=int, default=CHUNK_RECORDS)
    p.add_argument('--resume-from', type=int, metavar='LINE', help='skip the lines before')


def _add_serve(sub: Subparsers) -> None:
    p = sub.add_parser('serve', help='run the HTTP API')
    p.add_argument('--host')
    p.add_argument('--port', type=int)
    p.add_argument('--threads', type=int, default=8, help='HTTP worker threads')
    p.set_defaults(func=serve)


def _add_queries(sub: Subparsers) -> None:
    p = sub.add_parser('search', help='search a running service')
    p.add_argument('query')
    p.add_argument('--scope', required=True)
    p.add_argument('--top-k', type=int, default=10)
    p.add_argument('--mode', default='hybrid', choices=['hybrid', 'dense', 'bm25'])
    p.add_argument('--json', action='store_true')
    _client_options(p)
    p.set_defaults(func=search)

    p = sub.add_parser('stats', help='memory counts of a running service')
    p.add_argument('--scope')
    _client_options(p)
    p.set_defaults(func=stats)


def _add_data_commands(sub: Subparsers) -> None:
    p = sub.add_parser('export', help='write memories as JSONL (admin token)')
    p.add_argument('--scope', help='one scope (default: all)')
    masking = p.add_mutually_exclusive_group()
    masking.add_argument(
        '--redact', action='store_true', help='mask emails and phone numbers (secrets always)'
    )
    masking.add_argument(
        '--unredacted', action='store_true', help='mask nothing, not even secret-looking spans'
    )
    p.add_argument('-o', '--output', help='file to write (default: stdout)')
    _client_options(p)
    p.set_defaults(func=export)

    p = sub.add_parser('import', help='import a JSONL export in chunks (admin token)')
    p.add_argument('file')
    p.add_argument('--dedupe', default='id', choices=['none', 'id', 'id_text'])
    p.add_argument('--dry-run', action='store_true')
    _chunk_options(p)
    _client_options(p)
    p.set_defaults(func=import_)

    p = sub.add_parser(
        'reindex', help='re-embed memories and re-extract the graph (export + re-import)'
    )
    p.add_argument('--scope', help='one scope (default: all)')
    p.add_argument('--file', help='keep the export here (default: a temporary file)')
    _chunk_options(p)
    _client_options(p)
    p.set_defaults(func=reindex)


def _add_mcp(sub: Subparsers) -> None:
    from mnemos_client.mcp import command as mcp_command

    p = sub.add_parser('mcp', help='MCP server (stdio, or streamable HTTP) over a running service')
    mcp_command.add_arguments(
        p,
        url_help='the Mnemos service (default http://KG_HOST:KG_PORT)',
        token_help='stdio only; default KG_API_TOKEN, or the data dir token file',
    )
    p.set_defaults(func=mcp)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `mnemos` script."""
    logging.basicConfig(
        # read before Settings so a configuration error is itself logged properly
        level=os.environ.get('KG_LOG_LEVEL', 'INFO'),
        format='%(asctime)s %(levelname)s %(name)s: %(message)s',
    )
    args = build_parser().parse_args(argv)
    from pydantic import ValidationError

    from mnemos_client import InvalidRequest, MnemosError

    try:
        return int(args.func(args))
    except KnowledgeStoreError as exc:
        print(f'mnemos: {exc.message}', file=sys.stderr)
        return 2
    except MnemosError as exc:
        # an option the client refused before sending (--scope main) has no answer to quote
        refused_here = isinstance(exc, InvalidRequest) and exc.body is None
        print(f'mnemos: {exc.message if refused_here else exc}', file=sys.stderr)
        return 2
    except ValidationError as exc:  # an option the client checks before sending (--scope main)
        print(f'mnemos: {_invalid(exc)}', file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader left (`| head`): what is left to print has nowhere to go, and the exit
        # flush must not fail on the closed pipe either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _invalid(exc: Any) -> str:
    """`invalid scope: …` for each field a pydantic error names."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    return '; '.join(
        f'invalid {".".join(str(p) for p in e["loc"]) or "input"}: {e["msg"]}' for e in errors
    )


if __name__ == '__main__':
    sys.exit(main())
