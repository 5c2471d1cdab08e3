"""What the admin paths ask of the stored memories: which ids, texts and scopes are there already,
in batches of a bounded size."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from recall.models import MEMORIES, Chunk
from vectors.models import PointFilter
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

BATCH = 256
PROGRESS_EVERY = 1000


def stored_scopes(vectors: VectorStore, ids: Sequence[str]) -> dict[str, str]:
    """The scope of each of `ids` that is stored."""
    return {p.id: str(p.payload.get('scope')) for p in vectors.retrieve(MEMORIES, ids)}


def stored_ids(vectors: VectorStore, ids: Iterable[str]) -> set[str]:
    """Those of `ids` that are stored."""
    wanted = list(dict.fromkeys(ids))
    return {p.id for p in vectors.retrieve(MEMORIES, wanted)} if wanted else set()


def stored_texts(vectors: VectorStore, chunks: Sequence[Chunk]) -> set[tuple[str, str]]:
    """(scope, content hash) pairs of the given chunks that some stored chunk already has."""
    if not chunks:
        return set()
    scopes = sorted({c.scope for c in chunks})
    hashes = sorted({c.content_hash for c in chunks})
    flt = PointFilter(scopes=scopes, any_of={'content_hash': list(hashes)})
    return {
        (str(p.payload['scope']), str(p.payload['content_hash']))
        for points in scroll_pages(vectors, MEMORIES, flt, 1000)
        for p in points
    }
