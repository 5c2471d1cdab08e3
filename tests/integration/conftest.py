"""Fixtures of the integration tests: one free Redis database for those that run on Redis."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.integration.redis_chain import REDIS_HOST, REDIS_PORT, free_redis_db

LOCK_KEY = 'mnemos-test:redis-chain'


def _redis_or_skip() -> None:
    import redis

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        message = (
            f'Redis is unreachable at {REDIS_HOST}:{REDIS_PORT} ({exc}); the Redis tests '
            'must run on CI: start redis-server before the tests'
        )
        if os.environ.get('CI'):
            pytest.fail(message)
        pytest.skip(message)
    finally:
        client.close()


@pytest.fixture(scope='module')
def redis_db() -> Iterator[int]:
    """A Redis database no other run of these tests is using; emptied before and after."""
    _redis_or_skip()
    with free_redis_db(LOCK_KEY, ttl_s=900) as db:
        yield db
