"""The folders of a Qdrant Edge shard's generations, and rewriting a shard with its live points
only, so that deleted text leaves the disk.

Edge deletes a point by flagging it: its payload stays in the segment's payload pages and the
upsert that wrote it stays in the write-ahead log (a forgotten user's sentences were still there
after a restart and an index build). Edge's own vacuum rewrites a segment only past a share of
deleted points, and never the log. So a compaction copies every live point (vectors and payload)
into a new shard, and an index build builds a copy of the shard in a child process; either way
the new shard is a new generation of the collection, in its own folder, opened where it stays.

The files, beside each other in the store's root:
- `<name>`: generation 0 (every shard starts there, and folders older than generations are it);
- `<name>.g<N>`: generation N, written by a build or a compaction;
- `<name>.current`: the number of the newest complete generation, replaced atomically once that
  generation holds every write (`commit`); without it, generation 0 is current.
At an opening the current generation is used and every other one removed (`current`): a build
that died before its commit leaves the previous generation in use, and a finished one leaves no
older folder with deleted text behind.
The folders of the layout before generations (`<name>.compacting`, `<name>.compacted` and
`<name>.replaced`) are settled once, at the opening (`settle`).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
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
CURRENT = '.current'
PAGE = 256  # points copied per step: the GIL is free between steps
PENDING = 'unindexed-points'  # in the store's root: the count of points awaiting a build


def lock(path: Path, root: Path) -> int:
    """Lock `<name>.lock` beside the shard at `path` for this process (the descriptor is kept
    until the store closes): the folders of a shard's generations are touched by their owner
    only."""
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
    """Load the shard at `path` (created when there is none)."""
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
    """`path`'s sibling file or folder named with `suffix`."""
    return path.with_name(path.name + suffix)


def generation(root: Path, name: str, number: int) -> Path:
    """The folder of generation `number` of the shard `name`."""
    return root / name if number == 0 else root / f'{name}.g{number}'


def current(root: Path, name: str) -> tuple[int, Path]:
    """The current generation of the shard `name` and its folder, once every other generation
    (unfinished or replaced) is removed."""
    base = root / name
    settle(base)
    try:
        number = int(sibling(base, CURRENT).read_text(encoding='utf-8'))
    except FileNotFoundError:
        number = 0
    except (OSError, ValueError) as exc:
        raise StoreUnavailable(
            f'cannot read the current generation of vector shard {base}: {exc}',
            details={'path': str(sibling(base, CURRENT))},
        ) from exc
    path = generation(root, name, number)
    if number and not path.is_dir():
        raise StoreUnavailable(
            f'vector shard {path} (the current generation) is missing',
            details={'path': str(path)},
        )
    pattern = re.compile(re.escape(name) + r'\.g(\d+)')
    stale = [e for e in root.iterdir() if (m := pattern.fullmatch(e.name)) and int(m[1]) != number]
    for folder in [*stale, *([base] if number and base.exists() else [])]:
        log.warning('removing vector shard %s (not its current generation)', folder)
        remove(folder)
    return number, path


def commit(root: Path, name: str, number: int) -> None:
    """Make generation `number` the current one of the shard `name`, durably."""
    target = sibling(root / name, CURRENT)
    partial = sibling(target, '.tmp')
    with open(partial, 'w', encoding='utf-8') as out:
        out.write(str(number))
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, target)
    directory = os.open(root, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def remove(path: Path) -> None:
    """Remove a shard's folder (a closed one) if it is there."""
    shutil.rmtree(path, ignore_errors=True)


def settle(path: Path) -> None:
    """Finish a compaction of the layout before generations that reached `<name>.compacted`,
    drop one that did not, and remove the shard a finished one replaced."""
    remove(sibling(path, COMPACTING))
    done, old = sibling(path, COMPACTED), sibling(path, REPLACED)
    if done.is_dir():
        if path.exists():
            os.replace(path, old) if not old.exists() else shutil.rmtree(path)
        os.replace(done, path)
        log.warning('finished the compaction of %s that an earlier process began', path)
    remove(old)


def rewrite(source: Any, config: Any, target: Path, schemas: Sequence[tuple[str, Any]]) -> Any:
    """A new shard at `target` with `schemas`' payload indexes and every live point of
    `source`; returned open. `source` may take writes meanwhile: the caller replays them
    (`replay`)."""
    remove(target)
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
        remove(target)
        raise
    return shard


BUILD_TIMEOUT_S = 3600.0
# Each load of a shard replays every record its write-ahead log keeps (the last closed segment
# and the open one, 32 MB each in Edge 0.9.0), deserialising every upsert's vectors with the GIL
# held: ~40 % of loading a 100k-point copy whose log is a bulk load's upserts, and searches wait
# for all of it. So the build's child ends the copy's log with records that change nothing (a
# payload set on no point) and are cheap to replay, until the log has closed a segment made of
# them only and dropped the older ones: in the worst case the open segment takes 2 before it
# closes with older records in it, and the next one 2 more, closed by the 5th.
LOG_PAD_BYTES = 12 << 20
LOG_PADS = 5


def build_here(path: str) -> None:
    """Build the index of the shard at `path` and roll its log past the points' upserts (run
    in the build's child process: Edge's optimize holds the GIL of its process)."""
    shard = qe.EdgeShard.load(path)
    try:
        shard.optimize()
        pad = {'log-pad': 'x' * LOG_PAD_BYTES}
        for _ in range(LOG_PADS):
            shard.update(qe.UpdateOperation.set_payload([], pad))
        shard.flush()
    finally:
        shard.close()


def copy_shard(source: Path, target: Path) -> None:
    """Copy the shard at `source` (flushed, and not written meanwhile) to `target`."""
    remove(target)
    shutil.copytree(source, target)


def build_copy(target: Path) -> None:
    """Build the index of the shard copied to `target` in a child process (removed when the
    build fails)."""
    done = subprocess.run(
        [sys.executable, '-m', 'vectors.edge_compact', str(target)],
        capture_output=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        remove(target)
        said = done.stderr.decode('utf-8', 'replace').strip()[-2000:]
        raise StoreUnavailable(f'building the index of {target} failed: {said}')


def replay(shard: Any, journal: Sequence[Any], start: int) -> int:
    """Apply to a new generation the writes its source took since it began, from `start`;
    returns where the next replay starts. Upserts, payload merges and deletes give the same
    points when applied again in order, whatever the copy already held."""
    while start < len(journal):
        shard.update(journal[start])
        start += 1
    return start


def disk_bytes(path: Path) -> int:
    """The bytes the files under `path` take on disk (allocated blocks, as `du` counts them)."""
    total = 0
    for entry in path.rglob('*'):
        with contextlib.suppress(FileNotFoundError):  # a log segment dropped meanwhile
            total += entry.lstat().st_blocks * 512 if entry.is_file() else 0
    return total


def points(shard: Any) -> int:
    """The exact number of points in `shard`."""
    return int(shard.count(qe.CountRequest(exact=True)))


if __name__ == '__main__':
    build_here(sys.argv[1])
