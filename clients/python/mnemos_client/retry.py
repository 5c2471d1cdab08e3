"""When a call is tried again, and how long to wait first."""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx

# a request that may have reached the service is sent again only when sending it twice does what
# sending it once does
IDEMPOTENT = frozenset({'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'})
# failures before the request left this process: safe to send again whatever the method
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class Retry:
    """Retries with exponential backoff and jitter.

    A call is tried again, at most `retries` times, when the service could not be reached, when
    it answered 429 or 503 (it did not do the work), and, for idempotent methods only, when the
    connection broke after the request was sent. `Retry-After` is honoured up to `max_wait_s`.
    """

    retries: int = 3
    backoff_s: float = 0.25
    max_wait_s: float = 8.0
    statuses: frozenset[int] = frozenset({429, 503})

    def wait_after_error(self, method: str, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before try `attempt + 1` after `exc`, or None: give up."""
        if attempt >= self.retries:
            return None
        if isinstance(exc, NOT_SENT) or (
            isinstance(exc, httpx.TransportError) and method in IDEMPOTENT
        ):
            return self._backoff(attempt)
        return None

    def wait_after_answer(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before try `attempt + 1` after an answer, or None: keep the answer."""
        if attempt >= self.retries or response.status_code not in self.statuses:
            return None
        after = response.headers.get('Retry-After', '')
        if after.isdigit():
            return min(float(after), self.max_wait_s)
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        # full jitter: clients failed by the same outage do not come back in step
        ceiling = min(self.backoff_s * 2**attempt, self.max_wait_s)
        return random.uniform(ceiling / 2, ceiling)


NO_RETRY = Retry(retries=0)
