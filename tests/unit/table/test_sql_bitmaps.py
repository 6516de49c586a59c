"""Flink's BITMAP type and functions: sets of 32-bit unsigned integers. Every expectation is
what PyFlink 2.3.0 printed for the same statement (batch mode). Before, none of the BITMAP
functions existed ("No match found for function signature BITMAP_BUILD()")."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.functions.bitmaps import Bitmap, from_bytes, to_bytes


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _select(t_env: TableEnvironment, sql: str) -> list[tuple[str, str]]:
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [(summary_string(t), format_value(t, v)) for t, v in zip(types, row, strict=True)]


def test_bitmap_functions(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints each of these
    assert _select(
        t_env,
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[-1, 0])), "
        "BITMAP_CARDINALITY(BITMAP_BUILD(ARRAY[1, 2, 2, 3])), "
        "BITMAP_TO_ARRAY(BITMAP_BUILD(ARRAY[2147483647, -2147483648])), "
        "BITMAP_TO_ARRAY(BITMAP_XOR(BITMAP_BUILD(ARRAY[1, 2]), BITMAP_BUILD(ARRAY[2, 3]))), "
        "BITMAP_TO_ARRAY(BITMAP_ANDNOT(BITMAP_BUILD(ARRAY[1, 2]), BITMAP_BUILD(ARRAY[2, 3]))), "
        "BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[1])), BITMAP_BUILD(ARRAY[CAST(NULL AS INT)]), "
        "TYPEOF(BITMAP_BUILD(ARRAY[1])), BITMAP_BUILD(CAST(NULL AS ARRAY<INT>))",
    ) == [
        ("STRING NOT NULL", "{0,4294967295}"),
        ("BIGINT NOT NULL", "3"),
        ("ARRAY<INT> NOT NULL", "[2147483647, -2147483648]"),
        ("ARRAY<INT> NOT NULL", "[1, 3]"),
        ("ARRAY<INT> NOT NULL", "[1]"),
        ("BYTES NOT NULL", "x'3a3000000100000000000000100000000100'"),
        ("BITMAP NOT NULL", "{}"),
        ("STRING", "BITMAP NOT NULL"),
        ("BITMAP", "<NULL>"),
    ]


def test_bitmap_aggregates(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints {1,2} | 1 | {9} | 2 | 2 (STRING, BIGINT ...)
    values = "(VALUES (1), (2)) AS t(x)"
    assert _select(
        t_env,
        "SELECT BITMAP_TO_STRING(BITMAP_OR_AGG(BITMAP_BUILD(ARRAY[x]))), "
        "BITMAP_AND_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x, 9])), "
        "BITMAP_TO_STRING(BITMAP_AND_AGG(BITMAP_BUILD(ARRAY[x, 9]))), "
        "BITMAP_XOR_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x, 9])), "
        f"BITMAP_OR_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x])) FROM {values}",
    ) == [("STRING", "{1,2}"), ("BIGINT", "1"), ("STRING", "{9}"), ("BIGINT", "2"), ("BIGINT", "2")]


def test_roaring_bytes_read_back() -> None:
    """Array and bitmap containers, values past 2^16 and 2^31; bytes that end early fail (as
    Java's BufferUnderflowException)."""
    for bitmap in (Bitmap(), Bitmap([5, -1, 70000]), Bitmap(range(5000)), Bitmap([2**31, 2**16 + 3])):
        assert from_bytes(to_bytes(bitmap)) == bitmap
    assert to_bytes(Bitmap()).hex() == "3a30000000000000"
    with pytest.raises(ValueError, match="BufferUnderflowException"):
        from_bytes(b"\x00")
