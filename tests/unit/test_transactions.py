"""core.transactions: one SQLite transaction around a block, whatever fails in it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.transactions import transaction


def _db(tmp_path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(tmp_path / 'tx.sqlite3', isolation_level=None)
    db.execute('PRAGMA foreign_keys=ON')
    db.execute('CREATE TABLE parent (id INTEGER PRIMARY KEY)')
    db.execute(
        'CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id)'
        ' DEFERRABLE INITIALLY DEFERRED)'
    )
    return db


def test_the_block_commits_together_and_a_raise_rolls_all_of_it_back(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with transaction(db, 'BEGIN IMMEDIATE'):
        db.execute('INSERT INTO parent VALUES (1)')
        db.execute('INSERT INTO parent VALUES (2)')
    with pytest.raises(RuntimeError), transaction(db):
        db.execute('INSERT INTO parent VALUES (3)')
        raise RuntimeError('the caller failed')
    assert not db.in_transaction
    assert db.execute('SELECT id FROM parent ORDER BY id').fetchall() == [(1,), (2,)]


def test_a_failed_commit_is_rolled_back_so_the_next_transaction_can_begin(tmp_path: Path) -> None:
    db = _db(tmp_path)
    # a deferred foreign key is checked at COMMIT: the COMMIT itself fails
    with pytest.raises(sqlite3.IntegrityError), transaction(db):
        db.execute('INSERT INTO parent VALUES (1)')
        db.execute('INSERT INTO child VALUES (1, 99)')
    assert not db.in_transaction
    with transaction(db):
        db.execute('INSERT INTO parent VALUES (5)')
    assert db.execute('SELECT id FROM parent').fetchall() == [(5,)]
    assert db.execute('SELECT id FROM child').fetchall() == []
