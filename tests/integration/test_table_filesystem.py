"""The filesystem connector of tables: partitioned CSV read with partition columns taken from
the directories, written back as CSV, JSON and Parquet (partition columns as directories, not
in the files) and read again; bad input named by file, line and column, or skipped on request;
updating queries refused by the append-only sink."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.tables import fold_changelog

pytestmark = pytest.mark.timeout(300)

ROWS = [
    (1, "apple", 2.5, "2024-01-01"),
    (2, "pear", None, "2024-01-01"),
    (3, "fig, dried", 1.0, "2024-01-02"),
]


def _write_input(root: str) -> None:
    os.makedirs(os.path.join(root, "dt=2024-01-01"))
    os.makedirs(os.path.join(root, "dt=2024-01-02"))
    with open(os.path.join(root, "dt=2024-01-01", "a.csv"), "w") as f:
        f.write("1,apple,2.5\n2,pear,\n")
    with open(os.path.join(root, "dt=2024-01-02", "b.csv"), "w") as f:
        f.write('3,"fig, dried",1.0\n')
    with open(os.path.join(root, "_SUCCESS"), "w") as f:
        f.write("hidden files are skipped\n")


def _table(t_env: TableEnvironment, name: str, path: str, fmt: str, extra: str = "") -> None:
    t_env.execute_sql(
        f"CREATE TABLE {name} (id INT, name STRING, price DOUBLE, dt STRING) PARTITIONED BY (dt) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = '{fmt}'{extra})"
    )


def _rows(t_env: TableEnvironment, sql: str) -> Counter[tuple[object, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return Counter(tuple(r) for r in rows)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "avro"])
def test_partitioned_tables_round_trip_through_each_format(tmp_path, fmt):
    source = str(tmp_path / "in")
    _write_input(source)
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    _table(t_env, "fruit", source, "csv")
    assert _rows(t_env, "SELECT * FROM fruit") == Counter(ROWS)
    target = str(tmp_path / "out")
    _table(t_env, "copy", target, fmt)
    t_env.execute_sql("INSERT INTO copy SELECT id, UPPER(name), price, dt FROM fruit").wait()
    written = sorted(os.path.relpath(os.path.join(d, f), target) for d, _, fs in os.walk(target) for f in fs)
    assert [os.path.dirname(p) for p in written] == ["dt=2024-01-01", "dt=2024-01-02"]
    assert all(p.endswith(f".{fmt}") and os.path.basename(p).startswith("part-") for p in written)
    if fmt == "json":  # the partition column lives in the directory name only
        first = open(os.path.join(target, written[1])).read().splitlines()
        assert [json.loads(line) for line in first] == [{"id": 3, "name": "FIG, DRIED", "price": 1.0}]
    expected = Counter((i, n.upper(), p, d) for i, n, p, d in ROWS)
    assert _rows(t_env, "SELECT * FROM copy") == expected
    streaming = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    _table(streaming, "copy", target, fmt)
    with streaming.execute_sql("SELECT dt, COUNT(*) AS c FROM copy GROUP BY dt").collect() as changes:
        final = fold_changelog((str(r.get_row_kind()), tuple(r)) for r in changes)
    assert final == Counter([("2024-01-01", 2), ("2024-01-02", 1)])


def test_bad_rows_are_named_or_skipped(tmp_path):
    path = tmp_path / "bad"
    path.mkdir()
    (path / "x.csv").write_text("1,ok,1.5,d\n2,bad,notanumber,d\n3,fine,2.0,d\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        f"CREATE TABLE t (id INT, name STRING, price DOUBLE, dt STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    with pytest.raises(Exception, match=r"x\.csv, line 2, column 'price'"):
        _rows(t_env, "SELECT * FROM t")
    t_env.execute_sql(
        f"CREATE TABLE lenient (id INT, name STRING, price DOUBLE, dt STRING) WITH ('connector' = "
        f"'filesystem', 'path' = '{path}', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true')"
    )
    # Flink's csv.ignore-parse-errors keeps the row with the bad field NULL (PyFlink 2.3 does)
    assert _rows(t_env, "SELECT id, price FROM lenient") == Counter([(1, 1.5), (2, None), (3, 2.0)])


def test_csv_ignore_parse_errors_reads_as_pyflink_and_a_bom_is_not_data(tmp_path):
    """PyFlink 2.3, the same table over ``1,x,1.5 / oops,y,2.5 / 3,z / 4,w,5.5,extra /
    5,v,notadouble`` with 'csv.ignore-parse-errors' = 'true', printed (1,x,1.5), (None,y,2.5),
    (3,z,None), (5,v,None): a bad field is NULL, a short row padded, a long row skipped."""
    path = tmp_path / "in"
    path.mkdir()
    (path / "a.csv").write_bytes(b"\xef\xbb\xbf1,x,1.5\noops,y,2.5\n3,z\n4,w,5.5,extra\n5,v,notadouble\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        f"CREATE TABLE t (a INT, b STRING, c DOUBLE) WITH ('connector' = 'filesystem', 'path' = "
        f"'{path}', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true')"
    )
    assert _rows(t_env, "SELECT * FROM t") == Counter(
        [(1, "x", 1.5), (None, "y", 2.5), (3, "z", None), (5, "v", None)]
    )


def test_the_append_only_sink_refuses_an_updating_query(tmp_path):
    source = str(tmp_path / "in")
    _write_input(source)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    _table(t_env, "fruit", source, "csv")
    t_env.execute_sql(
        f"CREATE TABLE counts (dt STRING, c BIGINT) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path / 'counts'}', 'format' = 'csv')"
    )
    with pytest.raises(ValueError, match="doesn't support consuming update and delete changes"):
        t_env.execute_sql("INSERT INTO counts SELECT dt, COUNT(*) FROM fruit GROUP BY dt")


def test_a_watched_directory_is_an_unbounded_table(tmp_path):
    """``'source.monitor-interval'``: files published into the directory (a new partition
    included) while the query runs are read as they appear; in batch mode the unbounded table
    is refused as Flink refuses it; a non-positive interval is an error."""
    root = str(tmp_path / "in")
    _write_input(root)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    _table(t_env, "watched", root, "csv", ", 'source.monitor-interval' = '50 ms'")
    seen = []
    with t_env.execute_sql("SELECT id, name, dt FROM watched WHERE id > 1").collect() as rows:
        for row in rows:
            seen.append(tuple(row))
            if len(seen) == 2:  # the files there at the start were read: publish a new one
                os.makedirs(os.path.join(root, "dt=2024-01-03"))
                with open(os.path.join(root, "dt=2024-01-03", ".c.csv"), "w") as f:
                    f.write("4,plum,3.0\n0,skipped,1.0\n")
                os.rename(
                    os.path.join(root, "dt=2024-01-03", ".c.csv"),
                    os.path.join(root, "dt=2024-01-03", "c.csv"),
                )
            if len(seen) == 3:
                break
    assert sorted(seen) == [
        (2, "pear", "2024-01-01"),
        (3, "fig, dried", "2024-01-02"),
        (4, "plum", "2024-01-03"),
    ]

    batch = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    _table(batch, "watched", root, "csv", ", 'source.monitor-interval' = '50 ms'")
    with pytest.raises(Exception, match="UNBOUNDED source"):
        batch.execute_sql("SELECT * FROM watched").collect()
    _table(batch, "never", root, "csv", ", 'source.monitor-interval' = '0 ms'")
    with pytest.raises(ValueError, match=r"'source\.monitor-interval' must be greater than 0"):
        batch.execute_sql("SELECT * FROM never").collect()


DEBEZIUM_LINES = [
    '{"before":null,"after":{"id":1,"name":"a","price":1.50},"op":"c"}',
    '{"before":null,"after":{"id":2,"name":"b","price":2.25},"op":"r"}',
    '{"before":{"id":1,"name":"a","price":1.50},"after":{"id":1,"name":"a2","price":1.75},"op":"u"}',
    '{"before":{"id":2,"name":"b","price":2.25},"after":null,"op":"d"}',
]
# PyFlink 2.3.0, the same program on the same file (its filesystem connector and flink-json's
# debezium-json format), printed these changes and wrote these lines
PYFLINK_SUM_CHANGES = [
    "+I 1.50",
    "-U 1.50",
    "+U 3.75",
    "-U 3.75",
    "+U 2.25",
    "-U 2.25",
    "+U 4.00",
    "-U 4.00",
    "+U 1.75",
]
PYFLINK_DEBEZIUM_OUT = [
    '{"before":null,"after":{"k":true,"total":1.5,"ts":"2024-01-02 03:04:05.6","b":"YWI="},"op":"c"}',
    '{"before":{"k":true,"total":1.5,"ts":"2024-01-02 03:04:05.6","b":"YWI="},"after":null,"op":"d"}',
    '{"before":null,"after":{"k":true,"total":3.75,"ts":"2024-01-02 03:04:05.6","b":"YWI="},"op":"c"}',
]


def test_changelog_files_read_and_written_as_pyflink_does(tmp_path):
    source = tmp_path / "cdc"
    source.mkdir()
    (source / "a.json").write_text("\n".join(DEBEZIUM_LINES) + "\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE s (id INT, name STRING, price DECIMAL(10, 2)) WITH ("
        f"'connector' = 'filesystem', 'path' = '{source}', 'format' = 'debezium-json')"
    )
    changes = [(str(r.get_row_kind()), tuple(r)) for r in t_env.execute_sql("SELECT * FROM s").collect()]
    assert [(k, r[0], r[1], str(r[2])) for k, r in changes] == [
        ("+I", 1, "a", "1.50"),
        ("+I", 2, "b", "2.25"),
        ("-U", 1, "a", "1.50"),
        ("+U", 1, "a2", "1.75"),
        ("-D", 2, "b", "2.25"),
    ]
    out = tmp_path / "out"
    t_env.execute_sql(
        "CREATE TABLE o (k BOOLEAN, total DECIMAL(10, 2), ts TIMESTAMP(3), b BYTES) WITH ("
        f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'debezium-json')"
    )
    query = "SELECT name IS NOT NULL, SUM(price) FROM s GROUP BY name IS NOT NULL"
    sums = [f"{r.get_row_kind()} {r[1]}" for r in t_env.execute_sql(query).collect()]
    assert sums == PYFLINK_SUM_CHANGES
    t_env.execute_sql(
        "INSERT INTO o SELECT name IS NOT NULL, SUM(price), TIMESTAMP '2024-01-02 03:04:05.600', "
        "CAST('ab' AS BYTES) FROM s GROUP BY name IS NOT NULL"
    ).wait()
    (written,) = [p for p in out.rglob("part-*")]
    lines = written.read_text().splitlines()
    assert len(lines) == len(PYFLINK_SUM_CHANGES) and lines[:3] == PYFLINK_DEBEZIUM_OUT
