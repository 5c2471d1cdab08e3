"""A stand-in for the Qdrant server of server mode, for tests on a machine without one.

It serves the VectorStore port over HTTP (JSON, one POST per method) from one QdrantVectorStore on
`QdrantClient(':memory:')`, the adapter server mode uses, so several processes (the API process and
`mnemos worker` processes) share one vector store exactly as they would share a Qdrant server.
`RemoteVectorStore` is the matching client; the test puts it in place of `build_vector_store`.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vectors.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    VectorPoint,
)


def _decode_call(method: str, a: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if method == 'ensure_collection':
        return (CollectionSpec.model_validate(a['spec']),), {}
    if method == 'upsert':
        return (a['collection'], [VectorPoint.model_validate(p) for p in a['points']]), {}
    if method == 'query':
        raw = a['vector']
        vector = SparseVector.model_validate(raw) if isinstance(raw, dict) else raw
        flt = PointFilter.model_validate(a['flt'])
        return (a['collection'], a['channel'], vector, flt, a['limit']), {}
    if method in ('retrieve', 'delete'):
        return (a['collection'], a['ids']), {}
    if method == 'set_payload':
        return (a['collection'], a['updates']), {}
    if method == 'scroll':
        flt = PointFilter.model_validate(a['flt'])
        return (a['collection'], flt, a['limit'], a['offset']), {}
    if method == 'count':
        return (a['collection'], PointFilter.model_validate(a['flt'])), {}
    if method == 'facet':
        flt = PointFilter.model_validate(a['flt'])
        return (a['collection'], a['key'], flt, a['limit']), {}
    if method == 'optimize':
        return (), {}
    raise ValueError(f'unknown method {method}')


def _encode(value: Any) -> Any:
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if hasattr(value, 'model_dump'):
        return value.model_dump(mode='json')
    return value


def serve(host: str = '127.0.0.1', port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Start the stand-in on a thread; returns the server and its base URL."""
    from qdrant_client import QdrantClient

    from vectors.qdrant import QdrantVectorStore

    store = QdrantVectorStore(QdrantClient(':memory:'))
    lock = threading.Lock()  # the local-mode client is not made for concurrent callers

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            method = self.path.strip('/')
            length = int(self.headers.get('Content-Length', 0))
            body = json.loads(self.rfile.read(length) or b'{}')
            try:
                args, kwargs = _decode_call(method, body)
                with lock:
                    result = getattr(store, method)(*args, **kwargs)
                status, payload = 200, {'result': _encode(result)}
            except Exception as exc:
                status, payload = 500, {'error': f'{type(exc).__name__}: {exc}'}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name='vector-standin', daemon=True).start()
    return server, f'http://{host}:{server.server_address[1]}'


class RemoteVectorStore:
    """VectorStore client of the stand-in."""

    def __init__(self, url: str) -> None:
        self._url = url.rstrip('/')

    def _call(self, method: str, **args: Any) -> Any:
        request = urllib.request.Request(
            f'{self._url}/{method}',
            data=json.dumps(_encode_args(args)).encode(),
            method='POST',
            headers={'Content-Type': 'application/json'},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())['result']
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f'vector stand-in: {exc.read().decode()}') from None

    def ensure_collection(self, spec: CollectionSpec) -> None:
        self._call('ensure_collection', spec=spec)

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        self._call('upsert', collection=collection, points=list(points))

    def query(
        self,
        collection: str,
        channel: Channel,
        vector: list[float] | SparseVector,
        flt: PointFilter,
        limit: int,
    ) -> list[ScoredPoint]:
        raw = self._call(
            'query', collection=collection, channel=channel, vector=vector, flt=flt, limit=limit
        )
        return [ScoredPoint.model_validate(p) for p in raw]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        raw = self._call('retrieve', collection=collection, ids=list(ids))
        return [StoredPoint.model_validate(p) for p in raw]

    def set_payload(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> None:
        self._call(
            'set_payload', collection=collection, updates={k: dict(v) for k, v in updates.items()}
        )

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        self._call('delete', collection=collection, ids=list(ids))

    def scroll(
        self, collection: str, flt: PointFilter, limit: int, offset: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        points, nxt = self._call(
            'scroll', collection=collection, flt=flt, limit=limit, offset=offset
        )
        return [StoredPoint.model_validate(p) for p in points], nxt

    def count(self, collection: str, flt: PointFilter) -> int:
        return int(self._call('count', collection=collection, flt=flt))

    def facet(
        self, collection: str, key: str, flt: PointFilter, limit: int = 1000
    ) -> dict[str, int]:
        return dict(self._call('facet', collection=collection, key=key, flt=flt, limit=limit))

    def optimize(self) -> None:
        self._call('optimize')

    def close(self) -> None:
        return None


def _encode_args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: _encode(v) for k, v in args.items()}
