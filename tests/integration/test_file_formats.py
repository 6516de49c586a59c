"""FileSource in CSV, JSON Lines and Parquet: typed rows, Flink's parsing rules, work split
over subtasks, and errors that name the file, the line and the column."""

from __future__ import annotations

import datetime
import decimal
import json
import os
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from millstream.common import Duration, JobExecutionException, Row, Types, WatermarkStrategy
from millstream.datastream import RuntimeContext
from millstream.datastream.connectors.file_system import FileSource
from millstream.datastream.formats.csv import CsvReaderFormat, CsvSchema
from millstream.datastream.formats.json import JsonLinesReaderFormat, JsonRowDeserializationSchema
from millstream.datastream.formats.parquet import ParquetColumnarRowInputFormat
from millstream.datastream.functions import MapFunction
from millstream.table import DataTypes
from tests.conftest import make_env


def read(source: FileSource, parallelism: int = 1, **config: Any) -> list[Any]:
    env = make_env(parallelism, minicluster__mode="threads", **config)
    with env.from_source(source, WatermarkStrategy.no_watermarks(), "files").execute_and_collect() as rows:
        return list(rows)


def messages(error: BaseException | None) -> str:
    """Every message of the cause chain, as a user reading the traceback sees them."""
    parts = []
    while error is not None:
        parts.append(str(error))
        error = error.__cause__
    return " | ".join(parts)


class WithSubtask(MapFunction):
    def open(self, runtime_context: RuntimeContext) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()

    def map(self, value: Any) -> Any:
        return self.subtask, value


# -- CSV ----------------------------------------------------------------------------------


def people() -> Any:
    """A new builder of the two columns id (INT) and name."""
    return CsvSchema.builder().add_number_column("id", DataTypes.INT()).add_string_column("name")


def csv_source(schema: CsvSchema, *paths: Any) -> FileSource:
    return FileSource.for_record_stream_format(CsvReaderFormat.for_schema(schema), *map(str, paths)).build()


