"""LangGraph's long-term memory `BaseStore` on Mnemos (`pip install 'mnemos-client[langgraph]'`).

A namespace is one or two labels and names a scope: `('alice',)` is `agent:alice` and
`('alice', 'prefs')` is `agent:alice:prefs` (labels of letters, digits, `_.-`). An item is a
memory: its text is `value[text_field]` when that is a string (else the value as JSON), and the
whole value and the key ride in the memory's metadata, so `search(query=...)` is Mnemos' hybrid
recall over those texts. `put` on an existing key edits that memory in place (its old version stays
in its history); `put(..., None)` and `delete` delete it.

Mnemos merges equal texts of one scope into one memory, so two keys holding the same text in one
namespace are one item here (the first key's).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from mnemos_client import models as m
from mnemos_client.client import Mnemos
from mnemos_client.errors import MnemosError

LABEL = re.compile(r'^[A-Za-z0-9_.-]{1,128}$')
META = 'langgraph'
KEY_TAG = 'langgraph-key:'
# a key lookup is a dense search restricted to the key's tag, with no relevance floor: whatever
# the query, the key's memory is the (only) match
LOOKUP = 10


def namespace_scope(namespace: tuple[str, ...]) -> str:
    """The Mnemos scope of a namespace of one or two labels."""
    if not 1 <= len(namespace) <= 2 or not all(LABEL.match(label) for label in namespace):
        raise InvalidNamespaceError(
            f'a Mnemos namespace is one or two labels of letters, digits and _.- : {namespace!r}'
        )
    return 'agent:' + ':'.join(namespace)


def scope_namespace(scope: str) -> tuple[str, ...] | None:
    """The namespace of an `agent:` scope; None for `global` and `team:` scopes."""
    kind, _, rest = scope.partition(':')
    return tuple(rest.split(':')) if kind == 'agent' and rest else None


class MnemosStore(BaseStore):
    """A LangGraph `BaseStore` whose items are Mnemos memories.

    `client` is a `Mnemos` (or made from `url`/`token`, else `MNEMOS_URL`/`MNEMOS_API_KEY`).
    The async methods run the sync client in a worker thread.
    """

    def __init__(
        self,
        client: Mnemos | None = None,
        *,
        url: str | None = None,
        token: str | None = None,
        text_field: str = 'text',
    ) -> None:
        self.client = client or Mnemos(url, token)
        self.text_field = text_field

    # ---- BaseStore ------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` off the event loop."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            memory = self._find(namespace_scope(op.namespace), op.key)
            return self._item(memory) if memory is not None else None
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f'unknown operation {op!r}')

    # ---- operations -----------------------------------------------------------------------

    def _put(self, op: PutOp) -> None:
        scope = namespace_scope(op.namespace)
        found = self._find(scope, op.key)
        if op.value is None:
            if found is not None:
                self.client.delete(found.id)
            return
        value = dict(op.value)
        text = self._text(value)
        metadata = {META: {'key': op.key, 'value': value}}
        if found is not None:
            self.client.update(found.id, text=text, metadata=metadata)
            return
        written = self.client.remember(
            scope, text, metadata=metadata, tags=[KEY_TAG + op.key], source='tool'
        )
        if written.status == 'skipped':
            raise MnemosError(0, 'not_stored', f'Mnemos did not store {op.key!r}: {written.reason}')

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope = namespace_scope(op.namespace_prefix)
        wanted = op.offset + op.limit
        items: list[SearchItem] = []
        if op.query:
            # ranked like other stores' searches: the best `limit`, without Mnemos' relevance floor
            top_k = min(max(wanted, 1) * 2, 100)
            found = self.client.search(op.query, scope, top_k=top_k, min_score=0.0)
            for hit in found.hits:
                value = _stored(hit.metadata)
                if value is not None and _matches(value['value'], op.filter):
                    items.append(self._search_item(scope, hit.metadata, hit.created_at, hit.score))
        else:
            for memory in self.client.iter_memories(scope):
                stored = _stored(memory.metadata)
                if stored is not None and _matches(stored['value'], op.filter):
                    items.append(self._search_item(scope, memory.metadata, memory.created_at))
                    if len(items) >= wanted:
                        break
        return items[op.offset : wanted]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        me = self.client.whoami()
        scopes = list(self.client.stats().by_scope) if me.admin else [me.scope or '']
        found: set[tuple[str, ...]] = set()
        for scope in scopes:
            namespace = scope_namespace(scope)
            if namespace is None or not all(
                _condition(namespace, c) for c in op.match_conditions or ()
            ):
                continue
            found.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    # ---- memories <-> items ---------------------------------------------------------------

    def _find(self, scope: str, key: str) -> m.Memory | None:
        tag = KEY_TAG + key
        found = self.client.search(
            key,
            scope,
            mode='dense',
            top_k=LOOKUP,
            filters={'tags': [tag]},
            touch=False,
            min_score=0.0,
        )
        for hit in found.hits:
            stored = _stored(hit.metadata)
            if stored is not None and stored.get('key') == key:
                return self.client.get(hit.id)
        return None

    def _text(self, value: Mapping[str, Any]) -> str:
        text = value.get(self.text_field)
        if isinstance(text, str) and text.strip():
            return text
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)

    def _item(self, memory: m.Memory) -> Item:
        stored = _stored(memory.metadata) or {'key': '', 'value': {}}
        namespace = scope_namespace(memory.scope) or ()
        return Item(
            value=stored['value'],
            key=stored['key'],
            namespace=namespace,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
        )

    def _search_item(
        self, scope: str, metadata: Mapping[str, Any], at: datetime, score: float | None = None
    ) -> SearchItem:
        stored = _stored(metadata) or {'key': '', 'value': {}}
        return SearchItem(
            namespace=scope_namespace(scope) or (),
            key=stored['key'],
            value=stored['value'],
            created_at=at,
            updated_at=at,
            score=score,
        )


def _stored(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    stored = metadata.get(META)
    return stored if isinstance(stored, dict) and 'key' in stored else None


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    return all(value.get(k) == v for k, v in (wanted or {}).items())


def _condition(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    part = namespace[: len(path)] if condition.match_type == 'prefix' else namespace[-len(path) :]
    return len(namespace) >= len(path) and all(
        p in ('*', n) for p, n in zip(path, part, strict=False)
    )


__all__ = ['MnemosStore', 'namespace_scope', 'scope_namespace']
