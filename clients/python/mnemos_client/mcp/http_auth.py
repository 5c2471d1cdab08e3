"""`mnemos mcp --http`: the streamable HTTP transport behind a Host check and a bearer token.

Every HTTP request must carry `Authorization: Bearer <token>`, a Mnemos token (an agent's, or
the admin's). The token is checked with the service (`GET /v1/whoami`) before the MCP layer
sees the request, and each tool call runs with the token of the request that carries it: an
agent acts with that agent's rights, and the process's own token is never used. A request
without a token, or with one the service does not know, gets a 401 JSON error.

The Host header is checked on every bind (DNS rebinding: a web page on another origin must
not reach a loopback or LAN MCP server through a name it controls): the loopback names are
allowed, plus the bind address when it is a specific one, plus what `--allow-host` adds.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from mnemos_client import Mnemos, MnemosError, Unauthorized

LOOPBACK_HOSTS = ('127.0.0.1', 'localhost', '[::1]')
WILDCARD_BINDS = ('0.0.0.0', '::', '')
# how long a verified token is remembered: a revoked token still fails each tool call at once
# (the call goes to the service with it); only the MCP handshake may outlive it this long
VERIFIED_TTL_S = 10.0
_MAX_REMEMBERED = 1024
MCP_AUTH_FAILURES_PER_WINDOW = 10
AUTH_FAILURE_WINDOW_S = 60.0
_MAX_GUESSERS = 10_000


@dataclass(frozen=True)
class Identity:
    """What the service says a token stands for (`GET /v1/whoami`)."""

    name: str
    admin: bool
    agent_id: str | None
    scope: str | None


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """Host header values accepted for a server bound to `bind`: the loopback names with any
    port, the bind address itself when it is a specific one, and `extra` (`name` or
    `name:port`; a bare name allows any port)."""
    names = list(LOOPBACK_HOSTS)
    if bind not in WILDCARD_BINDS and bind not in names:
        names.append(f'[{bind}]' if ':' in bind and not bind.startswith('[') else bind)
    out = [f'{name}:*' for name in names] + list(names)
    for host in extra:
        host = host.strip().lower()
        if host:
            out.append(host if _has_port(host) else f'{host}:*')
            if not _has_port(host):
                out.append(host)
    return list(dict.fromkeys(out))


def _has_port(host: str) -> bool:
    tail = host.rpartition(']')[2] if host.startswith('[') else host
    return ':' in tail


def allowed_origins(hosts: Sequence[str], extra: Iterable[str] = ()) -> list[str]:
    """Origin header values accepted: http and https on each allowed host, and `extra`."""
    out = [f'{scheme}://{host}' for host in hosts for scheme in ('http', 'https')]
    out.extend(origin.strip().rstrip('/').lower() for origin in extra if origin.strip())
    return list(dict.fromkeys(out))


def matches(value: str, allowed: Sequence[str]) -> bool:
    """`value` equals an allowed entry, or has its prefix with any port (`name:*`)."""
    value = value.lower()
    for entry in allowed:
        if value == entry:
            return True
        if entry.endswith(':*'):
            base, _, port = value.rpartition(':')
            if base == entry[:-2] and port.isdigit():
                return True
    return False


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not header:
        return None
    scheme, _, token = header.partition(' ')
    token = token.strip()
    if scheme.lower() != 'bearer' or not token:
        return None
    return token


class TokenVerifier:
    """Asks the service who a token stands for, and remembers the answer for a few seconds.

    Every client it hands out shares one connection pool; each carries one caller's token.
    """

    def __init__(self, url: str, *, ttl_s: float = VERIFIED_TTL_S) -> None:
        self.url = url.rstrip('/')
        self._transport = httpx.HTTPTransport()
        self._ttl_s = ttl_s
        self._known: dict[str, tuple[float, Identity]] = {}
        self._lock = threading.Lock()

    def client(self, token: str) -> Mnemos:
        """A client of the service acting with `token` (cheap: the pool is shared)."""
        return Mnemos(self.url, token, transport=self._transport)

    def identity(self, token: str) -> Identity | None:
        """Who `token` stands for; None when the service answers 401. Other failures (the
        service is down) raise `MnemosError`."""
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            known = self._known.get(key)
            if known is not None and known[0] > now:
                return known[1]
        try:
            data = self.client(token).request('GET', '/v1/whoami').json()
        except Unauthorized:
            return None
        found = Identity(
            name=str(data.get('name')),
            admin=bool(data.get('admin')),
            agent_id=data.get('agent_id'),
            scope=data.get('scope'),
        )
        with self._lock:
            if len(self._known) >= _MAX_REMEMBERED:
                self._known = {k: v for k, v in self._known.items() if v[0] > now}
                if len(self._known) >= _MAX_REMEMBERED:
                    self._known.clear()
            self._known[key] = (now + self._ttl_s, found)
        return found

    def close(self) -> None:
        """Close the shared connection pool."""
        self._transport.close()


class GuessLimiter:
    """Unknown bearer tokens per client address: after `limit` of them within `window_s`, the
    address is refused every request (429 with Retry-After) until the oldest of them leaves the
    window. Valid tokens are refused too, or a blocked guesser would still learn which guess is
    right. The service keeps its own count of the same kind; this one stops guesses before they
    reach it.
    """

    def __init__(
        self,
        limit: int = MCP_AUTH_FAILURES_PER_WINDOW,
        window_s: float = AUTH_FAILURE_WINDOW_S,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = _MAX_GUESSERS,
    ) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._max_addresses = max_addresses
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, address: str) -> int:
        """Whole seconds until `address` may try again; 0 when it is not blocked."""
        with self._lock:
            now = self._clock()
            failures = self._recent(address, now)
            if failures is None or len(failures) < self.limit:
                return 0
            return max(1, math.ceil(failures[0] + self.window_s - now))

    def failed(self, address: str) -> None:
        """Count one unknown token from `address`."""
        now = self._clock()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None:
                if len(self._failures) >= self._max_addresses:
                    for known in list(self._failures):
                        self._recent(known, now)
                if len(self._failures) >= self._max_addresses:
                    # a flood from many addresses: drop the oldest-seen half rather than grow
                    for known in list(self._failures)[: self._max_addresses // 2]:
                        del self._failures[known]
                failures = self._failures[address] = deque()
            failures.append(now)
            while len(failures) > self.limit:
                failures.popleft()

    def _recent(self, address: str, now: float) -> deque[float] | None:
        failures = self._failures.get(address)
        if failures is None:
            return None
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return None
        return failures


async def _json_error(
    send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> None:
    body = json.dumps(
        {'error': code, 'message': message, 'details': [{'msg': message, 'type': code}]}
    ).encode()
    raw = [(b'content-type', b'application/json'), (b'content-length', str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({'type': 'http.response.start', 'status': status, 'headers': raw})
    await send({'type': 'http.response.body', 'body': body})


class Gatekeeper:
    """ASGI middleware in front of the MCP app: Host and Origin first, then the bearer token.
    Nothing of the MCP layer runs for a request that fails either."""

    def __init__(
        self,
        app: ASGIApp,
        verifier: TokenVerifier,
        *,
        hosts: Sequence[str],
        origins: Sequence[str],
    ) -> None:
        self.app = app
        self.verifier = verifier
        self.hosts = [h.lower() for h in hosts]
        self.origins = [o.lower() for o in origins]
        # fewer guesses per caller than the service allows per address: every guess reaches the
        # service from this process's one address, and guessers should not lock it out
        self.guesses = GuessLimiter(limit=MCP_AUTH_FAILURES_PER_WINDOW)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope['type'] != 'http':  # lifespan: the session manager's start and stop
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get('host', '')
        if not matches(host, self.hosts):
            message = f'Host {host!r} is not allowed; start mnemos mcp with --allow-host'
            await _json_error(send, 421, 'misdirected_request', message)
            return
        origin = headers.get('origin')
        if origin and not matches(origin, self.origins):
            message = f'Origin {origin!r} is not allowed; start mnemos mcp with --allow-origin'
            await _json_error(send, 403, 'forbidden', message)
            return
        client = scope.get('client')
        address = str(client[0]) if client else '-'
        wait = self.guesses.retry_after(address)
        if wait:
            message = f'too many unknown tokens from this address: retry in {wait} s'
            await _json_error(send, 429, 'too_many_requests', message, {'Retry-After': str(wait)})
            return
        token = bearer(headers.get('authorization'))
        challenge = {'WWW-Authenticate': 'Bearer realm="mnemos-mcp"'}
        if token is None:
            message = 'missing bearer token: send Authorization: Bearer <a Mnemos token>'
            await _json_error(send, 401, 'unauthorized', message, challenge)
            return
        try:
            identity = await anyio.to_thread.run_sync(self.verifier.identity, token)
        except MnemosError as exc:
            message = f'the Mnemos service could not check the token: {exc.message}'
            await _json_error(send, 503, 'service_unavailable', message)
            return
        if identity is None:
            self.guesses.failed(address)
            await _json_error(send, 401, 'unauthorized', 'unknown bearer token', challenge)
            return
        await self.app(scope, receive, send)


def caller_token(request: Any) -> str:
    """The bearer token of the HTTP request that carried an MCP message (the gatekeeper has
    already checked it)."""
    headers = getattr(request, 'headers', None)
    token = bearer(headers.get('authorization') if headers is not None else None)
    if token is None:  # unreachable behind the gatekeeper; refuse rather than guess
        raise Unauthorized(401, 'unauthorized', 'no bearer token on this MCP request')
    return token
