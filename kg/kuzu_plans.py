"""Kuzu statements planned once per connection and reused.

Kuzu plans a query string on every `execute`, holding the GIL, and the graph job of a single
write runs a dozen or more small indexed statements (`kg.kuzu_rows.SMALL_BATCH` says why one per
row): planned afresh each time, they take a large share of the service's GIL-held time under a
mixed load. A plan is reused only for parameters of the same names and scalar types: Kuzu types
parameters from the values it plans with, and planning a list parameter without them crashes
it (a UNION over `$ids`, Kuzu 0.11.3), so statements with a list or map parameter are planned
on every call.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

# plans kept per connection, least recently used dropped: the store's statement texts are a few
# dozen, told apart by table name and by their parameters' types
PLANS_PER_CONNECTION = 256


class _Plans:
    """One connection's plans, least recently used first."""

    __slots__ = ('__weakref__', 'conn', 'items')

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.items: OrderedDict[tuple[str, Any], Any] = OrderedDict()


def scalar_shape(params: dict[str, Any] | None) -> tuple[tuple[str, type], ...] | None:
    """The parameter names and value types a plan is reused for, or None when there are no
    parameters or one of them is a list, a tuple or a map (planned on every call)."""
    if not params:
        return None
    shape = tuple((k, type(v)) for k, v in params.items())
    return None if any(t in (list, dict, tuple) for _, t in shape) else shape


# (connection, query, parameters) -> a plan (a `kuzu.PreparedStatement`); raises if it cannot
Prepare = Callable[[Any, str, dict[str, Any]], Any]


class PlanCache:
    """Each thread's plans for its own connection (the store gives every thread one): kept in
    the thread's locals, so they go with the thread as its connection does."""

    def __init__(self, prepare: Prepare, size: int = PLANS_PER_CONNECTION) -> None:
        self._prepare = prepare
        self._size = size
        self._local = threading.local()
        self._every: weakref.WeakSet[_Plans] = weakref.WeakSet()

    def execute(self, conn: Any, query: str, params: dict[str, Any] | None) -> Any:
        """`conn.execute(query, params)`, through a plan made earlier on `conn` if there is one
        for these parameter types."""
        shape = scalar_shape(params)
        if shape is None or params is None:
            return conn.execute(query, params or {})
        return conn.execute(self._plan(conn, query, params, shape), params)

    def _plan(self, conn: Any, query: str, params: dict[str, Any], shape: Any) -> Any:
        plans: _Plans | None = getattr(self._local, 'plans', None)
        if plans is None or plans.conn is not conn:  # a new connection: a reopening
            plans = self._local.plans = _Plans(conn)
            self._every.add(plans)
        key = (query, shape)
        plan = plans.items.get(key)
        if plan is not None:
            plans.items.move_to_end(key)
            return plan
        plan = self._prepare(conn, query, params)
        plans.items[key] = plan
        if len(plans.items) > self._size:
            plans.items.popitem(last=False)
        return plan

    def clear(self) -> None:
        """Drop every thread's plans; the caller closes the connections next, and no statement
        runs meanwhile (the store holds its write lock)."""
        for plans in list(self._every):
            plans.items.clear()

    def __len__(self) -> int:
        return sum(len(p.items) for p in list(self._every))
