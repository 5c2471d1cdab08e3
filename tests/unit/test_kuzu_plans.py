"""kg.kuzu_plans: a statement of scalar parameters is planned once per connection and types."""

from __future__ import annotations

import threading
from typing import Any

from kg.kuzu_plans import PlanCache, scalar_shape


class _Conn:
    def __init__(self) -> None:
        self.ran: list[tuple[Any, dict[str, Any]]] = []

    def execute(self, query: Any, params: dict[str, Any] | None = None) -> Any:
        self.ran.append((query, dict(params or {})))
        return 'ok'


def _cache(size: int = 256) -> tuple[PlanCache, list[tuple[Any, str]]]:
    planned: list[tuple[Any, str]] = []

    def prepare(conn: Any, query: str, params: dict[str, Any]) -> Any:
        planned.append((conn, query))
        return ('plan', query, len(planned))

    return PlanCache(prepare, size), planned


def test_the_same_query_and_types_reuse_one_plan_and_other_types_get_their_own() -> None:
    cache, planned = _cache()
    conn = _Conn()
    q = 'MATCH (n {id: $key}) RETURN n'
    for key in ('a', 'b', 'c'):
        assert cache.execute(conn, q, {'key': key}) == 'ok'
    assert len(planned) == 1
    assert [p for p, _ in conn.ran] == [('plan', q, 1)] * 3
    assert [v for _, v in conn.ran] == [{'key': 'a'}, {'key': 'b'}, {'key': 'c'}]
    cache.execute(conn, q, {'key': 7})  # an int is typed apart from a string
    cache.execute(conn, q, {'key': None})
    assert len(planned) == 3 and len(cache) == 3


def test_lists_maps_and_no_parameters_are_never_planned_ahead() -> None:
    cache, planned = _cache()
    conn = _Conn()
    cache.execute(conn, 'MATCH (n) WHERE n.id IN $ids RETURN n', {'ids': ['a']})
    cache.execute(conn, 'UNWIND $rows AS r RETURN r', {'rows': [{'a': 1}]})
    cache.execute(conn, 'COMMIT', None)
    assert planned == []
    assert [q for q, _ in conn.ran] == [
        'MATCH (n) WHERE n.id IN $ids RETURN n',
        'UNWIND $rows AS r RETURN r',
        'COMMIT',
    ]
    assert scalar_shape({'s': 'x', 'n': 1}) == (('s', str), ('n', int))
    assert scalar_shape({'t': ('a',)}) is None and scalar_shape({}) is None


def test_a_new_connection_plans_again_and_clear_drops_every_threads_plans() -> None:
    cache, planned = _cache()
    first, second = _Conn(), _Conn()
    q = 'MATCH (n {id: $key}) RETURN n'
    cache.execute(first, q, {'key': 'a'})
    cache.execute(second, q, {'key': 'a'})  # this thread's connection after a reopening
    assert [c for c, _ in planned] == [first, second]
    other = threading.Thread(target=cache.execute, args=(_Conn(), q, {'key': 'b'}))
    other.start()
    other.join()
    assert len(planned) == 3
    cache.clear()
    assert len(cache) == 0
    cache.execute(second, q, {'key': 'c'})
    assert len(planned) == 4


def test_the_least_recently_used_plan_goes_first() -> None:
    cache, planned = _cache(size=2)
    conn = _Conn()
    for q in ('Q1 $k', 'Q2 $k', 'Q1 $k', 'Q3 $k', 'Q1 $k', 'Q2 $k'):
        cache.execute(conn, q, {'k': 1})
    # Q1 was used again before Q3 arrived, so Q2 went; Q2 then had to be planned again
    assert [q for _, q in planned] == ['Q1 $k', 'Q2 $k', 'Q3 $k', 'Q2 $k']
    assert len(cache) == 2
