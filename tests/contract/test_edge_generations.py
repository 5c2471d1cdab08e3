"""Generations of a Qdrant Edge shard's folder (vectors/edge_compact.py): an index build or a
compaction writes a new generation beside the current one, opens it there and swaps it in; a
reopening uses the newest committed generation and removes the others."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.contract.test_vector_store import ALL, REPO, SPEC, C, pid, point
from tests.waiting import wait_until
from vectors import edge_compact
from vectors.edge import EdgeVectorStore
from vectors.edge_build import BLOATED_EMPTY_BYTES
from vectors.models import CollectionSpec

MARKER = 'zq-forgotten-marker-7731'


def shard_folders(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def holds(root: Path, text: str) -> bool:
    needle = text.encode()
    return any(needle in p.read_bytes() for p in root.rglob('*') if p.is_file())


@pytest.mark.parametrize('dies', ['before', 'after'])
def test_edge_a_build_that_dies_around_its_commit_reopens_a_whole_generation(
    tmp_path: Path, dies: str
) -> None:
    """A process killed after the new generation is built but before it is committed reopens
    the previous generation (the new one is removed); killed right after the commit, it
    reopens the new one (the old one is removed). Every acknowledged point is there."""
    root = tmp_path / 'vectors'
    code = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from vectors import edge_compact
        from vectors.edge import EdgeVectorStore
        from tests.contract.test_vector_store import SPEC, point
        commit = edge_compact.commit

        def die(*args):
            if {dies!r} == 'after':
                commit(*args)
            os._exit(0)

        edge_compact.commit = die
        vs = EdgeVectorStore(Path({str(root)!r}), auto_optimize=False)
        vs.ensure_collection(SPEC)
        vs.upsert('{C}', [point(n) for n in range(1, 301)])
        vs.optimize()
        raise SystemExit('the build did not reach its commit')
        """
    )
    subprocess.run([sys.executable, '-c', code], cwd=REPO, check=True, timeout=300)
    assert shard_folders(root) == [C, f'{C}.g1']  # both generations were left on disk
    store = EdgeVectorStore(root, auto_optimize=False)
    try:
        store.ensure_collection(SPEC)
        assert store._shards.generations[C] == (0 if dies == 'before' else 1)
        assert shard_folders(root) == [C if dies == 'before' else f'{C}.g1']
        assert store.count(C, ALL) == 300
        assert store.retrieve(C, [pid(7)])[0].id == pid(7)
    finally:
        store.close()


def test_edge_opens_a_folder_without_generations_and_keeps_one_generation(
    tmp_path: Path,
) -> None:
    """A shard folder from before generations (`<name>` only) opens as generation 0; a build
    and a compaction each leave only the new generation on disk, and the compaction leaves no
    byte of a deleted point anywhere under the store's root."""
    root = tmp_path / 'vectors'
    store = EdgeVectorStore(root, auto_optimize=False)
    store.ensure_collection(SPEC)
    store.upsert(C, [point(n, dense=[1.0, n / 300, 0.0, 0.0]) for n in range(1, 201)])
    store.upsert(C, [point(999, text=f'the marker {MARKER}')])
    store.close()
    assert shard_folders(root) == [C]
    assert not (root / f'{C}.current').exists()  # the layout before generations
    store = EdgeVectorStore(root, auto_optimize=False)
    try:
        store.ensure_collection(SPEC)
        assert store.count(C, ALL) == 201
        store.optimize()
        assert shard_folders(root) == [f'{C}.g1']
        store.delete(C, [pid(999)])
        assert store.compact() == 200
        assert shard_folders(root) == [f'{C}.g2']
        assert not holds(root, MARKER)
        assert store.count(C, ALL) == 200
    finally:
        store.close()
    again = EdgeVectorStore(root, auto_optimize=False)
    try:
        again.ensure_collection(SPEC)
        assert again._shards.generations[C] == 2
        assert again.count(C, ALL) == 200
        assert again.query(C, 'dense', [1.0, 5 / 300, 0.0, 0.0], ALL, 1)[0].id == pid(5)
    finally:
        again.close()


def test_edge_a_build_rolls_the_new_generation_s_log_past_the_points_upserts(
    tmp_path: Path,
) -> None:
    """Loading a shard replays every record its log keeps, with the GIL held: the generation a
    build loads keeps no upsert of its points in its log (their text is in its segments only),
    and the log's numbering goes on, so a point rewritten after the build keeps its new payload
    across a reopening."""
    root = tmp_path / 'vectors'
    store = EdgeVectorStore(root, auto_optimize=False)
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n, text=f'{MARKER} {n}') for n in range(1, 301)])
        assert holds(root / C / 'wal', MARKER)
        store.optimize()
        assert shard_folders(root) == [f'{C}.g1']
        assert not holds(root / f'{C}.g1' / 'wal', MARKER)
        store.upsert(C, [point(7, text='rewritten after the build')])
    finally:
        store.close()
    again = EdgeVectorStore(root, auto_optimize=False)
    try:
        again.ensure_collection(SPEC)
        assert again.count(C, ALL) == 300
        assert again.retrieve(C, [pid(7)])[0].payload['text'] == 'rewritten after the build'
        assert again.retrieve(C, [pid(8)])[0].payload['text'] == f'{MARKER} 8'
    finally:
        again.close()


