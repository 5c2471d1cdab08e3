"""waitress's queue-depth warning, rate-limited (api/serving.py)."""

from __future__ import annotations

import logging

from api.serving import AtMostEvery, quiet_queue_warnings


def test_at_most_one_record_per_interval_passes() -> None:
    now = [100.0]
    gate = AtMostEvery(60.0, clock=lambda: now[0])
    record = logging.LogRecord('waitress.queue', logging.WARNING, '', 0, 'depth', None, None)
    passed = []
    for step in (0.0, 1.0, 30.0, 29.0, 0.5, 61.0):
        now[0] += step
        passed.append(gate.filter(record))
    # at 100, 101, 131, 160, 160.5 and 221.5 s: the first, then the first a minute later
    assert passed == [True, False, False, True, False, True]


def test_the_queue_warning_gets_one_gate_however_often_serving_starts() -> None:
    queue_log = logging.getLogger('waitress.queue')
    before = list(queue_log.filters)
    try:
        quiet_queue_warnings()
        quiet_queue_warnings()
        gates = [f for f in queue_log.filters if isinstance(f, AtMostEvery)]
        assert len(gates) == 1
    finally:
        queue_log.filters[:] = before
