"""Time source: decay, validity windows and expiry read the clock, so tests can move it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Returns the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to (tests, benchmarks, replays)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self._now += delta

    def set(self, when: datetime) -> None:
        with self._lock:
            self._now = when


def aware(value: datetime) -> datetime:
    """The same instant as an aware UTC datetime (naive values are taken as UTC)."""
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+14:00: before year 1 in UTC
        raise ValueError(f'{value.isoformat()} is outside the years 1 to 9999 in UTC') from None


def aware_or_none(value: datetime | None) -> datetime | None:
    """`aware(value)`, passing None through (optional timestamps from clients and stores)."""
    return aware(value) if value is not None else None


def to_epoch(when: datetime) -> float:
    """Seconds since the epoch; naive datetimes are taken as UTC."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


#: instants stored as epoch seconds must read back as a datetime: a day's margin on each side
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def storable(when: datetime) -> datetime:
    """`when` (naive taken as UTC) if it lies between EARLIEST and LATEST, else ValueError."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if not EARLIEST <= when <= LATEST:  # aware comparison: no overflow at the edges
        raise ValueError('must lie between 0001-01-02 and 9999-12-30 (UTC)')
    return when


def from_epoch(seconds: float) -> datetime:
    """Aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(seconds, UTC)
