"""Admin token strength and the limit on unknown tokens per address, the service's and the MCP
server's (pure logic)."""

from __future__ import annotations

import pytest

from core.auth import FailedAuthLimiter, weak_token_reason
from core.errors import ConfigurationError
from core.settings import Settings
from mnemos_client.mcp.http_auth import GuessLimiter

LIMITERS = pytest.mark.parametrize('limiter_class', [FailedAuthLimiter, GuessLimiter])


@pytest.mark.parametrize(
    'token',
    [' ' * 16, '\t' * 20, 'x' * 32, 'ab' * 16, 'abcdabcdabcdabcd', 'has space 0123456789'],
)
def test_weak_admin_tokens_are_refused_with_a_reason(token: str) -> None:
    assert weak_token_reason(token)
    with pytest.raises(ConfigurationError) as refused:
        Settings.load({}, api_token=token)
    assert (
        'admin token' in refused.value.message and 'secrets.token_urlsafe' in refused.value.message
    )


@pytest.mark.parametrize('token', ['Qm3xV9tLp2ZrK8wN', 'live-admin-token-0123456789abcdef'])
def test_random_tokens_pass(token: str) -> None:
    assert weak_token_reason(token) is None
    assert Settings.load({}, api_token=token).api_token == token


@LIMITERS
def test_an_address_is_refused_after_too_many_unknown_tokens_until_the_window_passes(
    limiter_class: type[FailedAuthLimiter | GuessLimiter],
) -> None:
    now = [1000.0]
    limiter = limiter_class(limit=3, window_s=60, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.retry_after('10.0.0.1') == 0
        limiter.failed('10.0.0.1')
        now[0] += 1
    assert limiter.retry_after('10.0.0.1') == 57  # the first failure leaves the window at 1060
    assert limiter.retry_after('10.0.0.2') == 0  # per address
    now[0] = 1060.5
    assert limiter.retry_after('10.0.0.1') == 0
    limiter.failed('10.0.0.1')
    assert limiter.retry_after('10.0.0.1') == 1  # blocked again until 1061 (1001 + 60)


@LIMITERS
def test_the_tracked_addresses_stay_bounded(
    limiter_class: type[FailedAuthLimiter | GuessLimiter],
) -> None:
    limiter = limiter_class(limit=2, window_s=60, clock=lambda: 0.0, max_addresses=100)
    for i in range(1000):
        limiter.failed(f'10.1.{i // 256}.{i % 256}')
    assert len(limiter._failures) <= 100
