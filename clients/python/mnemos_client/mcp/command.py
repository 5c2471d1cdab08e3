"""The MCP server's command-line options and start, shared by `mnemos mcp` (the server's CLI,
which adds its own defaults for the URL and the token) and `python -m mnemos_client.mcp`.
Adding the options loads neither the `mcp` package nor the tools."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mnemos_client._calls import resolve_token, resolve_url

if TYPE_CHECKING:
    # the tools load the `mcp` package: only when the server starts, not for the options
    from mnemos_client.mcp.tools import Defaults

URL_HELP = 'the Mnemos service (default MNEMOS_URL, else KG_URL, else http://127.0.0.1:8765)'
TOKEN_HELP = 'stdio only; default MNEMOS_API_KEY, MNEMOS_TOKEN or KG_API_TOKEN'


def add_arguments(
    parser: argparse.ArgumentParser, *, url_help: str = URL_HELP, token_help: str = TOKEN_HELP
) -> None:
    """The MCP server's options on `parser`."""
    parser.add_argument('--url', help=url_help)
    parser.add_argument('--token', help=token_help)
    parser.add_argument(
        '--scope',
        help='scope the tools use when a call names none (default MNEMOS_SCOPE, else an agent '
        "token's own scope)",
    )
    parser.add_argument(
        '--user', help='user id the tools use when a call names none (default MNEMOS_USER)'
    )
    parser.add_argument(
        '--http',
        type=int,
        metavar='PORT',
        help='serve streamable HTTP on PORT; each request needs Authorization: Bearer <token>',
    )
    parser.add_argument('--host', default='127.0.0.1', help='with --http (default 127.0.0.1)')
    parser.add_argument(
        '--allow-host',
        action='append',
        default=[],
        metavar='NAME[:PORT]',
        help='with --http: a Host header to accept besides the loopback names and the bind '
        'address (repeatable; needed for --host 0.0.0.0)',
    )
    parser.add_argument(
        '--allow-origin',
        action='append',
        default=[],
        metavar='ORIGIN',
        help='with --http: a browser Origin to accept besides those of the allowed hosts',
    )


def defaults_of(args: argparse.Namespace) -> Defaults:
    """The tools' default scope and user (options, else MNEMOS_SCOPE/MNEMOS_USER); exits
    naming the option when one is malformed."""
    from mnemos_client.mcp.tools import Defaults, check_defaults

    defaults = Defaults(
        scope=args.scope or os.environ.get('MNEMOS_SCOPE') or None,
        user_id=args.user or os.environ.get('MNEMOS_USER') or None,
    )
    problem = check_defaults(defaults)
    if problem:
        raise SystemExit(f'mnemos: mcp: {problem}')
    return defaults


def serve(args: argparse.Namespace, url: str, token: str | None, defaults: Defaults) -> int:
    """Serve until stopped: streamable HTTP with --http PORT, where every caller sends its own
    bearer token, else stdio with `token`."""
    from mnemos_client.mcp import server

    # a log line per HTTP call would drown the MCP client's stderr log
    logging.getLogger('httpx').setLevel(logging.WARNING)
    if args.http is not None:
        if args.token:
            raise SystemExit(
                'mnemos: mcp --http takes no --token: each HTTP caller sends its own '
                '(Authorization: Bearer <token>)'
            )
        return server.run_http(
            url,
            args.http,
            host=args.host,
            allow_hosts=args.allow_host,
            allow_origins=args.allow_origin,
            defaults=defaults,
        )
    if not token:
        raise SystemExit('mnemos: mcp: no token: pass --token, or set MNEMOS_API_KEY')
    return server.run_stdio(url, token, defaults)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m mnemos_client.mcp`: URL and token from the options or the client's
    environment variables."""
    parser = argparse.ArgumentParser(
        prog='python -m mnemos_client.mcp',
        description='MCP server (stdio, or streamable HTTP) over a running Mnemos service',
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    defaults = defaults_of(args)
    token = None if args.http is not None else resolve_token(args.token)
    return serve(args, resolve_url(args.url), token, defaults)
