"""Markdown documents as memory: chunked by headings then paragraphs, re-indexed incrementally.

A chunk's id is derived from (scope, path, text), not from its position, so re-indexing an edited
document embeds only the chunks whose text changed; moved chunks just get a new `chunk_index`.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from core.clock import Clock, to_epoch
from core.errors import InvalidInput, NotFound, PayloadTooLarge
from recall.models import CHUNK_NAMESPACE, MEMORIES, Chunk
from recall.normalize import content_hash, normalize_text
from recall.recall_block import strip_recall_blocks
from recall.tiers import Kind, Source
from recall.write.writer import MemoryWriter
from vectors.models import PointFilter, StoredPoint
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

log = logging.getLogger(__name__)

MAX_PATH_CHARS = 1024
DEFAULT_MAX_BYTES = 256 * 1024
# chunks embedded and stored per step: a step holds the vector store's write path for well
# under a second, and what is stored becomes searchable as the document goes
STEP_CHUNKS = 32

Chunker = Callable[[str], Sequence[str]]

# two concurrent re-indexes of one path would each delete the other's new chunks; striped locks
# serialise them within this process (one process owns the data dir in embedded mode)
_LOCKS = tuple(threading.Lock() for _ in range(64))


def _lock(scope: str, path: str) -> threading.Lock:
    return _LOCKS[hash((scope, path)) % len(_LOCKS)]


class DocumentReport(BaseModel):
    """What indexing a document did: chunks in it, embedded anew, reused unchanged, deleted."""

    scope: str
    path: str
    chunks: int
    embedded: int
    reused: int
    deleted: int
    ids: list[str] = Field(default_factory=list)


def check_path(path: str) -> str:
    """`path` unchanged, or InvalidInput naming `path`: only Markdown (`.md`) is indexed."""
    if not path or len(path) > MAX_PATH_CHARS or '\x00' in path:
        raise InvalidInput('path', f'a document path of 1 to {MAX_PATH_CHARS} characters')
    if not path.lower().endswith('.md'):
        raise InvalidInput('path', 'only Markdown documents (.md) are indexed')
    return path


def document_chunk_id(scope: str, path: str, text: str, occurrence: int = 0) -> str:
    """uuid5 of (scope, path, normalised text, occurrence): stable while the text is unchanged."""
    key = f'{scope}\x1fdoc:{path}\x1f{occurrence}\x1f{normalize_text(text)}'
    return str(uuid.uuid5(CHUNK_NAMESPACE, key))


class DocumentIndex:
    """Indexes Markdown documents into a scope as `document` memories."""

    def __init__(
        self,
        vectors: VectorStore,
        writer: MemoryWriter,
        clock: Clock,
        chunker: Chunker,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        """Reads go to `vectors`; every write goes through `writer`; documents over
        `max_bytes` of UTF-8 are refused (PayloadTooLarge)."""
        self._vectors = vectors
        self._writer = writer
        self._clock = clock
        self._chunker = chunker
        self._max_bytes = max_bytes

    def _stored(self, scope: str, path: str) -> list[StoredPoint]:
        flt = PointFilter(scopes=[scope], any_of={'doc_path': [path]})
        return [p for page in scroll_pages(self._vectors, MEMORIES, flt, 1000) for p in page]

    def index(
        self, scope: str, path: str, markdown: str, *, user_id: str | None = None
    ) -> DocumentReport:
        """Replace the chunks of `path` in `scope`; unchanged chunks keep their embeddings."""
        check_path(path)
        size = len(markdown.encode('utf-8', 'surrogatepass'))
        if size > self._max_bytes:
            raise PayloadTooLarge(
                f'markdown is {size} bytes; the limit is {self._max_bytes}',
                details=[
                    {'loc': ['markdown'], 'msg': f'document larger than {self._max_bytes} bytes'}
                ],
            )
        # recall is never persisted: a pasted recall block is not document text
        texts = [t.strip() for t in self._chunker(strip_recall_blocks(markdown)) if t.strip()]
        if not texts:
            raise InvalidInput('markdown', 'the document has no text to index')
        with _lock(scope, path):
            return self._index(scope, path, texts, user_id)

    def _index(
        self, scope: str, path: str, texts: list[str], user_id: str | None
    ) -> DocumentReport:
        now = self._clock.now()
        occurrences: dict[str, int] = {}
        wanted: dict[str, tuple[int, str]] = {}
        for index, text in enumerate(texts):
            key = normalize_text(text)
            seen = occurrences.get(key, 0)
            occurrences[key] = seen + 1
            wanted[document_chunk_id(scope, path, text, seen)] = (index, text)
        stored = {p.id: p for p in self._stored(scope, path)}
        fresh = [
            Chunk(
                id=ident,
                scope=scope,
                user_id=user_id,
                kind=Kind.DOCUMENT,
                text=text,
                created_at=now,
                updated_at=now,
                source=Source.USER,
                source_ref=path,
                content_hash=content_hash(text),
                doc_path=path,
                chunk_index=index,
                staged=True,
            )
            for ident, (index, text) in wanted.items()
            if ident not in stored
        ]
        moved: dict[str, dict[str, Any]] = {
            ident: {'chunk_index': index, 'updated_at': to_epoch(now)}
            for ident, (index, _) in wanted.items()
            if ident in stored and stored[ident].payload.get('chunk_index') != index
        }
        gone = [ident for ident in stored if ident not in wanted]
        # chunks a stopped index left staged are shown with this version's own
        leftover = [i for i in wanted if i in stored and stored[i].payload.get('staged')]
        self._replace(fresh, [*leftover, *(c.id for c in fresh)], moved, gone)
        log.info(
            'document %s in %s: %d chunks, %d embedded, %d reused, %d deleted',
            path, scope, len(wanted), len(fresh), len(wanted) - len(fresh), len(gone),
        )  # fmt: skip
        return DocumentReport(
            scope=scope,
            path=path,
            chunks=len(wanted),
            embedded=len(fresh),
            reused=len(wanted) - len(fresh),
            deleted=len(gone),
            ids=list(wanted),
        )

    def _replace(
        self,
        fresh: list[Chunk],
        staged: list[str],
        moved: dict[str, dict[str, Any]],
        gone: list[str],
    ) -> None:
        """New chunks first, staged (hidden from search); then one payload update shows them
        and hides the old version's chunks, which are deleted last: an index stopped half-way
        leaves the old version searchable or the new one, not a mix (a chunk left staged is
        shown or deleted by the next index of the path). The shown chunks are queued for graph
        extraction only after that update, so a version never shown leaves no graph facts."""
        for start in range(0, len(fresh), STEP_CHUNKS):
            self._writer.store(fresh[start : start + STEP_CHUNKS], graph=False)
        switch: dict[str, dict[str, Any]] = {ident: {'staged': False} for ident in staged}
        switch.update({ident: {'staged': True} for ident in gone})
        for ident, fields in moved.items():
            switch[ident] = {**switch.get(ident, {}), **fields}
        self._writer.update(switch)
        self._writer.queue_graph(staged)
        self._writer.delete_many(gone)

    def delete(self, scope: str, path: str) -> int:
        """Delete every chunk of `path` in `scope`; NotFound when there is none."""
        check_path(path)
        with _lock(scope, path):
            ids = [p.id for p in self._stored(scope, path)]
            if not ids:
                raise NotFound('document', path)
            self._writer.delete_many(ids)
        return len(ids)
