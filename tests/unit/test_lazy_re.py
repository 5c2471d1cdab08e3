"""Patterns compiled on first use (core/lazy_re.py): they answer as `re.compile` would, compile
once when threads race to use them, and every pattern of the tables that use them compiles."""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from core.lazy_re import LazyPattern, lazy_compile

# the modules whose pattern tables compile on first use
LAZY_MODULES = (
    'recall.write.fact_patterns',
    'recall.write.rules',
    'recall.write.scanner',
    'kg.question',
    'kg.dates',
    'kg.resolution',
    'kg.extraction.lexicon',
    'kg.extraction.zh_reader',
    'consolidation.text',
)


def lazy_patterns(value: Any, seen: set[int] | None = None) -> Iterator[LazyPattern]:
    """Every LazyPattern in `value`, looking into tuples, lists, sets and dicts."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, LazyPattern):
        yield value
    elif isinstance(value, tuple | list | set | frozenset):
        for item in value:
            yield from lazy_patterns(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from lazy_patterns(item, seen)


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    text = 'I moved to Lisbon in 2021, then to Porto'
    eager = re.compile(r'(?P<verb>moved) to (?P<place>[A-Z]\w+)', re.IGNORECASE)
    lazy = lazy_compile(eager.pattern, re.IGNORECASE)
    assert lazy.pattern == eager.pattern
    assert lazy.flags == eager.flags
    assert lazy.groups == eager.groups
    assert lazy.groupindex == eager.groupindex
    found, expected = lazy.search(text), eager.search(text)
    assert found is not None and expected is not None
    assert found.groupdict() == expected.groupdict()
    assert lazy.match(text) is None
    assert lazy.sub('X', text) == eager.sub('X', text)
    assert lazy.findall(text) == eager.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.split(text) == eager.split(text)
    assert lazy.fullmatch('moved to Porto') is not None


def test_a_lazy_pattern_compiles_at_first_use_only() -> None:
    lazy = lazy_compile(r'\d+')
    assert isinstance(lazy, LazyPattern)
    assert lazy._compiled is None
    assert lazy.findall('1 2') == ['1', '2']
    assert lazy._compiled is not None


def test_threads_racing_to_a_first_use_share_one_compiled_pattern() -> None:
    lazy = lazy_compile(r'(?:a|b)+c')
    assert isinstance(lazy, LazyPattern)
    start = threading.Barrier(8)
    got: list[Any] = []

    def use() -> None:
        start.wait()
        got.append((lazy.compiled(), lazy.search('xxabc')))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(compiled) for compiled, _ in got}) == 1
    assert all(found is not None and found.group() == 'abc' for _, found in got)


def test_a_private_name_is_not_looked_up_on_the_compiled_pattern() -> None:
    lazy = lazy_compile(r'x')
    with pytest.raises(AttributeError):
        _ = lazy._missing  # type: ignore[attr-defined]
    assert isinstance(lazy, LazyPattern) and lazy._compiled is None


@pytest.mark.parametrize('name', LAZY_MODULES)
def test_every_pattern_of_a_lazy_table_compiles_as_re_compile_would(name: str) -> None:
    module = importlib.import_module(name)
    found = list(lazy_patterns(list(vars(module).values())))
    assert found, f'{name} holds no lazy pattern'
    for lazy in found:
        eager = re.compile(lazy.pattern, lazy._flags)
        assert lazy.compiled().pattern == eager.pattern
        assert lazy.compiled().flags == eager.flags
