"""One SQLite transaction around a block, for the stores that keep a connection in autocommit
(`isolation_level=None`) and open their transactions themselves."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class _Connection(Protocol):
    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, /) -> object: ...


@contextmanager
def transaction(db: _Connection, begin: str = 'BEGIN') -> Iterator[None]:
    """Run the block in one transaction: committed when it ends, rolled back when it raises or
    the COMMIT fails (left open, the next BEGIN on this connection would fail too)."""
    db.execute(begin)
    try:
        yield
        db.execute('COMMIT')
    except BaseException:
        if db.in_transaction:
            db.execute('ROLLBACK')
        raise
