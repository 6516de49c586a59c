# ruff: noqa: E501 - PyFlink's printed tables are pasted as they are
"""Printing like Flink: ``print_schema`` and the tableau form of results.

The expected texts are PyFlink 2.3.0's own output (``t_env.from_elements(ROWS, SCHEMA)``
then ``print_schema()`` and ``execute().print()`` in streaming mode, run on 2026-11-24),
pasted unchanged: widths by type, ``<NULL>``, ``TRUE``/``FALSE``, Java's doubles, decimal
scale, timestamp precision, ``x'..'`` bytes, arrays, maps, wide characters, truncation.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from millstream.common import Row
from millstream.table import DataTypes
from millstream.table.common.printing import format_java_double, format_java_float, print_schema, tableau

ROWS = [
    (
        1,
        "a",
        1.5,
        True,
        decimal.Decimal("1.50"),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123000),
        datetime.date(2024, 1, 2),
        10000000.0,
        [1, 2],
        {"k": 1},
        b"\x01\xff",
    ),
    (None, None, None, None, None, None, None, 0.001, None, None, None),
    (
        -7,
        "日本語テキスト",
        -0.0001,
        False,
        decimal.Decimal("-12.34"),
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        datetime.date(1999, 12, 31),
        1e20,
        [],
        {},
        b"",
    ),
    (
        3,
        "a very long string that is longer than thirty characters",
        2.0,
        True,
        decimal.Decimal("0"),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 1),
        datetime.date(2024, 1, 2),
        123456.789,
        [None],
        {"x": 2},
        b"ab",
    ),
]
NAMES = ["id", "name", "score", "flag", "amount", "ts", "day", "big", "arr", "m", "b"]
TYPES = [
    DataTypes.BIGINT(),
    DataTypes.STRING(),
    DataTypes.DOUBLE(),
    DataTypes.BOOLEAN(),
    DataTypes.DECIMAL(10, 2),
    DataTypes.TIMESTAMP(3),
    DataTypes.DATE(),
    DataTypes.DOUBLE(),
    DataTypes.ARRAY(DataTypes.INT()),
    DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()),
    DataTypes.BYTES(),
]

PYFLINK_SCHEMA = """\
(
  `id` BIGINT,
  `name` STRING,
  `score` DOUBLE,
  `flag` BOOLEAN,
  `amount` DECIMAL(10, 2),
  `ts` TIMESTAMP(3),
  `day` DATE,
  `big` DOUBLE,
  `arr` ARRAY<INT>,
  `m` MAP<STRING, INT>,
  `b` BYTES
)"""

PYFLINK_TABLE = """\
+----+----------------------+--------------------------------+--------------------------------+--------+--------------+-------------------------+------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
| op |                   id |                           name |                          score |   flag |       amount |                      ts |        day |                            big |                            arr |                              m |                              b |
+----+----------------------+--------------------------------+--------------------------------+--------+--------------+-------------------------+------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
| +I |                    1 |                              a |                            1.5 |   TRUE |         1.50 | 2024-01-02 03:04:05.123 | 2024-01-02 |                          1.0E7 |                         [1, 2] |                          {k=1} |                        x'01ff' |
| +I |               <NULL> |                         <NULL> |                         <NULL> | <NULL> |       <NULL> |                  <NULL> |     <NULL> |                          0.001 |                         <NULL> |                         <NULL> |                         <NULL> |
| +I |                   -7 |                 日本語テキスト |                        -1.0E-4 |  FALSE |       -12.34 | 2024-01-02 03:04:05.000 | 1999-12-31 |                         1.0E20 |                             [] |                             {} |                            x'' |
| +I |                    3 | a very long string that is ... |                            2.0 |   TRUE |         0.00 | 2024-01-02 03:04:05.000 | 2024-01-02 |                     123456.789 |                         [NULL] |                          {x=2} |                        x'6162' |
+----+----------------------+--------------------------------+--------------------------------+--------+--------------+-------------------------+------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
4 rows in set"""


def test_the_schema_prints_as_pyflink_prints_it():
    assert print_schema(NAMES, TYPES) == PYFLINK_SCHEMA


def test_a_streaming_result_prints_as_pyflink_prints_it():
    lines = tableau(NAMES, TYPES, [("+I", row) for row in ROWS], with_kinds=True)
    assert "\n".join(lines) == PYFLINK_TABLE


def test_a_batch_result_has_no_op_column_and_no_rows_print_empty_set():
    batch = list(tableau(NAMES, TYPES, ROWS))
    assert batch[1] == "|" + PYFLINK_TABLE.split("\n")[1].split("|", 2)[2]
    assert list(tableau(NAMES, TYPES, [], with_kinds=True)) == ["Empty set"]
    assert list(tableau(["k"], [DataTypes.INT()], [(1,)]))[-1] == "1 row in set"


def test_a_changelog_prints_its_row_kinds_and_rows_print_as_tuples():
    # PyFlink 2.3.0: group_by(k).select(k, v.count) over (1, a), (2, b), (1, c)
    lines = tableau(
        ["k", "n"],
        [DataTypes.BIGINT(), DataTypes.BIGINT()],
        [("+I", (1, 1)), ("+I", (2, 1)), ("-U", (1, 1)), ("+U", (1, 2))],
        with_kinds=True,
    )
    assert (
        "\n".join(lines)
        == """\
+----+----------------------+----------------------+
| op |                    k |                    n |
+----+----------------------+----------------------+
| +I |                    1 |                    1 |
| +I |                    2 |                    1 |
| -U |                    1 |                    1 |
| +U |                    1 |                    2 |
+----+----------------------+----------------------+
4 rows in set"""
    )
    row = DataTypes.ROW([DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("b", DataTypes.STRING())])
    cells = list(
        tableau(
            ["t", "tm", "r", "ts0"],
            [DataTypes.TINYINT(), DataTypes.TIME(), row, DataTypes.TIMESTAMP(0)],
            [(1, datetime.time(1, 2, 3), Row(1, "x"), datetime.datetime(2024, 1, 2, 3, 4, 5, 120000))],
        )
    )
    # PyFlink 2.3.0 printed: |      1 | 01:02:03 |                         (1, x) | 2024-01-02 03:04:05 |
    assert cells[3] == "|      1 | 01:02:03 |                         (1, x) | 2024-01-02 03:04:05 |"


@pytest.mark.parametrize(
    ("value", "java"),
    [
        (1.5, "1.5"),
        (-0.0, "-0.0"),
        (float("nan"), "NaN"),
        (9999999.0, "9999999.0"),
        (0.00099, "9.9E-4"),
        (1.0, "1.0"),
        (12345678.9, "1.23456789E7"),
        (1e7, "1.0E7"),
        (-0.0001, "-1.0E-4"),
        (1e20, "1.0E20"),
        (0.001, "0.001"),
        (123456.789, "123456.789"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_doubles_print_as_java_writes_them(value, java):  # PyFlink 2.3.0's output, each
    assert format_java_double(value) == java


def test_floats_print_their_shortest_32_bit_digits():
    assert format_java_float(1.5) == "1.5" and format_java_float(0.1) == "0.1"
    assert format_java_float(1e8) == "1.0E8" and format_java_float(3.4028235e38) == "3.4028235E38"