@pytest.mark.parametrize('work', ['optimize', 'compact'])
def test_edge_opens_the_new_generation_before_searches_wait_for_the_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, work: str
) -> None:
    """Loading a built shard takes seconds at 100k points: it happens while searches go on,
    and they wait only for the swap of the reference. Writes landing after the build began are
    in the new generation."""
    store = EdgeVectorStore(tmp_path / 'vectors', auto_optimize=False)
    opened_beside_the_swap: list[bool] = []
    real_open, real_rewrite = edge_compact.open_shard, edge_compact.rewrite

    def open_shard(*args: Any) -> Any:
        opened_beside_the_swap.append(store._shards.reads._writer)
        return real_open(*args)

    def rewrite(*args: Any) -> Any:
        store.upsert(C, [point(500)])  # lands in the old shard while the new one is written
        return real_rewrite(*args)

    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n) for n in range(1, 301)])
        store.delete(C, [pid(300)])
        monkeypatch.setattr(edge_compact, 'open_shard', open_shard)
        monkeypatch.setattr(edge_compact, 'rewrite', rewrite)
        getattr(store, work)()
        assert store._shards.generations[C] == 1
        if work == 'optimize':
            assert opened_beside_the_swap == [False]
            assert store.count(C, ALL) == 299
        else:
            assert store.count(C, ALL) == 300
            assert store.retrieve(C, [pid(500)])[0].id == pid(500)
    finally:
        store.close()


def _built_beside_empty(root: Path, empty: CollectionSpec) -> EdgeVectorStore:
    """A store of 50 points in `C`, built, beside the empty shard `empty` (the store is open)."""
    store = EdgeVectorStore(root, auto_optimize=False)
    store.ensure_collection(SPEC)
    store.ensure_collection(empty)
    store.upsert(C, [point(n) for n in range(1, 51)])
    store.optimize()
    return store


def test_edge_a_build_leaves_an_empty_shard_as_it_is(tmp_path: Path) -> None:
    """An index build rebuilds the shards that hold points only: an empty shard keeps its
    folder (a built copy of one holds ~200 MB of index pages and log padding that every
    opening reads back), and opens empty again."""
    root = tmp_path / 'vectors'
    empty = SPEC.model_copy(update={'name': 'episodes'})
    store = _built_beside_empty(root, empty)
    try:
        assert shard_folders(root) == ['episodes', f'{C}.g1']
    finally:
        store.close()
    again = EdgeVectorStore(root, auto_optimize=False)
    try:
        again.ensure_collection(SPEC)
        again.ensure_collection(empty)
        assert again._shards.generations == {C: 1, 'episodes': 0}
        assert again.count('episodes', ALL) == 0
        assert again.count(C, ALL) == 50
    finally:
        again.close()


def test_edge_an_empty_shard_an_older_build_bloated_is_rewritten_fresh(tmp_path: Path) -> None:
    """An empty shard built by a build before 684b67f (~200 MB that every opening reads back)
    is rewritten as a fresh empty generation by the optimizer thread after a reopening, and
    takes writes and searches after; a shard holding points keeps its generation and folder."""
    root = tmp_path / 'vectors'
    empty = SPEC.model_copy(update={'name': 'episodes'})
    store = _built_beside_empty(root, empty)
    try:
        store._builds._replace('episodes', build=True)  # what a build did before 684b67f
        assert shard_folders(root) == ['episodes.g1', f'{C}.g1']
    finally:
        store.close()
    bloated = edge_compact.disk_bytes(root / 'episodes.g1')
    assert bloated > BLOATED_EMPTY_BYTES
    again = EdgeVectorStore(root)  # its optimizer thread repairs
    try:
        again.ensure_collection(SPEC)
        again.ensure_collection(empty)
        wait_until(  # the old folder goes once the new generation is in its place
            lambda: shard_folders(root) == ['episodes.g2', f'{C}.g1'],
            lambda: f'the shard folders are {shard_folders(root)}',
            timeout=300,
        )
        assert again._shards.generations == {C: 1, 'episodes': 2}
        assert edge_compact.disk_bytes(root / 'episodes.g2') < BLOATED_EMPTY_BYTES
        assert again.count('episodes', ALL) == 0
        assert again.count(C, ALL) == 50
        again.upsert('episodes', [point(7, dense=[1.0, 0.0, 0.0, 0.0])])
        assert again.query('episodes', 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 1)[0].id == pid(7)
    finally:
        again.close()
