"""Rewriting a Qdrant Edge shard with its live points only, so that deleted text leaves the disk.

Edge deletes a point by flagging it: its payload stays in the segment's payload pages and the
upsert that wrote it stays in the write-ahead log (a forgotten user's sentences were still there
after a restart and an index build). Edge's own vacuum rewrites a segment only past a share of
deleted points, and never the log. So a compaction copies every live point (vectors and payload)
into a new shard in a sibling folder, replays the writes that landed meanwhile, and puts the
new folder in the old one's place; the old folder is then removed.

The folders, beside the shard's `<name>`:
- `<name>.compacting`: a rewrite under way (removed at the next opening: the old shard is whole);
- `<name>.compacted`: a finished rewrite that holds every write (it replaces `<name>`);
- `<name>.replaced`: the old shard, removed once the new one is in place.
`settle` finishes or undoes whatever a process that died mid-compaction left.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from core.errors import StoreUnavailable

log = logging.getLogger(__name__)

COMPACTING = '.compacting'
COMPACTED = '.compacted'
REPLACED = '.replaced'
PAGE = 256  # points copied per step: the GIL is free between steps
PENDING = 'unindexed-points'  # in the store's root: the count of points awaiting a build


def lock(path: Path, root: Path) -> int:
    """Lock `<name>.lock` beside the shard at `path` for this process (the descriptor is kept
    until the store closes): the folders of a compaction are touched by their owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(sibling(path, '.lock'), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise in_use(root, path) from None
    return fd


def in_use(root: Path, path: Path) -> StoreUnavailable:
    """The error for a folder another store (any process) has open."""
    return StoreUnavailable(
        f'data dir {root} is in use by another process '
        '(embedded mode allows one process per data dir)',
        details={'path': str(path)},
    )


def open_shard(path: Path, config: Any, root: Path) -> Any:
    """Load the shard at `path` (created when there is none), after `settle`."""
    settle(path)
    try:
        if (path / 'edge_config.json').exists():
            # load() checks the stored vectors against `config` (e.g. a changed dense_dim)
            return qe.EdgeShard.load(str(path), config)
        return qe.EdgeShard.create(str(path), config)
    except Exception as exc:
        text = str(exc)
        # the WAL is flock-ed per open shard: another EdgeShard (any process) holds it
        if 'WouldBlock' in text or "Can't init WAL" in text:
            raise in_use(root, path) from exc
        raise StoreUnavailable(
            f'cannot open vector shard {path}: {text}', details={'path': str(path)}
        ) from exc


def read_pending(root: Path) -> int:
    """How many points awaited an index build when `save_pending` last ran (0 if never)."""
    try:
        return max(0, int((root / PENDING).read_text(encoding='utf-8')))
    except (OSError, ValueError):
        return 0


def save_pending(root: Path, count: int) -> int:
    """Keep `count` (points awaiting an index build) for the next opening; returns it."""
    root.mkdir(parents=True, exist_ok=True)
    partial = root / f'{PENDING}.tmp'
    partial.write_text(str(count), encoding='utf-8')
    os.replace(partial, root / PENDING)
    return count


def sibling(path: Path, suffix: str) -> Path:
    """`path`'s sibling folder for one stage of a compaction."""
    return path.with_name(path.name + suffix)


def settle(path: Path) -> None:
    """Finish a compaction that reached `<name>.compacted`, drop one that did not, and
    remove the shard a finished one replaced (before the shard at `path` is opened)."""
    shutil.rmtree(sibling(path, COMPACTING), ignore_errors=True)
    done, old = sibling(path, COMPACTED), sibling(path, REPLACED)
    if done.is_dir():
        if path.exists():
            os.replace(path, old) if not old.exists() else shutil.rmtree(path)
        os.replace(done, path)
        log.warning('finished the compaction of %s that an earlier process began', path)
    shutil.rmtree(old, ignore_errors=True)


def rewrite(source: Any, config: Any, path: Path, schemas: Sequence[tuple[str, Any]]) -> Any:
    """A new shard at `<path>.compacting` with `schemas`' payload indexes and every live point
    of `source` (the shard at `path`); returned open. `source` may take writes meanwhile: the
    caller replays them (`finish`)."""
    target = sibling(path, COMPACTING)
    shutil.rmtree(target, ignore_errors=True)
    shard = qe.EdgeShard.create(str(target), config)
    try:
        for name, schema in schemas:
            shard.update(qe.UpdateOperation.create_field_index(name, schema))
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=PAGE, with_payload=True, with_vector=True
            )
            records, offset = source.scroll(request)
            if records:
                points = [qe.Point(id=r.id, vector=r.vector, payload=r.payload) for r in records]
                shard.update(qe.UpdateOperation.upsert_points(points))
            if offset is None:
                break
    except BaseException:
        shard.close()
        shutil.rmtree(target, ignore_errors=True)
        raise
    return shard


# an index build in a child: Edge's optimize holds the GIL of the process that runs it
_BUILD = (
    'import sys, qdrant_edge as qe; s = qe.EdgeShard.load(sys.argv[1]); s.optimize(); '
    's.flush(); s.close()'
)
BUILD_TIMEOUT_S = 3600.0


def copy_shard(path: Path) -> None:
    """Copy the shard at `path` (flushed, and not written meanwhile) to `<name>.compacting`."""
    target = sibling(path, COMPACTING)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(path, target)


def build_copy(path: Path) -> Any:
    """Build the index of the copy at `<path>.compacting` in a child process, then load it here
    (its segments mapped from their files); returned open, for `finish`."""
    target = sibling(path, COMPACTING)
    done = subprocess.run(
        [sys.executable, '-c', _BUILD, str(target)],
        capture_output=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(target, ignore_errors=True)
        said = done.stderr.decode('utf-8', 'replace').strip()[-2000:]
        raise StoreUnavailable(f'building the index of {path} failed: {said}')
    return qe.EdgeShard.load(str(target))


def finish(shard: Any, journal: Sequence[Any], path: Path) -> int:
    """Apply to the rewrite the writes its source took since it began, close it and mark it
    finished (`<name>.compacted`); returns its points. Upserts, payload merges and deletes
    give the same points when applied again in order, whatever the copy already held."""
    try:
        for op in journal:
            shard.update(op)
        kept = int(shard.count(qe.CountRequest(exact=True)))
        shard.flush()
    finally:
        shard.close()
    os.replace(sibling(path, COMPACTING), sibling(path, COMPACTED))
    return kept


def swap_in(path: Path) -> None:
    """Put the finished rewrite (`<name>.compacted`) at `path` and remove the old shard; the
    shard at `path` is closed."""
    old = sibling(path, REPLACED)
    os.replace(path, old)
    os.replace(sibling(path, COMPACTED), path)
    shutil.rmtree(old)
