"""A scope's Core memories as Markdown (the snapshot), and such Markdown, or plain Markdown,
written back into a scope as Core memories (hydrate). Admin paths only."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from core import jsonsafe
from core.clock import Clock
from core.errors import InvalidInput
from recall.admin.redaction import masked
from recall.admin.reports import HydrateReport, LineError
from recall.admin.snapshot import SnapshotEntry, parse_snapshot, render_snapshot
from recall.admin.stored import BATCH, PROGRESS_EVERY, stored_ids, stored_texts
from recall.models import MEMORIES, Chunk, chunk_id
from recall.normalize import content_hash, normalize_text
from recall.tiers import Source, Tier
from recall.write.writer import MemoryWriter
from vectors.models import PointFilter
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

log = logging.getLogger(__name__)


class CoreSnapshots:
    """Snapshot and hydrate: reads go to the VectorStore port, writes through `MemoryWriter`."""

    def __init__(
        self,
        vectors: VectorStore,
        writer: MemoryWriter,
        clock: Clock,
        *,
        batch_size: int = BATCH,
        progress_every: int = PROGRESS_EVERY,
    ) -> None:
        self._vectors = vectors
        self._writer = writer
        self._clock = clock
        self._batch = batch_size
        self._progress_every = progress_every

    def core_chunks(self, scope: str) -> list[Chunk]:
        """Live (not superseded) Core-tier chunks of `scope`, oldest first."""
        flt = PointFilter(
            scopes=[scope], any_of={'tier': [Tier.CORE.value]}, none_of={'superseded': [True]}
        )
        chunks: list[Chunk] = []
        for points in scroll_pages(self._vectors, MEMORIES, flt, self._batch):
            before = len(chunks)
            chunks.extend(Chunk.from_payload(p.payload) for p in points)
            if len(chunks) // self._progress_every > before // self._progress_every:
                log.info('snapshot of %s: %d memories read', scope, len(chunks))
        return sorted(chunks, key=lambda c: (c.created_at, c.id))

    def snapshot(self, scope: str) -> str:
        """Markdown of the Core memories of `scope` (see `hydrate`)."""
        return render_snapshot(scope, self.core_chunks(scope), self._clock.now())

    def hydrate(
        self,
        scope: str,
        markdown: str,
        chunker: Callable[[str], list[str]] | None = None,
    ) -> HydrateReport:
        """Write a snapshot's entries (or plain Markdown's chunks) into `scope` as Core memories.

        Ids are derived for the target scope, so hydrating twice writes nothing the second time;
        memories whose text is already stored in the scope are skipped as well.
        """
        entries, is_snapshot = parse_snapshot(markdown)
        report = HydrateReport(format='snapshot' if is_snapshot else 'markdown')
        if not is_snapshot:
            if chunker is None:
                raise InvalidInput('markdown', 'no mnemos snapshot entries found')
            texts = chunker(markdown)
            entries = [(i, {'text': t}) for i, t in enumerate(texts, 1)]
        now = self._clock.now()
        chunks: list[Chunk] = []
        renamed: dict[str, str] = {}
        for number, raw in entries:
            report.read += 1
            chunk = _entry_chunk(scope, number, raw, now, report)
            if chunk is not None:
                chunks.append(chunk)
                renamed[str(raw.get('id'))] = chunk.id
        # a replaced fact's record names the memory that replaced it by its id in this scope
        chunks = [_renamed_stale(c, renamed) for c in chunks]
        written: list[str] = []
        for start in range(0, len(chunks), self._batch):
            written += self._write_new(chunks[start : start + self._batch], report)
            log.info(
                'hydrate %s: %d of %d entries done (%d written)',
                scope, min(start + self._batch, len(chunks)), len(chunks), report.written,
            )  # fmt: skip
        # a record naming a memory the snapshot did not carry (one that was not Core) names
        # nothing in this scope: dropped, and the memory weighed against what the scope holds
        self._writer.relink(written, {})
        return report

    def _write_new(self, batch: list[Chunk], report: HydrateReport) -> list[str]:
        """Store the chunks of `batch` whose id or text is not stored yet; returns their ids."""
        known_ids = stored_ids(self._vectors, (c.id for c in batch))
        known_texts = stored_texts(self._vectors, batch)
        fresh: dict[str, Chunk] = {}
        for chunk in batch:
            if (
                chunk.id in known_ids
                or chunk.id in fresh
                or ((chunk.scope, chunk.content_hash) in known_texts)
            ):
                report.skipped_existing += 1
            else:
                fresh[chunk.id] = chunk
        self._writer.store(list(fresh.values()))
        report.written += len(fresh)
        return list(fresh)


def _renamed_stale(chunk: Chunk, renamed: dict[str, str]) -> Chunk:
    if not chunk.stale:
        return chunk
    stale = [{**r, 'by': renamed.get(str(r.get('by')), r.get('by'))} for r in chunk.stale]
    return chunk.model_copy(update={'stale': stale})


def _entry_chunk(
    scope: str, number: int, raw: dict[str, Any], now: datetime, report: HydrateReport
) -> Chunk | None:
    """Entry `number` as a Core chunk of `scope`, secrets masked; None (reported) if invalid."""
    if '_invalid' in raw:
        report.add_error(
            LineError(line=number, error='invalid_entry', message=str(raw['_invalid']))
        )
        return None
    bad = jsonsafe.unstorable(raw)
    if bad is not None:
        where = '.'.join(map(str, bad[0]))
        report.add_error(
            LineError(line=number, error='invalid_entry', message=f'{where}: {bad[1]}')
        )
        return None
    try:
        entry = SnapshotEntry.model_validate(raw)
        if not entry.text.strip():
            raise InvalidInput('text', 'empty')
        created = entry.created_at or now
        data: dict[str, Any] = {
            **entry.model_dump(exclude_none=True),
            'id': chunk_id(scope, entry.user_id, normalize_text(entry.text)),
            'scope': scope,
            'tier': Tier.CORE.value,
            'created_at': created,
            'updated_at': entry.updated_at or created,
            'content_hash': content_hash(entry.text),
        }
        data.setdefault('source', Source.IMPORT.value)
        return masked(Chunk.model_validate(data), number, report)
    except (ValidationError, InvalidInput) as exc:
        message = 'entry has no text' if isinstance(exc, InvalidInput) else str(exc)
        report.add_error(
            LineError(line=number, error='invalid_entry', message=message.splitlines()[0])
        )
        return None
