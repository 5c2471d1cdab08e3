"""Bulk imports: a JSONL export sent in bounded chunks, with resume (what `mnemos import` and
`mnemos reindex` run).

A whole export in one request can pass the service's body limit (413, nothing imported), so
each request carries at most `chunk_bytes` and `chunk_records` lines; a chunk the service still
finds too large is split in two and retried, and later chunks are kept to the size that passed.
The reports of the chunks add up to one, with line numbers of the file. An import that stops
says the line to resume from; imports with dedupe `id` (the default) or `none` (reindex) may
also simply be run again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from mnemos_client.client import Mnemos
from mnemos_client.errors import PayloadTooLarge
from mnemos_client.models import Dedupe, ImportReport, LineError

CHUNK_BYTES = 4 * 1024 * 1024
CHUNK_RECORDS = 1000
MIN_CHUNK_BYTES = 1024
# errors and redactions the file's report lists, as the service's report of one request does
MAX_REPORTED_ERRORS = 100


@dataclass
class Chunk:
    """Consecutive lines of the file, the first one numbered `first` (1-based)."""

    first: int
    lines: list[bytes]

    @property
    def size(self) -> int:
        """Bytes of the chunk's request body."""
        return sum(len(line) for line in self.lines)

    @property
    def last(self) -> int:
        """The number of the chunk's last line."""
        return self.first + len(self.lines) - 1

    def halves(self) -> tuple[Chunk, Chunk]:
        """The chunk split in two at its middle line."""
        middle = len(self.lines) // 2
        return Chunk(self.first, self.lines[:middle]), Chunk(
            self.first + middle, self.lines[middle:]
        )


class ImportStopped(RuntimeError):
    """An import ended before the end of its file; `resume_from` is the first line not done."""

    def __init__(self, resume_from: int, report: ImportReport, cause: BaseException) -> None:
        super().__init__(f'import stopped at line {resume_from}: {cause}')
        self.resume_from = resume_from
        self.report = report
        self.cause = cause


@dataclass
class Budget:
    """What one request may carry; `bytes` shrinks when the service refuses a chunk as too
    large."""

    bytes: int = CHUNK_BYTES
    records: int = CHUNK_RECORDS


def chunks(lines: Iterable[bytes], budget: Budget, *, start: int = 1) -> Iterator[Chunk]:
    """The lines from number `start` on, in chunks within the budget as it is when each chunk
    starts (a single longer line is a chunk of its own)."""
    current = Chunk(start, [])
    size = records = 0
    for number, line in enumerate(lines, 1):
        if number < start:
            continue
        if not line.endswith(b'\n'):
            line += b'\n'
        if current.lines and (size + len(line) > budget.bytes or records >= budget.records):
            yield current
            current, size, records = Chunk(number, []), 0, 0
        current.lines.append(line)
        size += len(line)
        records += bool(line.strip())
    if current.lines:
        yield current


def add_report(total: ImportReport, part: ImportReport, first_line: int) -> None:
    """Add a chunk's report to the file's, its line numbers moved to the file's."""
    total.read += part.read
    total.imported += part.imported
    total.skipped_duplicate += part.skipped_duplicate
    total.invalid += part.invalid
    total.redacted += part.redacted
    offset = first_line - 1
    for error in part.errors:
        if len(total.errors) < MAX_REPORTED_ERRORS:
            total.errors.append(error.model_copy(update={'line': error.line + offset}))
        else:
            total.errors_truncated = True
    for redaction in part.redactions:
        if len(total.redactions) < MAX_REPORTED_ERRORS:
            total.redactions.append(redaction.model_copy(update={'line': redaction.line + offset}))
    total.errors_truncated = total.errors_truncated or part.errors_truncated


def import_chunked(
    client: Mnemos,
    lines: Iterable[bytes],
    *,
    dedupe: Dedupe = 'id',
    dry_run: bool = False,
    start: int = 1,
    chunk_bytes: int = CHUNK_BYTES,
    chunk_records: int = CHUNK_RECORDS,
    on_chunk: Callable[[Chunk, ImportReport], None] | None = None,
) -> ImportReport:
    """Import JSONL lines (from line `start` on) in bounded requests; the summed report.
    ImportStopped, with the line to resume from, when a request fails for another reason
    than its size."""
    total = ImportReport(dry_run=dry_run, dedupe=dedupe)
    budget = Budget(max(chunk_bytes, MIN_CHUNK_BYTES), max(chunk_records, 1))
    for chunk in chunks(lines, budget, start=start):
        pending = [chunk]
        while pending:
            part = pending.pop(0)
            if not any(line.strip() for line in part.lines):
                continue  # blank lines only: nothing to send
            try:
                report = client.import_records(part.lines, dedupe=dedupe, dry_run=dry_run)
            except PayloadTooLarge as exc:
                if len(part.lines) == 1:
                    total.read += 1
                    total.invalid += 1
                    total.errors.append(
                        LineError(line=part.first, error='payload_too_large', message=str(exc))
                    )
                    continue
                # the service's limit is below this chunk: halve it, and the chunks after it
                budget.bytes = max(min(budget.bytes, part.size) // 2, MIN_CHUNK_BYTES)
                pending[:0] = part.halves()
                continue
            except (Exception, KeyboardInterrupt) as exc:
                raise ImportStopped(part.first, total, exc) from exc
            add_report(total, report, part.first)
            if on_chunk is not None:
                on_chunk(part, total)
    return total
