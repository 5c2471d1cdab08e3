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
