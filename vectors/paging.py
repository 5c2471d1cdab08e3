"""Reading every point a filter matches, a scroll page at a time."""

from __future__ import annotations

from collections.abc import Iterator

from vectors.models import PointFilter, StoredPoint
from vectors.ports import VectorStore


def scroll_pages(
    store: VectorStore, collection: str, flt: PointFilter, size: int
) -> Iterator[list[StoredPoint]]:
    """Every point of `collection` that matches `flt`, one scroll page of up to `size` at a
    time, in id order (empty pages skipped)."""
    offset: str | None = None
    while True:
        points, offset = store.scroll(collection, flt, size, offset)
        if points:
            yield points
        if offset is None:
            return
