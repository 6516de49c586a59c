# ruff: noqa: E501 - the DDL and CSV lines read best on one line each
"""The columnar scan's CSV and Parquet readers give the row path's rows and errors: CSV
fields Arrow parses otherwise than the row path (a hexadecimal integer, a trailing comma, a
blank number) fall back to it from that record on; Parquet row groups whose statistics rule
out a pushed filter are skipped, and the filter still decides every row of the others.

A projection pushed into a CSV scan converts only the columns read, as Flink's: PyFlink 2.3.0
reads ``SELECT a FROM b`` over the lines ``1,x`` / ``2,3`` of ``b (a INT, c INT)`` as
``[(1,), (2,)]`` with ``project=[a], metadata=[]`` in its scan, and so does each path here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from millstream.connectors.formats.parquet_pruning import kept_row_groups
from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)


def _environment(columnar: bool) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.exec.columnar.enabled", str(columnar).lower())
    return t_env


def _both(ddl: str, sql: str) -> list[Any]:
    """The sorted rows (or the error's first line) of ``sql`` on the columnar and row paths,
    after asserting they are the same; the columnar plan is asserted to be columnar."""
    results: list[Any] = []
    for columnar in (True, False):
        t_env = _environment(columnar)
        t_env.execute_sql(ddl)
        if columnar:
            assert "columnar=[arrow]" in t_env.explain_sql(sql)
        try:
            with t_env.execute_sql(sql).collect() as rows:
                results.append(sorted((tuple(r) for r in rows), key=repr))
        except Exception as error:  # the row path's error (the operators' names aside)
            results.append(str(error).splitlines()[0].split("ValueError: ", 1)[-1])
    assert results[0] == results[1]
    return list(results[0]) if isinstance(results[0], list) else [results[0]]


_CSV = "CREATE TABLE t (a BIGINT, s STRING, d DOUBLE, b BOOLEAN, ts TIMESTAMP(3), m DECIMAL(6, 2)) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv'{options})"


@pytest.mark.parametrize(
    ("lines", "options"),
    [
        # quotes, a delimiter and a line break in a quoted field, empty and blank fields
        (
            '1,"x, ""y""\nz",1.5,true,2024-01-01 00:00:00.5,1.25\n,,,,,\n-7,q, 2e3 ,TRUE , 2024-01-02 ,-3\n',
            "",
        ),
        # the null literal, and a UTF-8 byte order mark the row path skips too
        ("\ufeff3,n/a,n/a,false,n/a,n/a\n4,x,0.25,no,2024-01-01T10:00,7.5\n", ", 'csv.null-literal' = 'n/a'"),
        # another delimiter and quote character
        ("5;'a;b';1;true;2024-01-01;1\n", ", 'csv.field-delimiter' = ';', 'csv.quote-character' = ''''"),
        # what only the row path reads as Flink does: a trailing comma, numbers Arrow parses
        # otherwise (a sign, digits separated by _, a blank, hexadecimal: the error)
        ("1,a,1,true,2024-01-01,1,\n+2,b,1_0,false,2024-01-01,2\n", ""),
        ("1,a,1,true,2024-01-01,1\n0x10,b,1,true,2024-01-01,2\n", ""),
        ("1,a,1,true,2024-01-01,1\n2,b,1,true,2024-01-01,1.255\n", ""),
        ("1,a,1,true,2024-01-01,1\n2,b\n", ""),
    ],
)
def test_a_csv_scan_reads_the_row_paths_values_and_errors(tmp_path: Path, lines: str, options: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(lines, encoding="utf-8")
    rows = _both(
        _CSV.format(path=path, options=options), "SELECT a, s, d, b, ts, m FROM t WHERE a IS NULL OR a > -100"
    )
    assert rows


def test_a_csv_scan_converts_only_the_columns_read(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("1,x\n2,3\n")
    ddl = f"CREATE TABLE b (a INT, c INT) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    assert _both(ddl, "SELECT a FROM b WHERE a > 0") == [(1,), (2,)]


def _parquet(path: Path) -> None:
    """Ten row groups of 100 rows, ``k`` rising (0..999), ``s`` a text of its group."""
    ks = list(range(1000))
    table = pa.table(
        {
            "k": pa.array(ks, pa.int64()),
            "s": pa.array([f"g{k // 100}" if k % 7 else None for k in ks]),
            "v": pa.array([float(k) / 3 for k in ks]),
        }
    )
    pq.write_table(table, path, row_group_size=100)


def test_parquet_row_groups_a_filter_rules_out_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    _parquet(path)
    metadata = pq.ParquetFile(path).metadata
    assert kept_row_groups(metadata, [("k", ">=", 250), ("k", "<", 420)]) == [2, 3, 4]
    assert kept_row_groups(metadata, [("k", "=", 1000)]) == []
    assert kept_row_groups(metadata, [("s", "=", "g5")]) == [5]
    assert kept_row_groups(metadata, [("k", "<>", 5)]) == list(range(10))
    assert kept_row_groups(metadata, [("s", "IS NULL", None)]) == list(range(10))
    assert kept_row_groups(metadata, [("missing", "=", 1)]) == list(range(10))  # no statistics: kept


@pytest.mark.parametrize(
    "where",
    [
        "k >= 250 AND k < 420",
        "420 > k AND s = 'g3'",  # a literal on the left
        "k = 1000 OR k = 5",  # a disjunction decides rows only
        "s IS NULL AND k > 900",
        "v > 100 AND k < 500",  # DOUBLE statistics are not used (NaN orders otherwise)
        "MOD(k, 7) = 0 AND k BETWEEN 10 AND 30",
    ],
)
def test_a_parquet_scan_with_a_pushed_filter_gives_the_row_paths_rows(tmp_path: Path, where: str) -> None:
    path = tmp_path / "t.parquet"
    _parquet(path)
    ddl = f"CREATE TABLE t (k BIGINT, s STRING, v DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'parquet')"
    _both(ddl, f"SELECT k, s FROM t WHERE {where}")