def test_csv_rows_are_typed_named_rows(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(
        "id|name|score|price|ok|born|seen|tags\n"
        "1|Alice|1.5| 10.005|true|2020-01-31|2024-05-01 10:20:30.250|a,b\n"
        '2|"Bob|the ""builder""\nsecond line"|-2e3|7|False|1999-12-31|2024-05-01 00:00:00|\n'
        " 3 |  Carl  |NaN|0.1|TRUE|2000-02-29|2024-05-01 23:59:59|x\n"
    )
    schema = (
        CsvSchema.builder()
        .add_number_column("id", DataTypes.INT())
        .add_string_column("name")
        .add_number_column("score", DataTypes.DOUBLE())
        .add_number_column("price", DataTypes.DECIMAL(5, 2))
        .add_boolean_column("ok")
        .add_string_column("born")
        .add_string_column("seen")
        .add_array_column("tags", ",")
        .set_column_separator("|")
        .set_use_header()
        .set_strict_headers()
        .build()
    )
    rows = read(csv_source(schema, path))
    assert [r.id for r in rows] == [1, 2, 3]
    assert rows[0].as_dict() == {
        "id": 1,
        "name": "Alice",
        "score": 1.5,
        "price": decimal.Decimal("10.01"),  # rounded half up to the scale, as Flink's DecimalData
        "ok": True,
        "born": "2020-01-31",
        "seen": "2024-05-01 10:20:30.250",
        "tags": ["a", "b"],
    }
    assert rows[1].name == 'Bob|the "builder"\nsecond line'  # quoted separator, quote and line break
    assert rows[1].score == -2000.0 and rows[1].ok is False and rows[1].tags == []
    assert rows[2].name == "  Carl  "  # strings keep their spaces; numbers are trimmed
    assert rows[2].score != rows[2].score and rows[2].ok is True
    assert rows[0].get_fields_by_names(["name", "id"]) == ["Alice", 1]


def test_csv_dates_nulls_comments_and_skipped_rows(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(
        "# produced by a test\n"
        "first,row,skipped\n"
        "2020-01-31,2024-05-01 10:20:30.250,NULL\n"
        "\n"
        "NULL,2024-05-01 00:00:00,4;5;NULL\n"
    )
    schema = (
        CsvSchema.builder()
        .add_number_column("day", DataTypes.DATE())  # any type can be given as the column's type
        .add_string_column("at")
        .add_array_column("counts", element_type=DataTypes.INT())
        .set_null_value("NULL")
        .set_allow_comments()
        .set_skip_first_data_row()
        .build()
    )
    fmt = CsvReaderFormat.for_schema(schema)
    schema_at = CsvSchema.builder().add_columns_from(schema).build()
    assert schema_at.get_type_info() == schema.get_type_info() and len(schema_at) == 3
    assert schema_at != schema  # columns only: the dialect stays the builder's
    rows = read(FileSource.for_record_stream_format(fmt, str(path)).build())
    assert [r.as_dict() for r in rows] == [
        {"day": datetime.date(2020, 1, 31), "at": "2024-05-01 10:20:30.250", "counts": None},
        {"day": None, "at": "2024-05-01 00:00:00", "counts": [4, 5, None]},
    ]


def test_csv_source_has_the_schemas_row_type_and_prints_as_flink(tmp_path, capfd):
    path = tmp_path / "p.csv"
    path.write_text("1,Alice\n")
    schema = people().build()
    env = make_env(1, minicluster__mode="threads")
    ds = env.from_source(csv_source(schema, path), WatermarkStrategy.no_watermarks(), "csv")
    assert ds.get_type() == Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
    assert schema.get_type_info() == ds.get_type()
    ds.print()
    env.execute("print csv")
    assert capfd.readouterr().out.splitlines() == ["+I[1,Alice]"]


@pytest.mark.parametrize("parallelism", [1, 3])
def test_csv_files_are_shared_out_whole_and_read_once(tmp_path, parallelism: int):
    expected = []
    for f in range(7):
        lines = ["id,name"] + [f"{f * 100 + i},n{f}-{i}" for i in range(20 + 10 * f)]
        (tmp_path / f"part-{f}.csv").write_text("\n".join(lines) + "\n")
        expected += [(f * 100 + i, f"n{f}-{i}") for i in range(20 + 10 * f)]
    schema = people().set_use_header().build()
    env = make_env(parallelism, minicluster__mode="threads")
    stream = env.from_source(csv_source(schema, tmp_path), WatermarkStrategy.no_watermarks(), "csv")
    with stream.map(WithSubtask()).execute_and_collect() as results:
        tagged = list(results)
    assert sorted((r.id, r.name) for _, r in tagged) == sorted(expected)
    # whole files: every file's rows come from one subtask. Which subtask reads which file
    # is up to the order their requests reach the enumerator (FLIP-27: a reader that starts
    # late may find every split taken), so it is not asserted here (test_split_assignment)
    assert len(csv_source(schema, tmp_path).splits(parallelism)) == 7
    by_file = {}
    for subtask, row in tagged:
        assert by_file.setdefault(row.id // 100, subtask) == subtask
    assert len(by_file) == 7


def test_csv_row_length_mismatch_names_file_line_and_operator(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1,Alice\n2,Bob\n3,Carl,extra\n4,Dan\n")
    with pytest.raises(JobExecutionException) as info:
        read(csv_source(people().build(), path))
    text = messages(info.value)
    assert "operator 'Source: files'" in text
    assert f"{path}, line 3: Row length mismatch. 2 fields expected but was 3." in text


def test_csv_bad_number_names_the_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text('1,Alice\n"2\n",Bob\nx7,Carl\n')
    with pytest.raises(JobExecutionException) as info:
        read(csv_source(people().build(), path))
    # the quoted field spans two lines: the bad row ends on line 4
    assert f"{path}, line 4, column 'id': invalid literal for int()" in messages(info.value)


def test_csv_strict_header_must_match(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("id,full_name\n1,Alice\n")
    schema = people().set_use_header().set_strict_headers().build()
    with pytest.raises(JobExecutionException) as info:
        read(csv_source(schema, path))
    expected = "line 1: the header ['id', 'full_name'] does not match the schema's columns ['id', 'name']"
    assert expected in messages(info.value)


def test_csv_schema_builder_checks_single_chars():
    with pytest.raises(ValueError, match="Column separator must be a single char"):
        CsvSchema.builder().set_column_separator("||")
    with pytest.raises(TypeError, match="expects a CsvSchema"):
        CsvReaderFormat.for_schema("id,name")  # type: ignore[arg-type]


# -- JSON Lines ---------------------------------------------------------------------------

EVENT = Types.ROW_NAMED(
    ["id", "user", "tags", "attrs", "where"],
    [
        Types.LONG(),
        Types.STRING(),
        Types.LIST(Types.STRING()),
        Types.MAP(Types.STRING(), Types.DOUBLE()),
        Types.ROW_NAMED(["lat", "lon"], [Types.DOUBLE(), Types.DOUBLE()]),
    ],
)


def json_source(schema: JsonRowDeserializationSchema, path: Any, split_size: int | None = None) -> FileSource:
    builder = FileSource.for_record_stream_format(JsonLinesReaderFormat.for_schema(schema), str(path))
    if split_size is not None:
        builder.set_split_size(split_size)
    return builder.build()


def test_json_lines_become_rows_of_the_type(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(
        json.dumps(
            {"id": 1, "user": "ann", "tags": ["a"], "attrs": {"x": 1}, "where": {"lat": 1.5, "lon": 2}},
        )
        + "\n\n"
        + json.dumps({"id": "2", "user": 7, "where": None, "extra": True})
        + "\r\n"
    )
    schema = JsonRowDeserializationSchema.builder().type_info(EVENT).build()
    rows = read(json_source(schema, path))
    assert rows[0].as_dict(recursive=True) == {
        "id": 1,
        "user": "ann",
        "tags": ["a"],
        "attrs": {"x": 1.0},
        "where": {"lat": 1.5, "lon": 2.0},
    }
    # numbers in strings are parsed, other JSON values read as their text, missing fields are None
    assert rows[1].as_dict() == {"id": 2, "user": "7", "tags": None, "attrs": None, "where": None}
    assert len(rows) == 2  # the blank line is skipped


def test_json_lines_split_in_byte_ranges_are_each_read_once(tmp_path):
    path = tmp_path / "many.jsonl"
    with open(path, "w") as f:
        for i in range(2_000):
            f.write(json.dumps({"id": i, "user": "u" * (i % 17)}) + "\n")
    schema = JsonRowDeserializationSchema.builder().type_info(EVENT).build()
    env = make_env(3, minicluster__mode="threads")
    source = json_source(schema, path, split_size=4096)
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "j")
    with stream.map(WithSubtask()).execute_and_collect() as results:
        tagged = list(results)
    # cut at 4 KiB, lines crossing a cut read by the range they start in, each line once
    # (which subtask reads which range is up to their requests: not asserted)
    assert len(source.splits(3)) == -(-os.path.getsize(path) // 4096)
    assert sorted(r.id for _, r in tagged) == list(range(2_000))


def test_json_parse_error_names_file_and_byte_offset(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"id": 1}) + "\n"
    path.write_text(good * 3 + '{"id": 4,,}\n' + good)
    schema = JsonRowDeserializationSchema.builder().type_info(EVENT).build()
    with pytest.raises(JobExecutionException) as info:
        read(json_source(schema, path))
    text = messages(info.value)
    assert f"{path}: the line at byte {len(good) * 3}: Expecting property name" in text
    assert "operator 'Source: files'" in text


def test_json_ignore_parse_errors_and_fail_on_missing_field(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"id": 1, "user": "a"}\nnot json\n{"id": "x"}\n{"id": 3}\n')
    lenient = JsonRowDeserializationSchema.builder().type_info(EVENT).ignore_parse_errors().build()
    # only the value that does not convert is None: PyFlink 2.3.0's schema deserializes
    # {"name":"carol","n":"x3"} of (name STRING, n INT) to +I[carol, null], drops 'not json'
    assert [r.id for r in read(json_source(lenient, path))] == [1, None, 3]
    strict = (
        JsonRowDeserializationSchema.builder()
        .type_info(Types.ROW_NAMED(["id", "user"], [Types.LONG(), Types.STRING()]))
        .fail_on_missing_field()
        .ignore_parse_errors()
        .build()
    )
    assert [r.id for r in read(json_source(strict, path))] == [1]
    failing = (
        JsonRowDeserializationSchema.builder()
        .type_info(Types.ROW_NAMED(["id", "user"], [Types.LONG(), Types.STRING()]))
        .fail_on_missing_field()
        .build()
    )
    path.write_text('{"id": 1, "user": "a"}\n{"id": 3}\n')
    with pytest.raises(JobExecutionException) as info:
        read(json_source(failing, path))
    assert "the line at byte 23: Could not find field with name 'user'." in messages(info.value)


# -- Parquet ------------------------------------------------------------------------------


def write_parquet(path: Any, n: int, row_group_size: int) -> None:
    table = pa.table(
        {
            "Id": pa.array(range(n), pa.int64()),
            "name": [f"n{i}" for i in range(n)],
            "price": pa.array([decimal.Decimal(i).scaleb(-2) for i in range(n)], pa.decimal128(9, 2)),
            "day": [datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 30) for i in range(n)],
            "at": pa.array(
                [datetime.datetime(2024, 1, 1, 0, 0, i % 60) for i in range(n)], pa.timestamp("ms")
            ),
            "tags": [[f"t{i % 3}"] * (i % 3) for i in range(n)],
            "pos": [{"x": i, "y": -i} for i in range(n)],
            "attrs": pa.array([[("k", float(i))] for i in range(n)], pa.map_(pa.string(), pa.float64())),
        }
    )
    pq.write_table(table, str(path), row_group_size=row_group_size)


ROW_TYPE = DataTypes.ROW(
    [
        DataTypes.FIELD("id", DataTypes.BIGINT()),
        DataTypes.FIELD("name", DataTypes.STRING()),
        DataTypes.FIELD("price", DataTypes.DECIMAL(9, 2)),
        DataTypes.FIELD("day", DataTypes.DATE()),
        DataTypes.FIELD("at", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
        DataTypes.FIELD("pos", DataTypes.ROW([DataTypes.FIELD("x", DataTypes.BIGINT())])),
        DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE())),
        DataTypes.FIELD("absent", DataTypes.STRING()),
    ]
)


def parquet_source(path: Any, case_sensitive: bool = False) -> FileSource:
    fmt = ParquetColumnarRowInputFormat(None, ROW_TYPE, 100, False, case_sensitive)
    return FileSource.for_bulk_file_format(fmt, str(path)).build()


def test_parquet_rows_with_nested_and_logical_types(tmp_path):
    write_parquet(tmp_path / "t.parquet", 5, 2)
    rows = read(parquet_source(tmp_path / "t.parquet"))
    assert rows[4].as_dict() == {
        "id": 4,  # matched to the file's "Id" case-insensitively
        "name": "n4",
        "price": decimal.Decimal("0.04"),
        "day": datetime.date(2024, 1, 5),
        "at": datetime.datetime(2024, 1, 1, 0, 0, 4),
        "tags": ["t1"],
        "pos": Row(x=4),
        "attrs": {"k": 4.0},
        "absent": None,  # a column the file lacks reads as None
    }
    assert [r.id for r in rows] == [0, 1, 2, 3, 4]
    # case-sensitive (the default): "id" is not "Id"
    assert {r.id for r in read(parquet_source(tmp_path / "t.parquet", case_sensitive=True))} == {None}


@pytest.mark.parametrize("parallelism", [1, 3])
def test_parquet_row_groups_are_split_over_subtasks(tmp_path, parallelism: int):
    write_parquet(tmp_path / "big.parquet", 5_000, 500)
    write_parquet(tmp_path / "small.parquet", 10, 500)
    env = make_env(parallelism, minicluster__mode="threads")
    stream = env.from_source(parquet_source(tmp_path), WatermarkStrategy.no_watermarks(), "pq")
    with stream.map(WithSubtask()).execute_and_collect() as results:
        tagged = list(results)
    assert sorted(r.id for _, r in tagged) == sorted([*range(5_000), *range(10)])
    # the big file's ten row groups are ten splits (so any subtask may read any of them),
    # and a row group is read whole by one subtask
    splits = parquet_source(tmp_path).splits(parallelism)
    assert len([split for split in splits if split.path.endswith("big.parquet")]) == 10
    by_group: dict[int, int] = {}
    for subtask, row in tagged:
        if row.id >= 10:  # ids 0-9 are in both files
            assert by_group.setdefault(row.id // 500, subtask) == subtask
    assert len(by_group) == 10


def test_not_a_parquet_file_names_the_file(tmp_path):
    (tmp_path / "x.parquet").write_text("hello")
    with pytest.raises(JobExecutionException) as info:
        read(parquet_source(tmp_path / "x.parquet"))
    assert f"{tmp_path / 'x.parquet'}: not a Parquet file" in messages(info.value)


def test_bulk_format_entry_point_checks_its_argument(tmp_path):
    with pytest.raises(TypeError, match="expects a BulkFormat"):
        FileSource.for_bulk_file_format(CsvReaderFormat.for_schema(people().build()), str(tmp_path))
    with pytest.raises(TypeError, match="needs row_type"):
        ParquetColumnarRowInputFormat()


# -- monitored --------------------------------------------------------------------------


def test_monitored_csv_directory_reads_new_files(tmp_path):
    source = (
        FileSource.for_record_stream_format(CsvReaderFormat.for_schema(people().build()), str(tmp_path))
        .monitor_continuously(Duration.of_millis(20))
        .build()
    )
    env = make_env(2, minicluster__mode="threads")
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "watched")
    seen = []
    with stream.execute_and_collect() as results:
        for n in range(3):
            hidden = tmp_path / f".f{n}.csv"
            hidden.write_text(f'{n},"name\n{n}"\n')
            os.rename(hidden, tmp_path / f"f{n}.csv")
            row = next(results)
            seen.append((row.id, row.name))
    assert seen == [(0, "name\n0"), (1, "name\n1"), (2, "name\n2")]


# -- bulk-format sinks ----------------------------------------------------------------------


def _part_files(directory: Any) -> list[str]:
    return sorted(os.path.join(root, n) for root, _, names in os.walk(directory) for n in names)


def test_csv_bulk_sink_writes_what_the_csv_source_reads_back(tmp_path):
    from millstream.datastream.connectors.file_system import BucketAssigner, FileSink
    from millstream.datastream.formats.csv import CsvBulkWriters

    schema = (
        CsvSchema.builder()
        .add_number_column("id", DataTypes.INT())
        .add_string_column("name")
        .add_number_column("score", DataTypes.DOUBLE())
        .add_boolean_column("ok")
        .add_array_column("tags", ",", element_type=DataTypes.STRING())
        .set_column_separator("|")
        .set_use_header()
        .set_null_value("NULL")
        .build()
    )
    rows = [Row(i, f'n|"{i}"\nx', i / 4, i % 2 == 0, [f"t{j}" for j in range(i % 3)]) for i in range(40)]
    rows.append(Row(40, None, None, None, None))
    sink = (
        FileSink.for_bulk_format(str(tmp_path / "out"), CsvBulkWriters.for_schema(schema))
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    env = make_env(2, minicluster__mode="threads")
    env.from_collection(rows).rebalance().sink_to(sink)
    env.execute("write csv")
    parts = _part_files(tmp_path / "out")
    assert len(parts) == 2 and not any(os.path.basename(p).startswith(".") for p in parts)  # committed
    with open(parts[0]) as f:
        # each part starts with the header, quoted as Jackson quotes with '|' as separator (PyFlink
        # 2.3.0's CsvBulkWriters of (d, s, x) with '|' and a header wrote "d"|"s"|"x" first)
        assert f.readline() == '"id"|"name"|"score"|"ok"|"tags"\n'
    back = read(csv_source(schema, tmp_path / "out"))
    expected = [(r[0], r[1], r[2], r[3], r[4]) for r in rows[:-1]] + [(40, None, None, None, None)]
    assert sorted(tuple(r) for r in back) == sorted(expected)


def test_parquet_bulk_sink_writes_what_the_parquet_source_reads_back(tmp_path):
    from millstream.datastream.connectors.file_system import BucketAssigner, FileSink
    from millstream.datastream.formats.parquet import ParquetBulkWriters

    row_type = DataTypes.ROW(
        [
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("price", DataTypes.DECIMAL(9, 2)),
            DataTypes.FIELD("day", DataTypes.DATE()),
            DataTypes.FIELD("at", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
            DataTypes.FIELD("pos", DataTypes.ROW([DataTypes.FIELD("x", DataTypes.INT())])),
            DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE())),
        ]
    )
    rows = [
        Row(
            i,
            decimal.Decimal(i).scaleb(-2),
            datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
            datetime.datetime(2024, 1, 1, 0, 0, i % 60, 250_000),
            ["a"] * (i % 3),
            Row(x=i),
            {"k": i / 2},
        )
        for i in range(100)
    ]
    sink = (
        FileSink.for_bulk_format(str(tmp_path / "out"), ParquetBulkWriters.for_row_type(row_type))
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    env = make_env(2, minicluster__mode="threads")
    env.from_collection(rows).rebalance().sink_to(sink)
    env.execute("write parquet")
    assert len(_part_files(tmp_path / "out")) == 2
    fmt = ParquetColumnarRowInputFormat(row_type=row_type)
    back = read(FileSource.for_bulk_file_format(fmt, str(tmp_path / "out")).build())
    names = row_type.field_names()
    assert sorted((r.as_dict() for r in back), key=lambda d: d["id"]) == [dict(zip(names, r)) for r in rows]


def test_bulk_formats_roll_on_checkpoints_only(tmp_path):
    from millstream.datastream.connectors.file_system import FileSink, RollingPolicy
    from millstream.datastream.formats.csv import CsvBulkWriters

    builder = FileSink.for_bulk_format(str(tmp_path), CsvBulkWriters.for_schema(people().build()))
    with pytest.raises(ValueError, match="bulk formats roll on checkpoints only"):
        builder.with_rolling_policy(RollingPolicy.default_rolling_policy())
    with pytest.raises(TypeError, match="expects a bulk writer factory"):
        FileSink.for_bulk_format(str(tmp_path), people().build())
