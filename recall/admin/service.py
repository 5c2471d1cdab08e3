"""Admin operations on chunk memory: JSONL export/import, Core snapshot to Markdown and back.

Imports keep ids, tiers and timestamps exactly, where `MemoryWriter.remember` would derive them
anew, so they go through `MemoryWriter.store`; reads (export, snapshot) use the VectorStore port.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator

from core import jsonsafe
from core.clock import Clock, storable
from core.errors import InvalidInput
from core.scopes import ScopeId
from recall.admin.collisions import owned, split_merges
from recall.admin.redaction import redact_record
from recall.admin.reports import Dedupe as Dedupe
from recall.admin.reports import HydrateReport as HydrateReport
from recall.admin.reports import ImportReport as ImportReport
from recall.admin.reports import LineError, Redactions
from recall.admin.snapshot import SnapshotEntry, parse_snapshot
from recall.admin.snapshot import render_snapshot as render_snapshot
from recall.models import MEMORIES, Chunk, chunk_id
from recall.normalize import content_hash, normalize_text
from recall.schemas import MemoryText
from recall.tiers import Source, Tier
from recall.write.guards import redact_chunk
from recall.write.writer import MemoryWriter
from vectors.models import PointFilter
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

log = logging.getLogger(__name__)

BATCH = 256
PROGRESS_EVERY = 1000
# facet() needs a bound; more distinct scopes than this in one store is not a realistic setup
MAX_SCOPES = 100_000


class ImportRecord(Chunk):
    """One JSONL line: a chunk as exported; derived fields may be left out and are recomputed."""

    model_config = ConfigDict(extra='forbid')

    id: str = Field(default='', description='uuid; derived from scope, user and text when empty')
    scope: ScopeId
    text: MemoryText
    created_at: datetime | None = None  # type: ignore[assignment]
    updated_at: datetime | None = None  # type: ignore[assignment]
    content_hash: str | None = None  # type: ignore[assignment]

    @field_validator('id')
    @classmethod
    def _uuid(cls, value: str) -> str:
        if value == '':
            return value
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise ValueError('id must be a UUID') from None

    @field_validator('created_at', 'updated_at', 'accessed_at', 'expires_at')
    @classmethod
    def _storable(cls, value: datetime | None) -> datetime | None:
        return storable(value) if value is not None else None  # epoch seconds must read back

    def to_chunk(self, now: datetime) -> Chunk:
        """The stored chunk; the content hash always follows the text."""
        data = self.model_dump()
        data['id'] = self.id or chunk_id(self.scope, self.user_id, normalize_text(self.text))
        data['created_at'] = self.created_at or now
        data['updated_at'] = self.updated_at or data['created_at']
        data['content_hash'] = content_hash(self.text)
        return Chunk.model_validate(data)


# ---- the service ----------------------------------------------------------------------------


class MemoryAdmin:
    """Export, import, snapshot and hydrate over the VectorStore port (admin paths only)."""

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

    # ---- writing ----------------------------------------------------------------------------

    def store(self, chunks: Sequence[Chunk]) -> None:
        """Embed and upsert chunks exactly as given (ids, tiers and timestamps kept)."""
        self._writer.store(chunks)

    def _scopes_of(self, ids: Sequence[str]) -> dict[str, str]:
        return {p.id: str(p.payload.get('scope')) for p in self._vectors.retrieve(MEMORIES, ids)}

    def _existing_ids(self, ids: Iterable[str]) -> set[str]:
        wanted = list(dict.fromkeys(ids))
        return {p.id for p in self._vectors.retrieve(MEMORIES, wanted)} if wanted else set()

    def _existing_texts(self, chunks: Sequence[Chunk]) -> set[tuple[str, str]]:
        """(scope, content hash) pairs of the given chunks that some stored chunk already has."""
        if not chunks:
            return set()
        scopes = sorted({c.scope for c in chunks})
        hashes = sorted({c.content_hash for c in chunks})
        flt = PointFilter(scopes=scopes, any_of={'content_hash': list(hashes)})
        return {
            (str(p.payload['scope']), str(p.payload['content_hash']))
            for points in scroll_pages(self._vectors, MEMORIES, flt, 1000)
            for p in points
        }

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
        now = self._clock.now()
        batch: list[Chunk] = []
        for number, raw in enumerate(lines, 1):
            chunk = self._parse_line(number, raw, now, report)
            if chunk is None:
                continue
            batch.append(chunk)
            if len(batch) >= self._batch:
                self._import_batch(batch, dedupe, dry_run, seen_ids, seen_texts, report)
                batch = []
            if report.read % self._progress_every == 0:
                log.info(
                    'import: %d read, %d imported, %d duplicates, %d invalid',
                    report.read, report.imported, report.skipped_duplicate, report.invalid,
                )  # fmt: skip
        self._import_batch(batch, dedupe, dry_run, seen_ids, seen_texts, report)
        log.info(
            'import finished%s: %d read, %d imported, %d duplicates, %d invalid',
            ' (dry run)' if dry_run else '',
            report.read, report.imported, report.skipped_duplicate, report.invalid,
        )  # fmt: skip
        return report

    def _parse_line(
        self, number: int, raw: bytes | str, now: datetime, report: ImportReport
    ) -> Chunk | None:
        try:
            line = raw.decode('utf-8') if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            report.read += 1
            report.add_error(LineError(line=number, error='invalid_encoding', message='not UTF-8'))
            return None
        if not line.strip():
            return None
        report.read += 1
        try:
            data = jsonsafe.loads(line)
        except jsonsafe.NotJson as exc:
            report.add_error(LineError(line=number, error='invalid_json', message=str(exc)))
            return None
        deep = jsonsafe.too_deep(data)
        if deep is not None:
            message = f'nested deeper than {jsonsafe.MAX_DEPTH} levels'
            report.add_error(
                LineError(
                    line=number,
                    error='invalid_record',
                    message=message,
                    details=[{'loc': deep, 'msg': message}],
                )
            )
            return None
        if not isinstance(data, dict):
            report.add_error(
                LineError(line=number, error='invalid_record', message='not a JSON object')
            )
            return None
        data.pop('owner', None)  # raw store payloads carry it; it is derived from user_id
        bad = jsonsafe.unstorable(data)
        if bad is not None:  # the store would refuse the whole batch; this record alone fails
            where = '.'.join(map(str, bad[0]))
            report.add_error(
                LineError(
                    line=number,
                    error='invalid_record',
                    message=f'invalid fields: {where}: {bad[1]}',
                    details=[{'loc': bad[0], 'msg': bad[1]}],
                )
            )
            return None
        try:
            chunk = ImportRecord.model_validate(data).to_chunk(now)
        except ValidationError as exc:
            details = exc.errors(include_url=False, include_context=False, include_input=False)
            fields = ', '.join('.'.join(str(p) for p in d['loc']) for d in details)
            report.add_error(
                LineError(
                    line=number,
                    error='invalid_record',
                    message=f'invalid fields: {fields}',
                    details=[{'loc': list(d['loc']), 'msg': d['msg']} for d in details],
                )
            )
            return None
        size = len(chunk.text.encode('utf-8'))
        if size > self._max_text_bytes:
            report.add_error(
                LineError(
                    line=number,
                    error='payload_too_large',
                    message=f'text is {size} bytes; the limit is {self._max_text_bytes}',
                    details=[{'loc': ['text'], 'msg': 'text too large'}],
                )
            )
            return None
        return _masked(chunk, number, report)

    def _import_batch(
        self,
        batch: list[Chunk],
        dedupe: Dedupe,
        dry_run: bool,
        seen_ids: set[str],
        seen_texts: set[tuple[str, str]],
        report: ImportReport,
    ) -> None:
        if not batch:
            return
        found = self._vectors.retrieve(MEMORIES, [c.id for c in batch])
        stored = {p.id: p.payload for p in found}
        taken = {i: str(p.get('scope')) for i, p in stored.items()}
        batch = [owned(c, taken, self._scopes_of) for c in batch]
        keep: dict[str, Chunk] = {}
        merges: dict[str, dict[str, Any]] = {}
        if dedupe == Dedupe.NONE:
            keep, merges = split_merges(batch, stored)
            report.imported += len(batch)
        else:
            stored_ids = self._existing_ids(c.id for c in batch)
            stored_texts = self._existing_texts(batch) if dedupe == Dedupe.ID_TEXT else set()
            for chunk in batch:
                text_key = (chunk.scope, chunk.content_hash)
                duplicate = chunk.id in stored_ids or chunk.id in seen_ids
                if dedupe == Dedupe.ID_TEXT:
                    duplicate = duplicate or text_key in stored_texts or text_key in seen_texts
                seen_ids.add(chunk.id)
                seen_texts.add(text_key)
                if duplicate:
                    report.skipped_duplicate += 1
                else:
                    keep[chunk.id] = chunk
            report.imported += len(keep)
        if not dry_run:
            self.store(list(keep.values()))
            self._writer.update(merges)

    # ---- snapshot and hydrate ---------------------------------------------------------------

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
        for number, raw in entries:
            report.read += 1
            chunk = self._entry_chunk(scope, number, raw, now, report)
            if chunk is not None:
                chunks.append(chunk)
        for start in range(0, len(chunks), self._batch):
            batch = chunks[start : start + self._batch]
            stored_ids = self._existing_ids(c.id for c in batch)
            stored_texts = self._existing_texts(batch)
            fresh: dict[str, Chunk] = {}
            for chunk in batch:
                if (
                    chunk.id in stored_ids
                    or chunk.id in fresh
                    or ((chunk.scope, chunk.content_hash) in stored_texts)
                ):
                    report.skipped_existing += 1
                else:
                    fresh[chunk.id] = chunk
            self.store(list(fresh.values()))
            report.written += len(fresh)
            log.info(
                'hydrate %s: %d of %d entries done (%d written)',
                scope, min(start + self._batch, len(chunks)), len(chunks), report.written,
            )  # fmt: skip
        return report

    def _entry_chunk(
        self, scope: str, number: int, raw: dict[str, Any], now: datetime, report: HydrateReport
    ) -> Chunk | None:
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
            chunk = _masked(Chunk.model_validate(data), number, report)
        except (ValidationError, InvalidInput) as exc:
            message = 'entry has no text' if isinstance(exc, InvalidInput) else str(exc)
            report.add_error(
                LineError(line=number, error='invalid_entry', message=message.splitlines()[0])
            )
            return None
        return chunk


def _masked(chunk: Chunk, number: int, report: Redactions) -> Chunk:
    """`chunk` with secret spans masked in every free-text field, reported by line."""
    clean, found = redact_chunk(chunk)
    if found:
        report.add_redaction(number, found)
    return clean
