"""The Edge adapter's payload cache: what a read may keep when writes land meanwhile."""

from __future__ import annotations

import pytest

import vectors.edge_reads as edge


def test_a_read_keeps_only_payloads_not_written_since_it_began() -> None:
    cache = edge.PayloadCache(10)
    since = cache.generation
    cache.evict('m', ['a'])  # written while the read was under way
    cache.put('m', {'a': {'v': 'old'}, 'b': {'v': 1}}, since)
    assert cache.get('m', ['a', 'b']) == {'b': {'v': 1}}
    assert cache.changed('m', ['a', 'b'], since) == {'a'}
    assert cache.changed('m', ['a', 'b'], cache.generation) == set()
    # the same id in another collection is another point
    cache.put('other', {'a': {'v': 2}}, since)
    assert cache.get('other', ['a']) == {'a': {'v': 2}}


def test_when_evictions_are_forgotten_a_read_keeps_nothing_and_anything_may_have_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(edge, 'EVICTIONS_REMEMBERED', 2)
    cache = edge.PayloadCache(10)
    since = cache.generation
    cache.evict('m', ['x', 'y', 'z'])  # more ids than remembered
    cache.put('m', {'a': {'v': 1}}, since)
    assert cache.get('m', ['a']) == {}
    assert cache.changed('m', ['a'], since) is None
    later = cache.generation
    cache.put('m', {'a': {'v': 1}}, later)
    assert cache.get('m', ['a']) == {'a': {'v': 1}}
    cache.clear()
    cache.put('m', {'b': {'v': 1}}, later)  # began before the clear
    assert cache.get('m', ['a', 'b']) == {}


def test_the_least_recently_read_goes_first_and_size_zero_keeps_nothing() -> None:
    cache = edge.PayloadCache(2)
    cache.put('m', {'a': {}, 'b': {}}, 0)
    cache.get('m', ['a'])  # a is now the most recent
    cache.put('m', {'c': {}}, 0)
    assert set(cache.get('m', ['a', 'b', 'c'])) == {'a', 'c'}
    off = edge.PayloadCache(0)
    off.put('m', {'a': {}}, 0)
    assert off.get('m', ['a']) == {} and len(off) == 0


def test_every_get_returns_new_dicts_equal_to_what_was_put() -> None:
    cache = edge.PayloadCache(10)
    payload = {'text': 'Ann: hi', 'tags': ['a'], 'metadata': {'dia_id': 'D1:1'}, 'n': 2**63}
    cache.put('m', {'a': payload}, 0)
    first = cache.get('m', ['a'])['a']
    assert first == payload
    first['tags'].append('changed')
    first['metadata']['dia_id'] = 'changed'
    first['text'] = 'changed'
    assert cache.get('m', ['a'])['a'] == {
        'text': 'Ann: hi', 'tags': ['a'], 'metadata': {'dia_id': 'D1:1'}, 'n': 2**63
    }  # fmt: skip
    # the caller's own dict was copied when put, not kept
    payload['text'] = 'changed too'
    assert cache.get('m', ['a'])['a']['text'] == 'Ann: hi'


def test_the_byte_bound_drops_the_least_recent_and_accounts_every_change() -> None:
    entry = edge.ENTRY_OVERHEAD + len(edge.marshal.dumps((0, ('x' * 100,))))
    cache = edge.PayloadCache(100, max_bytes=3 * entry)
    cache.put('m', {i: {'text': 'x' * 100} for i in 'abc'}, 0)
    assert len(cache) == 3 and cache.nbytes == 3 * entry
    cache.get('m', ['a'])
    cache.put('m', {'d': {'text': 'x' * 100}}, 0)
    assert set(cache.get('m', list('abcd'))) == {'a', 'c', 'd'}
    cache.put('m', {'a': {'text': 'x' * 100}}, 0)  # replacing counts once
    assert cache.nbytes == 3 * entry
    cache.evict('m', ['a', 'zz'])
    assert cache.nbytes == 2 * entry
    cache.clear()
    assert cache.nbytes == 0 and len(cache) == 0
    assert len(edge.PayloadCache(100, max_bytes=0)) == 0
    off = edge.PayloadCache(100, max_bytes=0)
    off.put('m', {'a': {}}, 0)
    assert off.get('m', ['a']) == {}


def test_payload_shapes_past_the_bound_and_unmarshallable_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(edge, 'MAX_SHAPES', 2)
    cache = edge.PayloadCache(100)
    shapes = {str(n): {f'k{n}': n, 'text': 't'} for n in range(5)}
    cache.put('m', shapes, 0)
    assert cache.get('m', list(shapes)) == shapes
    assert len(cache._keys) == 2
    # an object marshal cannot hold is not kept (the adapter reads it from Edge instead)
    cache.put('m', {'odd': {'v': object()}}, 0)
    assert cache.get('m', ['odd']) == {}


def test_edge_exact_accepts_only_what_edge_gives_back_unchanged() -> None:
    assert edge.edge_exact({'a': [1, 2.5, None, True, 'x', {'b': []}], 'n': -(2**63)})
    assert edge.edge_exact(2**64 - 1)
    assert not edge.edge_exact({'a': (1, 2)})  # Edge gives a list back
    assert not edge.edge_exact({'n': 2**70})  # a float back
    assert not edge.edge_exact({'f': float('nan')})
    assert not edge.edge_exact({1: 'non-string key'})
    assert not edge.edge_exact({'s': {1, 2}})
    deep: object = 'leaf'
    for _ in range(5000):  # past the interpreter's recursion limit: refused, never raised
        deep = [deep]
    assert not edge.edge_exact(deep)
    assert edge.edge_exact([[['leaf']]])
