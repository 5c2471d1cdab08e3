"""JSONL export and import of chunk memory (admin paths only).

Imports keep ids, tiers and timestamps exactly, where `MemoryWriter.remember` would derive them
anew, so they go through `MemoryWriter.store`; the export reads through the VectorStore port.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from core.clock import Clock
from recall.admin.collisions import owned, split_merges
from recall.admin.records import parse_line
from recall.admin.redaction import redact_record
from recall.admin.reports import Dedupe, ImportReport
from recall.admin.stored import BATCH, PROGRESS_EVERY, stored_ids, stored_scopes, stored_texts
from recall.models import MEMORIES, Chunk
from recall.write.writer import MemoryWriter
from vectors.models import PointFilter
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

log = logging.getLogger(__name__)

# facet() needs a bound; more distinct scopes than this in one store is not a realistic setup
MAX_SCOPES = 100_000


@dataclass
class _Links:
    """What an import must fix in the records of what it stored once every line is in: the
    ids it stored records under instead of theirs ((scope, id in the file) -> id stored), and
    the stored memories whose supersession records name other memories by id."""

    renamed: dict[tuple[str, str], str] = field(default_factory=dict)
    naming: list[str] = field(default_factory=list)

    def note(self, read: list[Chunk], owned: list[Chunk]) -> None:
        """Record the ids of one batch, as read and as they will be stored."""
        for before, after in zip(read, owned, strict=True):
            if after.id != before.id:
                self.renamed[(before.scope, before.id)] = after.id


class MemoryTransfer:
    """Every memory out as JSONL records, and such records back in, deduplicated as asked."""

    def __init__(
        self,
        vectors: VectorStore,
        writer: MemoryWriter,
        clock: Clock,
        *,
        max_text_bytes: int = 32 * 1024,
        batch_size: int = BATCH,
        progress_every: int = PROGRESS_EVERY,
    ) -> None:
        """Reads go to `vectors`; every write goes through `writer`."""
        self._vectors = vectors
        self._writer = writer
        self._clock = clock
        self._max_text_bytes = max_text_bytes
        self._batch = batch_size
        self._progress_every = progress_every

    # ---- export -----------------------------------------------------------------------------

    def count(self, scope: str | None = None) -> int:
        """Number of chunks an export of `scope` (or of everything) will write."""
        return self._vectors.count(MEMORIES, PointFilter(scopes=[scope] if scope else None))

    def scopes(self) -> list[str]:
        """Every scope that holds at least one memory, sorted."""
        return sorted(self._vectors.facet(MEMORIES, 'scope', PointFilter(scopes=None), MAX_SCOPES))

    def export(self, scope: str | None = None, *, redact: bool = False) -> Iterator[dict[str, Any]]:
        """Every chunk (superseded and expired ones included) ordered by scope, then id."""
        scopes = [scope] if scope is not None else self.scopes()
        written = 0
        for name in scopes:
            flt = PointFilter(scopes=[name])
            for points in scroll_pages(self._vectors, MEMORIES, flt, self._batch):
                for point in sorted(points, key=lambda p: p.id):
                    record = Chunk.from_payload(point.payload).model_dump(mode='json')
                    yield redact_record(record) if redact else record
                    written += 1
                    if written % self._progress_every == 0:
                        log.info('export: %d memories written (scope %s)', written, name)
        log.info('export finished: %d memories from %d scopes', written, len(scopes))

    # ---- import -----------------------------------------------------------------------------

    def import_lines(
        self, lines: Iterable[bytes | str], *, dedupe: Dedupe = Dedupe.ID, dry_run: bool = False
    ) -> ImportReport:
        """Import JSONL chunk records in batches; invalid lines are counted and reported."""
        report = ImportReport(dry_run=dry_run, dedupe=dedupe)
        seen_ids: set[str] = set()
        seen_texts: set[tuple[str, str]] = set()
        links = _Links()
        now = self._clock.now()
        batch: list[Chunk] = []
        for number, raw in enumerate(lines, 1):
            chunk = parse_line(number, raw, now, report, max_text_bytes=self._max_text_bytes)
            if chunk is None:
                continue
            batch.append(chunk)
            if len(batch) >= self._batch:
                self._import_batch(batch, dedupe, dry_run, seen_ids, seen_texts, report, links)
                batch = []
            if report.read % self._progress_every == 0:
                log.info(
                    'import: %d read, %d imported, %d duplicates, %d invalid',
                    report.read, report.imported, report.skipped_duplicate, report.invalid,
                )  # fmt: skip
        self._import_batch(batch, dedupe, dry_run, seen_ids, seen_texts, report, links)
        if not dry_run:
            # a record may name one stored under another id in a later batch: fixed at the end
            self._writer.relink(links.naming, links.renamed)
        log.info(
            'import finished%s: %d read, %d imported, %d duplicates, %d invalid',
            ' (dry run)' if dry_run else '',
            report.read, report.imported, report.skipped_duplicate, report.invalid,
        )  # fmt: skip
        return report

    def _import_batch(
        self,
        batch: list[Chunk],
        dedupe: Dedupe,
        dry_run: bool,
        seen_ids: set[str],
        seen_texts: set[tuple[str, str]],
        report: ImportReport,
        links: _Links,
    ) -> None:
        if not batch:
            return
        found = self._vectors.retrieve(MEMORIES, [c.id for c in batch])
        stored = {p.id: p.payload for p in found}
        taken = {i: str(p.get('scope')) for i, p in stored.items()}
        scopes_of = partial(stored_scopes, self._vectors)
        read, batch = batch, [owned(c, taken, scopes_of) for c in batch]
        links.note(read, batch)
        keep: dict[str, Chunk] = {}
        merges: dict[str, dict[str, Any]] = {}
        if dedupe == Dedupe.NONE:
            keep, merges = split_merges(batch, stored)
            report.imported += len(batch)
        else:
            known_ids = stored_ids(self._vectors, (c.id for c in batch))
            known_texts = stored_texts(self._vectors, batch) if dedupe == Dedupe.ID_TEXT else set()
            for chunk in batch:
                text_key = (chunk.scope, chunk.content_hash)
                duplicate = chunk.id in known_ids or chunk.id in seen_ids
                if dedupe == Dedupe.ID_TEXT:
                    duplicate = duplicate or text_key in known_texts or text_key in seen_texts
                seen_ids.add(chunk.id)
                seen_texts.add(text_key)
                if duplicate:
                    report.skipped_duplicate += 1
                else:
                    keep[chunk.id] = chunk
            report.imported += len(keep)
        if not dry_run:
            links.naming += [c.id for c in keep.values() if c.superseded_by or c.stale]
            self._writer.store(list(keep.values()))
            self._writer.update(merges)
