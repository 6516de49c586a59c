"""File source readers resume from a checkpointed position, in every format: text lines in
byte-range splits, JSON Lines, CSV (whole files), Parquet (row groups), and a monitored
directory. A reader restored from ``snapshot_state()`` returns exactly what the old reader
had not returned yet, for every subtask and cut point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from millstream.common import Duration, Types
from millstream.common.connector import ReaderContext
from millstream.datastream.connectors.file_system import FileSource, StreamFormat
from millstream.datastream.formats.csv import CsvReaderFormat, CsvSchema
from millstream.datastream.formats.json import JsonLinesReaderFormat, JsonRowDeserializationSchema
from millstream.datastream.formats.parquet import ParquetColumnarRowInputFormat
from millstream.table.types import DataTypes
from tests.unit.connectors.test_source_positions import drain


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FileSource]:
    root = tmp_path_factory.mktemp("positions")
    text = root / "text"
    text.mkdir()
    for n in range(3):
        (text / f"part-{n}.txt").write_text("".join(f"line {n}-{i} {'x' * (i % 13)}\n" for i in range(150)))
    jsonl = root / "events.jsonl"
    jsonl.write_text("".join(json.dumps({"id": i, "user": f"u{i % 7}"}) + "\n" for i in range(300)))
    csv_dir = root / "csv"
    csv_dir.mkdir()
    for n in range(3):
        (csv_dir / f"p{n}.csv").write_text("".join(f"{n * 100 + i},name {i}\n" for i in range(40)))
    parquet = root / "t.parquet"
    table = pa.table({"id": list(range(250)), "name": [f"n{i}" for i in range(250)]})
    pq.write_table(table, parquet, row_group_size=20)
    event = Types.ROW_NAMED(["id", "user"], [Types.INT(), Types.STRING()])
    csv_schema = (
        CsvSchema.builder().add_number_column("id", DataTypes.INT()).add_string_column("name").build()
    )
    row_type = DataTypes.ROW(
        [DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("name", DataTypes.STRING())]
    )
    return {
        "text lines": FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(text))
        .set_split_size(1500)
        .build(),
        "json lines": FileSource.for_record_stream_format(
            JsonLinesReaderFormat.for_schema(JsonRowDeserializationSchema.builder().type_info(event).build()),
            str(jsonl),
        )
        .set_split_size(2000)
        .build(),
        "csv": FileSource.for_record_stream_format(
            CsvReaderFormat.for_schema(csv_schema), str(csv_dir)
        ).build(),
        "parquet": FileSource.for_bulk_file_format(
            ParquetColumnarRowInputFormat(None, row_type, 100, False, False), str(parquet)
        ).build(),
    }


@pytest.mark.parametrize("name", ["text lines", "json lines", "csv", "parquet"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parallelism=st.integers(1, 3), cut=st.integers(0, 460), poll_size=st.sampled_from([1, 7, 64, 1000]))
def test_a_restored_file_reader_continues_exactly_after_the_checkpoint(
    files, name, parallelism, cut, poll_size
):  # type: ignore[no-untyped-def]
    source = files[name]
    for subtask in range(parallelism):
        context = ReaderContext(subtask, parallelism, name)
        expected = drain(source.create_reader(context), poll_size)
        reader = source.create_reader(context)
        before = drain(reader, poll_size, limit=cut)
        state = reader.snapshot_state()
        reader.close()
        restored = source.create_reader(context)
        restored.restore_state(state)
        after = drain(restored, poll_size)
        restored.close()
        assert before + after == expected, (subtask, len(before), len(after), len(expected))


def test_a_monitored_directory_resumes_without_reassigning_or_losing_files(tmp_path: Path):
    watched = tmp_path / "in"
    watched.mkdir()
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(watched))
        .monitor_continuously(Duration.of_millis(1))
        .build()
    )
    context = ReaderContext(0, 1, "watched")
    (watched / "a.txt").write_text("".join(f"a{i}\n" for i in range(10)))
    reader = source.create_reader(context)
    first = drain_available(reader, 4, limit=6)
    state = reader.snapshot_state()
    reader.close()
    (watched / "b.txt").write_text("".join(f"b{i}\n" for i in range(5)))  # appears after the checkpoint
    restored = source.create_reader(context)
    restored.restore_state(state)
    rest = drain_available(restored, 4)
    restored.close()
    assert first == [f"a{i}" for i in range(6)]
    assert rest == [f"a{i}" for i in range(6, 10)] + [f"b{i}" for i in range(5)]


def drain_available(reader: Any, poll_size: int, limit: int | None = None) -> list[Any]:
    """A monitoring reader never ends: read until it has nothing for two polls in a row."""
    out: list[Any] = []
    empty = 0
    while empty < 2 and (limit is None or len(out) < limit):
        batch = reader.poll(poll_size if limit is None else min(poll_size, limit - len(out)))
        if batch:
            out.extend(batch)
            empty = 0
        else:
            empty += 1
    return out
