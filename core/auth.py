"""Principals: who a bearer token stands for and which scopes it may read and write; how
strong an admin token must be; and how many unknown tokens one address may try."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from core.errors import Forbidden, ReadOnlyForTeamMember
from core.scopes import GLOBAL, agent_of


class Principal(BaseModel):
    """The caller: admin (every scope) or an agent bound to its own scopes."""

    model_config = ConfigDict(frozen=True)

    name: str
    admin: bool = False
    agent_id: str | None = None
    extra_scopes: tuple[str, ...] = ()
    leader_scopes: tuple[str, ...] = Field(
        default=(), description="team leaders' scopes: readable as fallback, never writable"
    )

    def can_write(self, scope: str) -> bool:
        """Own agent scope and its channels, and scopes granted explicitly."""
        if self.admin:
            return True
        if self.agent_id is not None and agent_of(scope) == self.agent_id:
            return True
        return scope in self.extra_scopes

    def can_read(self, scope: str) -> bool:
        """Writable scopes, `global`, and team leaders' scopes."""
        return self.can_write(scope) or scope == GLOBAL or scope in self.leader_scopes

    def require_write(self, scope: str) -> None:
        """Raise unless this principal may write `scope`."""
        if self.can_write(scope):
            return
        if scope in self.leader_scopes:
            raise ReadOnlyForTeamMember(scope)
        raise Forbidden(f'token may not write scope {scope!r}', details={'scope': scope})

    def require_read(self, scope: str) -> None:
        """Raise unless this principal may read `scope`."""
        if not self.can_read(scope):
            raise Forbidden(f'token may not read scope {scope!r}', details={'scope': scope})


# ---- admin token strength ---------------------------------------------------------------------

MIN_TOKEN_CHARS = 16
MIN_DISTINCT_CHARS = 8
MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def weak_token_reason(token: str) -> str | None:
    """Why `token` is too weak to be the admin token (None when it is not): shorter than 16
    characters, whitespace or control characters (a header cannot carry them reliably), or
    fewer than 8 different characters (`'x' * 32`, sixteen spaces)."""
    if len(token) < MIN_TOKEN_CHARS:
        return (
            f'is {len(token)} characters; use at least {MIN_TOKEN_CHARS} random ones: {MAKE_TOKEN}'
        )
    if any(c.isspace() or not c.isprintable() for c in token):
        return f'contains whitespace or control characters; use a random one: {MAKE_TOKEN}'
    distinct = len(set(token))
    if distinct < MIN_DISTINCT_CHARS:
        return (
            f'has only {distinct} different characters (at least {MIN_DISTINCT_CHARS}): '
            f'it can be guessed; use a random one: {MAKE_TOKEN}'
        )
    return None


# ---- failed authentication --------------------------------------------------------------------

AUTH_FAILURES_PER_WINDOW = 30
AUTH_FAILURE_WINDOW_S = 60.0


class FailedAuthLimiter:
    """Unknown bearer tokens per client address: after `limit` of them within `window_s`, the
    address is refused every request (429 with Retry-After) until the oldest of them leaves the
    window. Refusing valid tokens too is the point: otherwise a blocked guesser would still
    learn which guess is right. A missing or malformed header is not a guess and is not counted.
    """

    def __init__(
        self,
        limit: int = AUTH_FAILURES_PER_WINDOW,
        window_s: float = AUTH_FAILURE_WINDOW_S,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = 10_000,
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
            failures = self._recent(address, self._clock())
            if failures is None or len(failures) < self.limit:
                return 0
            return max(1, math.ceil(failures[0] + self.window_s - self._clock()))

    def failed(self, address: str) -> None:
        """Count one unknown token from `address`."""
        now = self._clock()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None:
                if len(self._failures) >= self._max_addresses:
                    self._forget_idle(now)
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

    def _forget_idle(self, now: float) -> None:
        for address in list(self._failures):
            self._recent(address, now)
        if len(self._failures) >= self._max_addresses:
            # a flood from many addresses: drop the oldest-seen half rather than grow
            for address in list(self._failures)[: self._max_addresses // 2]:
                del self._failures[address]
