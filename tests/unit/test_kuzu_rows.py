"""Which statement shape a Kuzu store picks for a batch: one scan, or one statement per key."""

from __future__ import annotations

from kg.kuzu_rows import (
    SMALL_BATCH,
    UNWIND_LINK_MS_PER_ROW,
    UNWIND_SET_MS_PER_ROW,
    scan_cheaper,
)


def test_a_few_keys_go_one_by_one_at_any_size() -> None:
    for rows in (0, 1_000, 1_000_000):
        assert not scan_cheaper(rows, SMALL_BATCH, 0.1)
        assert not scan_cheaper(rows, SMALL_BATCH, 1.0, UNWIND_SET_MS_PER_ROW)


def test_an_in_list_scans_a_small_table_and_looks_up_keys_in_a_big_one() -> None:
    # an IN list compares every row with every key: its cost grows with rows x keys
    assert scan_cheaper(1_000, 64, 0.1)
    assert not scan_cheaper(100_000, 64, 0.1)
    # a dearer statement per key moves the turn to a bigger table
    assert scan_cheaper(30_000, 64, 0.57)
    assert not scan_cheaper(300_000, 64, 0.57)


def test_an_unwind_match_pays_one_scan_whatever_the_batch() -> None:
    # one scan of the table, at a cost per row set by what the statement does there
    assert scan_cheaper(30_000, 50, 1.0, UNWIND_SET_MS_PER_ROW)
    assert not scan_cheaper(100_000, 50, 1.0, UNWIND_SET_MS_PER_ROW)
    assert scan_cheaper(100_000, 500, 1.0, UNWIND_SET_MS_PER_ROW)
    # creating relationships from the matches costs more a row: per row sooner
    assert scan_cheaper(2_000, 50, 0.59, UNWIND_LINK_MS_PER_ROW)
    assert not scan_cheaper(10_000, 50, 0.59, UNWIND_LINK_MS_PER_ROW)
