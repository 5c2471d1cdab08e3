"""The composition root: the only module that builds adapters, picked by configuration alone."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.clock import Clock, SystemClock
from core.errors import StoreUnavailable
from core.settings import Settings

if TYPE_CHECKING:
    from consolidation.ports import JobQueue
    from kg.service import KnowledgeGraphService
    from recall.service import RecallService
    from vectors.ports import Embedder, SparseEncoder, VectorStore

log = logging.getLogger(__name__)


@dataclass
class Services:
    """Everything the API and the job handlers use; one instance per process."""

    settings: Settings
    clock: Clock
    vectors: VectorStore
    embedder: Embedder
    sparse: SparseEncoder
    recall: RecallService
    jobs: JobQueue
    kg: KnowledgeGraphService | None = None
    _closers: list[Any] = field(default_factory=list, repr=False)
    _closed: bool = field(default=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def close(self) -> None:
        """Stop background work and release stores, newest first (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception:
                log.exception('error while closing %r', closer)


def build_vector_store(settings: Settings) -> VectorStore:
    """Qdrant Edge in the data dir (embedded) or a Qdrant server (KG_QDRANT_URL)."""
    if settings.qdrant_url is None:
        from vectors.edge import EdgeVectorStore

        return EdgeVectorStore(settings.data_dir / 'vectors')
    from qdrant_client import QdrantClient

    from vectors.qdrant import QdrantVectorStore

    try:
        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key)
    except Exception as exc:  # bad URL or unreachable server: say which setting
        raise StoreUnavailable(f'cannot reach Qdrant at KG_QDRANT_URL: {exc}') from exc
    return QdrantVectorStore(client)


def build(
    settings: Settings,
    *,
    clock: Clock | None = None,
    inline_jobs: bool = False,
    consume_jobs: bool = True,
) -> Services:
    """Build every adapter and service for `settings`; nothing connects at import time.

    `consume_jobs=False` accepts jobs without running any here (`mnemos worker` starts its own).
    """
    from consolidation import registry, runtime
    from consolidation.queue import make_job_queue
    from recall.service import RecallService
    from vectors.bm25 import Bm25Encoder
    from vectors.embedders import make_embedder

    clock = clock or SystemClock()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    closers: list[Any] = []
    vectors = build_vector_store(settings)
    closers.append(vectors.close)
    try:
        embedder = make_embedder(
            settings.embedder,
            batch_size=settings.embed_batch_size,
            cache_size=settings.embed_cache_size,
            max_chars=settings.embed_max_chars,
        )
        sparse = Bm25Encoder()
        kg = _build_graph(settings, embedder, clock, closers) if settings.graph_enabled else None

        holder: dict[str, Services] = {}

        def runner(name: str, params: dict[str, Any]) -> Any:
            return registry.run(holder['services'], name, params)

        # embedded: StubBroker + in-process dramatiq Worker + SQLite outbox; else RedisBroker
        jobs: Any = make_job_queue(settings, runner, clock, inline=inline_jobs)
        closers.append(jobs.close)

        recall = RecallService(
            vectors,
            embedder,
            sparse,
            clock,
            graph=kg,
            enqueue_graph=(lambda ids: jobs.enqueue('index_graph', ids=ids)) if kg else None,
            max_text_bytes=settings.max_text_bytes,
        )
        closers.append(recall.close)
    except BaseException:
        for closer in reversed(closers):
            closer()
        raise
    services = Services(
        settings=settings,
        clock=clock,
        vectors=vectors,
        embedder=embedder,
        sparse=sparse,
        recall=recall,
        jobs=jobs,
        kg=kg,
        _closers=closers,
    )
    holder['services'] = services
    try:
        # only now: replayed outbox jobs may run at once and need `holder`
        runtime.start(services, consume=consume_jobs)
    except BaseException:
        services.close()
        raise
    return services


def _build_graph(
    settings: Settings, embedder: Embedder, clock: Clock, closers: list[Any]
) -> KnowledgeGraphService:
    from kg.extraction.spacy_extractor import SpacyExtractor
    from kg.kuzu_store import KuzuGraphStore
    from kg.mirror import MirroredGraphStore
    from kg.service import KnowledgeGraphService

    durable = KuzuGraphStore(settings.graph_path)
    try:
        store = MirroredGraphStore(durable)
    except BaseException:
        durable.close()
        raise
    closers.append(store.close)
    extractor = SpacyExtractor(settings.spacy_model, workers=settings.extract_workers)
    closers.append(extractor.close)
    return KnowledgeGraphService(store, extractor, embedder, clock)
