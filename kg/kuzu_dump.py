"""Full dumps of the graph, in pages, to fill the in-memory mirror (kg/mirror.py).

One query over every mention would return the string ids of both ends, and Kuzu holds a query's
result in its buffer pool: at ~900k chunks that no longer fits the default 256 MB, the mirror
cannot be filled, and the graph then refuses every read and write. So each node table's ids are
read once, by internal offset, and links come in pages of `PAGE` nodes or relationships that
return offsets only, which fit a small pool at any size.

No kuzu call lives here: `run(query, params)` runs one statement and yields its rows, under a
read lock the caller holds for the whole dump (offsets stay valid only while nothing writes).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from kg.kuzu_rows import SOURCE_TABLES
from kg.models import MentionRow, RelationRow

Run = Callable[[str, dict[str, Any]], Iterator[tuple[Any, ...]]]
PAGE = 100_000  # rows of one node table, or relationships, per statement


def _top(run: Run, match: str, var: str) -> int:
    """One past the largest internal offset `match` binds to `var` (0 when it binds none)."""
    [(top,)] = list(run(f'{match} RETURN max(offset(id({var})))', {}))
    return 0 if top is None else int(top) + 1


def _pages(run: Run, match: str, var: str, returns: str) -> Iterator[tuple[Any, ...]]:
    """Rows of `match ... RETURN returns`, `PAGE` offsets of `var` at a time."""
    for lo in range(0, _top(run, match, var), PAGE):
        where = f'WHERE offset(id({var})) >= $lo AND offset(id({var})) < $hi'
        yield from run(f'{match} {where} RETURN {returns}', {'lo': lo, 'hi': lo + PAGE})


def node_ids(run: Run, table: str) -> list[str | None]:
    """The ids of a node table's nodes, indexed by internal offset (None where deleted)."""
    match = f'MATCH (n:{table})'
    ids: list[str | None] = [None] * _top(run, match, 'n')
    for offset, ident in _pages(run, match, 'n', 'offset(id(n)), n.id'):
        ids[offset] = sys.intern(ident)
    return ids


def entity_ids(run: Run) -> Iterator[str]:
    """Every entity id."""
    return (i for i in node_ids(run, 'Entity') if i is not None)


def relation_rows(run: Run) -> Iterator[RelationRow]:
    """Every relationship between entities, as rows."""
    entities = node_ids(run, 'Entity')
    intern = sys.intern  # ids and predicates repeat across rows: one copy of each in memory
    returns = (
        'r.id, r.scope, offset(id(a)), r.predicate, offset(id(b)), r.fact, r.valid_from, '
        'r.valid_to, r.recorded_at, r.expired_at, r.confidence, r.source_chunk, r.source_episode'
    )
    match = 'MATCH (a:Entity)-[r:RELATES]->(b:Entity)'
    for r in _pages(run, match, 'r', returns):
        subject, obj = entities[r[2]], entities[r[4]]
        assert subject is not None and obj is not None  # a link never outlives its ends
        fact = r[5] or ''
        yield RelationRow(r[0], intern(r[1]), subject, intern(r[3]), obj, fact, *r[6:])


def mention_rows(run: Run) -> Iterator[MentionRow]:
    """Every entity -> chunk or episode link, as rows."""
    entities = node_ids(run, 'Entity')
    for kind, table in SOURCE_TABLES.items():
        sources = node_ids(run, table)
        match = f'MATCH (e:Entity)-[m:MENTIONS]->(c:{table})'
        returns = 'offset(id(e)), offset(id(c)), m.scope, m.at'
        for e, c, scope, at in _pages(run, match, 'c', returns):
            entity, source = entities[e], sources[c]
            assert entity is not None and source is not None
            yield MentionRow(entity, source, kind, sys.intern(scope), at)
