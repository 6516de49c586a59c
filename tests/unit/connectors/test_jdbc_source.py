"""The JDBC scan's readers (issue 49, JDBC): subtask i of p reads splits i, i + p, ...; a
reader's checkpointed position is its splits still to read and the rows of the current one
already emitted, so a reader restored from it emits exactly the rows after it; restored at
another parallelism, the unread splits are dealt round-robin. Runs on a SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from millstream.common.connector import ReaderContext
from millstream.connectors.jdbc.connection import JdbcOptions
from millstream.connectors.jdbc.errors import JdbcConnectorError
from millstream.connectors.jdbc.source import JdbcSource, JdbcSplit
from millstream.connectors.jdbc.splits import numeric_between_ranges
from millstream.table.common.types import DataTypes


def _source(tmp_path: Path, table: str = "t") -> JdbcSource:
    path = tmp_path / "scan.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, ok BOOLEAN)")
        db.executemany("INSERT OR IGNORE INTO t VALUES (?, ?)", [(i, i % 2) for i in range(1, 101)])
    splits = tuple(JdbcSplit(i, r) for i, r in enumerate(numeric_between_ranges(1, 100, 4)))
    return JdbcSource(
        JdbcOptions(f"jdbc:sqlite:{path}"),
        f'SELECT "id", "ok" FROM "{table}" WHERE ("id" BETWEEN ? AND ?) ORDER BY "id"',
        (DataTypes.INT(), DataTypes.BOOLEAN()),
        splits,
        table=table,
        fetch_size=6,
    )


def _drain(reader: Any, max_records: int = 9) -> list[Any]:
    out: list[Any] = []
    while (batch := reader.poll(max_records)) is not None:
        out.extend(batch)
    reader.close()
    return out


def test_subtasks_read_their_splits_as_insert_changes(tmp_path: Path) -> None:
    source = _source(tmp_path)
    first = _drain(source.create_reader(ReaderContext(0, 2)))
    second = _drain(source.create_reader(ReaderContext(1, 2)))
    assert first[0] == ("+I", (1, True)) and first[-1] == ("+I", (75, True))  # splits 0 and 2
    assert sorted(row[0] for _, row in first + second) == list(range(1, 101))


def test_a_restored_reader_emits_the_rows_after_its_checkpoint(tmp_path: Path) -> None:
    source = _source(tmp_path)
    reader = source.create_reader(ReaderContext(0, 1))
    before = reader.poll(9) + reader.poll(9)
    state = reader.snapshot_state()
    assert state["offset"] == 18 and len(state["splits"]) == 4
    reader.close()
    restored = source.create_reader(ReaderContext(0, 1))
    restored.restore_state(state)
    assert [row[0] for _, row in before + _drain(restored)] == list(range(1, 101))


def test_unread_splits_are_dealt_to_a_new_parallelism(tmp_path: Path) -> None:
    source = _source(tmp_path)
    states = [source.create_reader(ReaderContext(i, 2)).snapshot_state() for i in range(2)]
    rescaled = source.rescale_reader_states(states, 3)
    assert [len(s["splits"]) for s in rescaled] == [2, 1, 1]


def test_a_missing_table_is_one_line_naming_it(tmp_path: Path) -> None:
    reader = _source(tmp_path, "nowhere").create_reader(ReaderContext(0, 1))
    with pytest.raises(JdbcConnectorError) as error:
        reader.poll(5)
    reader.close()
    assert str(error.value) == (
        f"Reading the JDBC table 'nowhere' of 'jdbc:sqlite:{tmp_path}/scan.db' failed: "
        "OperationalError: no such table: nowhere"
    )
