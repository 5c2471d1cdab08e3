"""`runtime.stop.stop_process` waits for the closing at most its budget (`KG_STOP_BUDGET_S`).

Run in a child process: the stop ends its process with `os._exit`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from core.settings import Settings

CHILD = textwrap.dedent(
    """
    import logging, sys, threading
    from runtime.stop import stop_process

    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    release = threading.Event()

    class Jobs:
        def stop(self, grace_s):
            pass

    class Services:
        jobs = Jobs()

        def close(self):
            release.wait(float(sys.argv[1]))  # a store that takes this long to close

    stop_process(Services(), budget_s=float(sys.argv[2]), code=3)
    """
)


def stop(close_s: float, budget_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, '-c', CHILD, str(close_s), str(budget_s)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_closing_that_outlasts_the_budget_is_left_and_the_process_exits_with_its_code() -> None:
    done = stop(close_s=600, budget_s=0.2)  # without the budget the child would wait 10 min
    assert done.returncode == 3
    assert 'exiting without waiting' in done.stderr
    assert 'stopped cleanly' not in done.stderr


def test_a_closing_within_the_budget_stops_cleanly() -> None:
    done = stop(close_s=0, budget_s=120)
    assert done.returncode == 3
    assert 'stopped cleanly' in done.stderr


def test_the_budget_is_a_setting_with_the_default_docker_allows() -> None:
    assert Settings.load(environ={}).stop_budget_s == 8.0
    assert Settings.load(environ={'KG_STOP_BUDGET_S': '30'}).stop_budget_s == 30
    with pytest.raises(Exception, match='stop_budget_s'):
        Settings.load(environ={'KG_STOP_BUDGET_S': '0'})
