"""The composition root: the only module that builds adapters, picked by configuration alone.

`build(settings)` is called by `create_app()` and by the worker entrypoint (`runtime/worker.py`).
Nothing connects at import time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.ports import AgentDirectory
from agents.registry import FILENAME as AGENTS_FILE
from agents.registry import Registry
from consolidation import registry
from consolidation.context import JobContext
from consolidation.episodic import EpisodeService, ensure_episodes
from core.clock import Clock, SystemClock
from core.errors import StoreUnavailable
from core.roles import GraphRole
from core.settings import Settings
from jobs.ports import JobQueue
from jobs.queue import make_job_queue
from kg.service import KnowledgeGraphService
from recall.access.overlay import AccessOverlay
from recall.access.sqlite_log import FILENAME as ACCESS_FILE
from recall.access.sqlite_log import SqliteAccessLog
from recall.admin.hydrate import CoreSnapshots
from recall.admin.transfer import MemoryTransfer
from recall.documents.index import DocumentIndex
from recall.documents.markdown import chunk_texts
from recall.history import HistoryReader
from recall.models import MEMORIES
from recall.read.channels import recallable
from recall.service import RecallService
from recall.write.updates import MemoryEditor
from recall.write.writer import MemoryWriter
from runtime.graph_index import KnowledgeGraphIndex
from runtime.preload import model_choice
from vectors.bm25 import Bm25Encoder, encoder_for
from vectors.embedders import make_embedder
from vectors.ports import Embedder, VectorStore

log = logging.getLogger(__name__)

# seconds after a start at which the payload cache starts filling (vectors/edge_search.py):
# warming holds the GIL in short turns, which would stretch the imports and the first requests
# of a start
WARM_DELAY_S = 2.0


@dataclass
class Services:
    """The services the API and the job handlers use; one instance per process.

    Services only: the adapters behind them stay inside the services (and `consolidation`, the
    job handlers' own dependencies).
    """

    settings: Settings
    clock: Clock
    graph_role: GraphRole
    recall: RecallService
    writer: MemoryWriter
    transfer: MemoryTransfer
    snapshots: CoreSnapshots
    documents: DocumentIndex
    editor: MemoryEditor
    history: HistoryReader
    agents: AgentDirectory
    episodes: EpisodeService
    jobs: JobQueue
    consolidation: JobContext
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
        try:
            # running jobs finish (or are cut short, runtime/stop.py) before anything they use
            # closes; the queue itself closes later, in the closing order
            self.jobs.stop()
        except Exception:
            log.exception('stopping the job workers failed')
        for closer in reversed(self._closers):
            started = time.monotonic()
            try:
                closer()
            except Exception:
                log.exception('error while closing %r', closer)
            if time.monotonic() - started > 1.0:  # a slow stop says what it waited for
                log.info('closing %r took %.1f s', closer, time.monotonic() - started)


def build_vector_store(settings: Settings) -> VectorStore:
    """Qdrant Edge in the data dir (embedded) or a Qdrant server (KG_QDRANT_URL)."""
    if settings.qdrant_url is None:
        from vectors.edge import EdgeVectorStore

        return EdgeVectorStore(
            settings.data_dir / 'vectors',
            vector_storage=settings.vector_storage,
            quantization=settings.vector_quantization,
            max_segment_kb=settings.vector_segment_kb,
            payload_cache=settings.vector_payload_cache,
            payload_cache_bytes=settings.vector_payload_cache_mb << 20,
            search_threads=settings.vector_search_threads or os.cpu_count() or 1,
        )
    from qdrant_client import QdrantClient

    from vectors.qdrant import QdrantVectorStore

    try:
        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key)
    except Exception as exc:  # bad URL or unreachable server: say which setting
        raise StoreUnavailable(f'cannot reach Qdrant at KG_QDRANT_URL: {exc}') from exc
    return QdrantVectorStore(client)


# names (prefixes) of what the service keeps in the data dir: stores, their WAL/lock files, the
# admin token and the embedder and sparse encoder markers
DATA_DIR_ENTRIES = (
    'vectors',
    'access.sqlite3',
    'registry.sqlite3',
    'jobs.sqlite3',
    'graph.kuzu',
    'api_token',
    'embedder.json',
    'sparse.json',
)


def make_private(data_dir: Path, *extra: Path | None) -> None:
    """Keep memory readable by this user only: files 0600 and folders 0700 under `data_dir`
    (and a graph folder kept elsewhere), now and for whatever this process creates later.

    The umask is process-wide: the stores (Qdrant Edge segments, SQLite WAL files, Kuzu) create
    files themselves, and the umask is the only hook every one of them honours.
    """
    os.umask(0o077)
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    # only what the service keeps there: KG_DATA_DIR may be a folder that holds other things
    ours = [p for p in data_dir.iterdir() if p.name.startswith(DATA_DIR_ENTRIES)]
    for root in (*ours, *(p for p in extra if p is not None and p.exists())):
        _chmod_tree(root)


def _chmod_tree(root: Path) -> None:
    # scandir's entries carry their lstat, so a tree already private costs one stat per entry
    # and no chmod, on every start (a 100k-chunk store holds ~2,200 files)
    try:
        info = root.lstat()
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        return
    _chmod_if_needed(str(root), info.st_mode)
    if not stat.S_ISDIR(info.st_mode):
        return
    pending = [str(root)]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    try:
                        mode = entry.stat(follow_symlinks=False).st_mode
                    except OSError:  # removed by a store meanwhile
                        continue
                    if stat.S_ISLNK(mode):
                        continue
                    _chmod_if_needed(entry.path, mode)
                    if stat.S_ISDIR(mode):
                        pending.append(entry.path)
        except OSError:  # a folder a store removed meanwhile, or not ours to read
            continue


def _chmod_if_needed(path: str, mode: int) -> None:
    wanted = 0o700 if stat.S_ISDIR(mode) else 0o600
    if stat.S_IMODE(mode) == wanted:
        return
    with contextlib.suppress(OSError):  # a file a store removed meanwhile, or not ours
        os.chmod(path, wanted)


def build(
    settings: Settings,
    *,
    clock: Clock | None = None,
    inline_jobs: bool = False,
    consume_jobs: bool = True,
    owns_graph: bool = True,
) -> Services:
    """Build every adapter and service for `settings`.

    `owns_graph=False` (`mnemos worker`) never opens the graph: graph work is queued to the
    owner. `consume_jobs=False` accepts jobs without running any here (the worker starts its own).
    """
    clock = clock or SystemClock()
    make_private(settings.data_dir, settings.kuzu_path)
    role = _graph_role(settings, owns_graph)
    closers: list[Any] = []
    try:
        context = _wire(settings, clock, role, closers, inline_jobs=inline_jobs)
        agents = Registry(settings.data_dir / AGENTS_FILE, clock)
        closers.append(agents.close)
    except BaseException:
        for closer in reversed(closers):
            closer()
        raise
    services = _services(context, role, agents, closers)
    try:
        _start(context, consume_jobs=consume_jobs)
    except BaseException:
        services.close()
        raise
    return services


def _graph_role(settings: Settings, owns_graph: bool) -> GraphRole:
    if not settings.graph_enabled:
        return GraphRole.OFF
    return GraphRole.OWNER if owns_graph else GraphRole.CLIENT


def _wire(
    settings: Settings, clock: Clock, role: GraphRole, closers: list[Any], *, inline_jobs: bool
) -> JobContext:
    """The stores, the graph, the job queue, the writer and the reader: what the job handlers
    get. Each store's closer is added to `closers` as soon as it is open."""
    store, vectors, access = _open_vectors(settings, closers)
    # before the embedder: its marker in a data dir without this one means older vectors
    sparse = encoder_for(settings.data_dir)
    embedder = _make_embedder(settings)
    compactors: list[Any] = []  # forget's compaction: the stores this process owns
    # the job queue closes here in the closing order (newest first): after the extraction
    # workers, whose closing ends a running extraction, so its job thread ends and reports to
    # the job store still open; before the graph and vector stores that job threads use
    stores_end = len(closers)
    if hasattr(store, 'compact'):  # Edge rewrites its shards; a Qdrant server vacuums
        compactors.append(store.compact)
    kg = (
        _build_graph(settings, embedder, clock, closers, compactors)
        if role == GraphRole.OWNER
        else None
    )
    graph = KnowledgeGraphIndex(kg) if kg is not None else None
    holder: dict[str, JobContext] = {}

    def runner(name: str, params: dict[str, Any]) -> Any:
        return registry.run(holder['context'], name, params)

    # embedded: StubBroker + in-process dramatiq Worker + SQLite outbox; else RedisBroker
    jobs = make_job_queue(settings, runner, clock, inline=inline_jobs)
    closers.insert(stores_end, jobs.close)
    writer = MemoryWriter(
        vectors,
        embedder,
        sparse,
        clock,
        graph=graph,
        graph_role=role,
        jobs=jobs,
        max_text_bytes=settings.max_text_bytes,
        access=access,
    )
    _warm_payloads(settings, store)
    recall = _reader(settings, vectors, embedder, sparse, clock, writer, graph)
    closers.append(recall.close)
    holder['context'] = JobContext(
        settings=settings,
        clock=clock,
        vectors=vectors,
        embedder=embedder,
        sparse=sparse,
        recall=recall,
        writer=writer,
        jobs=jobs,
        kg=kg,
        compactors=tuple(compactors),
    )
    return holder['context']


def _open_vectors(
    settings: Settings, closers: list[Any]
) -> tuple[VectorStore, VectorStore, SqliteAccessLog | None]:
    """The vector store, the same with recall counts added back (embedded), and their log."""
    store = build_vector_store(settings)
    closers.append(store.close)
    if not settings.embedded:
        return store, store, None
    # recalls counted beside the payloads (recall/access/overlay.py says why; embedded only)
    access = SqliteAccessLog(settings.data_dir / ACCESS_FILE)
    closers.append(access.close)
    return store, AccessOverlay(store, access), access


def _make_embedder(settings: Settings) -> Embedder:
    return make_embedder(
        **model_choice(settings),
        cache_size=settings.embed_cache_size,
        document_cache_size=settings.embed_document_cache_size,
        max_chars=settings.embed_max_chars,
        data_dir=settings.data_dir,
        query_batch_ms=settings.query_batch_ms,
        query_batch_max=settings.query_batch_max,
    )


def _warm_payloads(settings: Settings, store: VectorStore) -> None:
    if settings.embedded and settings.vector_payload_warm:
        from vectors.edge import EdgeVectorStore

        if isinstance(store, EdgeVectorStore):
            # after the imports and the first requests of a start, not during them
            store.warm_in_background(MEMORIES, recallable(None), delay_s=WARM_DELAY_S)


def _reader(
    settings: Settings,
    vectors: VectorStore,
    embedder: Embedder,
    sparse: Bm25Encoder,
    clock: Clock,
    writer: MemoryWriter,
    graph: KnowledgeGraphIndex | None,
) -> RecallService:
    return RecallService(
        vectors,
        embedder,
        sparse,
        clock,
        writer,
        graph=graph,
        overlap_threads=settings.search_overlap_threads,
        concurrency=settings.search_concurrency,
    )


def _services(
    context: JobContext, role: GraphRole, agents: AgentDirectory, closers: list[Any]
) -> Services:
    settings, vectors, writer, clock = (
        context.settings,
        context.vectors,
        context.writer,
        context.clock,
    )
    return Services(
        settings=settings,
        clock=clock,
        graph_role=role,
        recall=context.recall,
        writer=writer,
        transfer=MemoryTransfer(vectors, writer, clock, max_text_bytes=settings.max_text_bytes),
        snapshots=CoreSnapshots(vectors, writer, clock),
        documents=DocumentIndex(
            vectors, writer, clock, chunk_texts, max_bytes=settings.max_document_bytes
        ),
        editor=MemoryEditor(vectors, writer, clock),
        history=HistoryReader(vectors),
        agents=agents,
        episodes=EpisodeService(context),
        jobs=context.jobs,
        consolidation=context,
        kg=context.kg,
        _closers=closers,
    )


def _start(context: JobContext, *, consume_jobs: bool) -> None:
    ensure_episodes(context)
    if consume_jobs:
        # only now: replayed outbox jobs may run at once and need the job context. Embedded:
        # worker threads drain every queue; server mode: this process owns the graph and drains
        # the `graph` queue only (`mnemos worker` passes consume_jobs=False, starts its own).
        context.jobs.start()
    if context.kg is not None:
        _rebuild_graph_if_asked(context.settings, context)


def _rebuild_graph_if_asked(settings: Settings, context: JobContext) -> None:
    # the graph's database or its log was set aside (kg/kuzu_lifecycle.py): extract every
    # memory again; the graph skips those it already links. The marker goes once all is queued
    # (the outbox keeps the jobs); a start that dies before that queues it all again
    from consolidation.rebuild import queue_graph_rebuild
    from kg.kuzu_lifecycle import rebuild_marker

    marker = rebuild_marker(settings.graph_path)
    if marker.exists():
        queue_graph_rebuild(context)
        marker.unlink()


def _build_graph(
    settings: Settings, embedder: Embedder, clock: Clock, closers: list[Any], compactors: list[Any]
) -> KnowledgeGraphService:
    from kg.extraction.spacy_extractor import SpacyExtractor
    from kg.kuzu_store import KuzuGraphStore
    from kg.mirror import MirroredGraphStore

    durable = KuzuGraphStore(
        settings.graph_path, buffer_pool_bytes=settings.kuzu_buffer_pool_mb * 1024 * 1024
    )
    try:
        # filled on a thread: a restarted service answers searches before the copy is full
        store = MirroredGraphStore(durable, background=True)
    except BaseException:
        durable.close()
        raise
    closers.append(store.close)
    compactors.append(durable.compact)
    extractor = SpacyExtractor(
        settings.spacy_model, workers=settings.extract_workers, nice=settings.extract_worker_nice
    )
    closers.append(extractor.close)
    return KnowledgeGraphService(
        store, extractor, embedder, clock, max_index_entities=settings.graph_name_index_entities
    )
