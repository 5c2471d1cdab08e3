"""Prototype: the graph partitioned over several graph-owner processes (docs/SCALING.md).

Kuzu allows one writing process per database, so past one machine the graph is split into one
Kuzu database per *scope group*, each owned by one process and addressed through a Redis list of
its own. A scope's group is a stable hash of its agent (`agent:ann` and `agent:ann/work` stay
together, so an agent's graph never spans owners); `partition_of` is the one routing rule, and a
owner refuses messages for scopes that are not its own, so a routing bug fails loudly instead of
splitting a scope's graph in two.

The prototype speaks a minimal protocol, enough to prove the routing: `write` links entity
names to a chunk in the scope, `read` returns the chunks that mention those names, `scopes`
lists what the owner holds. Each request carries a reply list; the owner answers with its index.

    python -m tests.integration.graph_partition --index 0 --owners 2 --data-dir /tmp/g \
        --redis-url ...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from core.scopes import agent_of
from kg.kuzu_store import KuzuGraphStore
from kg.mirror import MirroredGraphStore
from kg.models import Entity, Mention, entity_id
from kg.resolution import normalize

DEFAULT_PREFIX = 'mnemos:graph'
REPLY_TTL_S = 60


def scope_group(scope: str) -> str:
    """The unit of placement: the agent a scope belongs to, else the scope itself."""
    return agent_of(scope) or scope


def partition_of(scope: str, owners: int) -> int:
    """The owner of a scope's graph: a stable hash of its group (same in every process and
    release, unlike `hash()`), modulo the number of owners."""
    digest = hashlib.blake2b(scope_group(scope).encode('utf-8'), digest_size=8).digest()
    return int.from_bytes(digest, 'big') % owners


def queue_name(index: int, prefix: str = DEFAULT_PREFIX) -> str:
    """The Redis list owner `index` consumes."""
    return f'{prefix}:{index}'


class GraphPartitionRouter:
    """Sends each graph request to the owner of its scope and waits for the answer."""

    def __init__(
        self, client: redis.Redis, owners: int, prefix: str = DEFAULT_PREFIX, timeout: float = 30
    ) -> None:
        self._client = client
        self._owners = owners
        self._prefix = prefix
        self._timeout = timeout

    def write(self, scope: str, chunk_id: str, names: list[str]) -> dict[str, Any]:
        """Link `names` (entities of `scope`) to a chunk, on the scope's owner."""
        return self.call(scope, {'op': 'write', 'chunk_id': chunk_id, 'names': names})

    def read(self, scope: str, names: list[str]) -> dict[str, Any]:
        """Chunks of `scope` that mention `names`, from the scope's owner."""
        return self.call(scope, {'op': 'read', 'names': names})

    def call(self, scope: str, body: dict[str, Any], owner: int | None = None) -> dict[str, Any]:
        """One request to `owner` (default: the scope's), answered on a reply list."""
        index = partition_of(scope, self._owners) if owner is None else owner
        reply_to = f'{self._prefix}:reply:{uuid.uuid4().hex}'
        message = {**body, 'scope': scope, 'reply_to': reply_to}
        self._client.rpush(queue_name(index, self._prefix), json.dumps(message))
        answer = self._client.blpop([reply_to], timeout=self._timeout)
        if answer is None:
            raise TimeoutError(f'graph owner {index} did not answer within {self._timeout} s')
        result: dict[str, Any] = json.loads(answer[1])
        return result


class GraphOwner:
    """One graph-owner process: its own Kuzu database, its own queue, its scopes only."""

    def __init__(
        self,
        client: redis.Redis,
        index: int,
        owners: int,
        data_dir: Path,
        prefix: str = DEFAULT_PREFIX,
        buffer_pool_mb: int = 64,
    ) -> None:
        self._client = client
        self._index = index
        self._owners = owners
        self._prefix = prefix
        durable = KuzuGraphStore(
            data_dir / f'graph-{index}.kuzu', buffer_pool_bytes=buffer_pool_mb * 2**20
        )
        self._durable = durable
        self._store = MirroredGraphStore(durable)

    def serve(self, max_messages: int | None = None) -> None:
        """Answer requests from this owner's queue until a `stop` (or `max_messages`)."""
        handled = 0
        queue = queue_name(self._index, self._prefix)
        while max_messages is None or handled < max_messages:
            popped = self._client.blpop([queue], timeout=1)
            if popped is None:
                continue
            message = json.loads(popped[1])
            handled += 1
            if message.get('op') == 'stop':
                self._reply(message, {'stopped': True})
                break
            try:
                self._reply(message, self.handle(message))
            except Exception as exc:  # the caller gets the error; the owner keeps serving
                self._reply(message, {'error': f'{type(exc).__name__}: {exc}'})
        self._store.close()

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """One request: `write`, `read` or `scopes`."""
        op, scope = message.get('op'), str(message.get('scope', ''))
        if op == 'scopes':
            return {'scopes': sorted(self._scopes())}
        owner = partition_of(scope, self._owners)
        if owner != self._index:
            raise ValueError(f'scope {scope!r} belongs to graph owner {owner}')
        names = [str(n) for n in message.get('names', [])]
        ids = [entity_id(scope, normalize(n)) for n in names]
        if op == 'write':
            now = datetime.now(UTC)
            self._store.upsert_entities(
                [
                    Entity(
                        id=i, scope=scope, name=n, canonical_name=normalize(n), created_at=now,
                        updated_at=now,
                    )
                    for i, n in zip(ids, names, strict=True)
                ]
            )  # fmt: skip
            chunk = str(message['chunk_id'])
            self._store.add_mentions(
                [Mention(entity_id=i, source_id=chunk, scope=scope, at=now) for i in ids]
            )
            return {'written': len(ids)}
        if op == 'read':
            found = self._store.chunk_mentions(ids)
            return {'chunks': sorted({c for chunks in found.values() for c in chunks})}
        raise ValueError(f'unknown op {op!r}')

    def _scopes(self) -> set[str]:
        ids = list(self._durable.iter_entity_ids())
        return {entity.scope for entity in self._store.get_entities(ids)}

    def _reply(self, message: dict[str, Any], body: dict[str, Any]) -> None:
        reply_to = message.get('reply_to')
        if not reply_to:
            return
        answer = {**body, 'owner': self._index, 'pid': os.getpid()}
        pipe = self._client.pipeline()
        pipe.rpush(reply_to, json.dumps(answer))
        pipe.expire(reply_to, REPLY_TTL_S)
        pipe.execute()


def main(argv: list[str] | None = None) -> int:
    """`python -m tests.integration.graph_partition`: run one graph owner."""
    parser = argparse.ArgumentParser(description='run one graph-owner process (prototype)')
    parser.add_argument('--index', type=int, required=True)
    parser.add_argument('--owners', type=int, required=True)
    parser.add_argument('--data-dir', type=Path, required=True)
    parser.add_argument('--redis-url', default='redis://127.0.0.1:6379/0')
    parser.add_argument('--prefix', default=DEFAULT_PREFIX)
    args = parser.parse_args(argv)
    if not 0 <= args.index < args.owners:
        parser.error('--index must be in [0, --owners)')
    client = redis.Redis.from_url(args.redis_url)
    GraphOwner(client, args.index, args.owners, args.data_dir, args.prefix).serve()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
