"""What admin imports and hydrates report: counts, and the first invalid lines with reasons."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

MAX_REPORTED_ERRORS = 100


class Dedupe(StrEnum):
    """How an import treats records that are already stored (or repeated in the file)."""

    NONE = 'none'
    ID = 'id'
    ID_TEXT = 'id_text'


class LineError(BaseModel):
    """Why one input line (or snapshot entry) was not imported."""

    line: int
    error: str
    message: str
    details: Any = None


class LineRedaction(BaseModel):
    """Secret spans masked in one input line (or snapshot entry) before it was stored."""

    line: int
    redacted: list[str] = Field(description='<field>:<kind>, e.g. metadata.wifi:secret_field')


class Redactions(BaseModel):
    """How many records had secrets masked, and which fields of the first ones."""

    redacted: int = 0
    redactions: list[LineRedaction] = Field(default_factory=list)

    def add_redaction(self, line: int, found: list[str]) -> None:
        """Count a record with masked secrets; keep its fields while the list is short."""
        self.redacted += 1
        if len(self.redactions) < MAX_REPORTED_ERRORS:
            self.redactions.append(LineRedaction(line=line, redacted=found))


class ImportReport(Redactions):
    """Counts of an import; `errors` lists the first invalid lines with their numbers."""

    read: int = 0
    imported: int = 0
    skipped_duplicate: int = 0
    invalid: int = 0
    dry_run: bool = False
    dedupe: Dedupe = Dedupe.ID
    errors: list[LineError] = Field(default_factory=list)
    errors_truncated: bool = False

    def add_error(self, error: LineError) -> None:
        """Count an invalid line; keep its details while the list is short."""
        self.invalid += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(error)
        else:
            self.errors_truncated = True


class HydrateReport(Redactions):
    """Counts of a hydrate: entries read, written, skipped because already stored, invalid."""

    read: int = 0
    written: int = 0
    skipped_existing: int = 0
    invalid: int = 0
    format: str = 'snapshot'
    errors: list[LineError] = Field(default_factory=list)

    def add_error(self, error: LineError) -> None:
        """Count an invalid entry; keep its details while the list is short."""
        self.invalid += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(error)
