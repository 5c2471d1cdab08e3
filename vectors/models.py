"""Store-level models every VectorStore adapter speaks: points, filters, collection specs."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Channel = Literal['dense', 'bm25']

# the form str(uuid.UUID(x)) gives; ids the store hands out are already in it, and matching it
# costs ~0.8 us against ~4.7 us for parsing and printing (a search's neighbour read asks ~50)
_CANONICAL = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


class SparseVector(BaseModel):
    """Sparse term weights; indices are stable term ids."""

    model_config = ConfigDict(frozen=True)

    indices: list[int] = Field(default_factory=list)
    values: list[float] = Field(default_factory=list)
    # a query's IDF counted over the points of the scopes it searches, not the whole collection
    # (stored vectors ignore it)
    scoped_idf: bool = False


class VectorPoint(BaseModel):
    """One point to upsert: id, both vectors and a JSON payload."""

    id: str
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]


class StoredPoint(BaseModel):
    """A point as read back: id and payload (vectors are recomputable, never read)."""

    id: str
    payload: dict[str, Any]


class ScoredPoint(BaseModel):
    """A point returned by a channel query, with that channel's raw score."""

    id: str
    score: float
    payload: dict[str, Any] = Field(default_factory=dict)


# A search builds ~170 points from values the engine gave and that are valid already (ids,
# scores, JSON payloads). `model_construct` takes ~4 us for one, most of it spent working out
# defaults and which fields were set; these build the same model (every field set, no extras, no
# private attributes) in ~1 us.
_new = object.__new__
_set = object.__setattr__


def scored_point(ident: str, score: float, payload: dict[str, Any]) -> ScoredPoint:
    """`ScoredPoint.model_construct(id=ident, score=score, payload=payload)`, faster."""
    point = _new(ScoredPoint)
    _set(point, '__dict__', {'id': ident, 'score': score, 'payload': payload})
    _set(point, '__pydantic_fields_set__', {'id', 'score', 'payload'})
    _set(point, '__pydantic_extra__', None)
    _set(point, '__pydantic_private__', None)
    return point


def stored_point(ident: str, payload: dict[str, Any]) -> StoredPoint:
    """`StoredPoint.model_construct(id=ident, payload=payload)`, faster."""
    point = _new(StoredPoint)
    _set(point, '__dict__', {'id': ident, 'payload': payload})
    _set(point, '__pydantic_fields_set__', {'id', 'payload'})
    _set(point, '__pydantic_extra__', None)
    _set(point, '__pydantic_private__', None)
    return point


class SlotEvidence(BaseModel):
    """What the graph knows of the slot a query asks about (where someone lives, works…):
    the chunks stating the value that holds at the query's time, and the chunks stating values
    of that slot that no longer hold (or did not yet) then."""

    holding: list[str] = Field(default_factory=list)
    stale: list[str] = Field(default_factory=list)
    past: bool = Field(default=False, description='the query names a time that has ended')


class Range(BaseModel):
    """Inclusive numeric range; timestamps are epoch seconds."""

    gte: float | None = None
    lte: float | None = None


class PointFilter(BaseModel):
    """Conjunction of conditions; `scopes=None` means every scope (admin paths only)."""

    scopes: list[str] | None
    any_of: dict[str, list[str | bool | int]] = Field(default_factory=dict)
    none_of: dict[str, list[str | bool | int]] = Field(default_factory=dict)
    ranges: dict[str, Range] = Field(default_factory=dict)


class CollectionSpec(BaseModel):
    """A collection's vectors and the payload fields to index (scope is the tenant key)."""

    name: str
    dense_dim: int
    keyword_fields: tuple[str, ...] = ()
    bool_fields: tuple[str, ...] = ()
    float_fields: tuple[str, ...] = ()
    integer_fields: tuple[str, ...] = ()
    # fields every search filters on: their indexes stay in RAM, the others are kept on disk
    # (mapped, paged in when read), which loads faster and holds less memory; None: all in RAM
    ram_fields: tuple[str, ...] | None = None

    def on_disk(self, field: str) -> bool:
        """Whether `field`'s payload index lives on disk (for segments indexed from now on)."""
        return self.ram_fields is not None and field not in self.ram_fields


def canonical_ids(ids: Sequence[str]) -> list[str]:
    """Canonical, de-duplicated point ids; a malformed id cannot exist, and the store would
    reject the whole request over it."""
    out: dict[str, None] = {}
    canonical = _CANONICAL.fullmatch
    for ident in ids:
        if isinstance(ident, str) and canonical(ident):
            out[ident] = None
            continue
        try:
            out[str(uuid.UUID(ident))] = None
        except (ValueError, AttributeError, TypeError):
            continue
    return list(out)


class ChunkText(BaseModel):
    """What the graph needs of a written chunk to extract from it and link it by MENTIONS."""

    id: str
    scope: str
    text: str
    at: datetime = Field(description='event time: relative dates resolve against it')
    speaker: str | None = Field(default=None, description='resolves "I"/"my" when given')
