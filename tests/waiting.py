"""One way for tests (and the benches that reuse their setup) to wait: for a condition, with a
deadline, never for a fixed time.

Deadlines are generous on purpose: the machines that run the suite are busy 2-core ones, and a
condition that holds returns at once, so a long deadline costs nothing when the code is right.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar('T')

DEADLINE_S = 60.0


def wait_until(
    check: Callable[[], T | None],
    what: str | Callable[[], object],
    timeout: float = DEADLINE_S,
    interval: float = 0.05,
) -> T:
    """Call `check` until it returns something truthy and return that.

    After `timeout` seconds, an AssertionError naming `what` (a callable is asked then, for the
    state that did not come). `check` is always asked once more after the deadline has passed,
    so a slow machine that got there in the end passes.
    """
    deadline = time.monotonic() + timeout
    while True:
        late = time.monotonic() > deadline
        found = check()
        if found:
            return found
        if late:
            said = what if isinstance(what, str) else what()
            raise AssertionError(f'not within {timeout:g} s: {said}')
        time.sleep(interval)


async def wait_until_async(
    check: Callable[[], Awaitable[T | None]],
    what: str | Callable[[], object],
    timeout: float = DEADLINE_S,
    interval: float = 0.05,
) -> T:
    """`wait_until` for a check that must be awaited (an MCP client's calls): the event loop
    runs on while it waits."""
    import anyio  # only the async tests need it (it comes with httpx and mcp)

    deadline = time.monotonic() + timeout
    while True:
        late = time.monotonic() > deadline
        found = await check()
        if found:
            return found
        if late:
            said = what if isinstance(what, str) else what()
            raise AssertionError(f'not within {timeout:g} s: {said}')
        await anyio.sleep(interval)
