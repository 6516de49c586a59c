# ruff: noqa: E501 - the queries and PyFlink's rows read best on one line
"""Flink's built-in scalar functions added with ``builtin_scalars.py`` and the functions of
``pyflink.table.expressions`` added with ``expression_functions.py``: every expected value
below is what PyFlink 2.3 returned for the same query over the same row (batch mode,
parallelism 1), RAND(seed) included (Java's ``java.util.Random`` sequence)."""

from __future__ import annotations

import datetime
import decimal
import math

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import (
    array,
    atan2,
    call_sql,
    col,
    e,
    json_string,
    log,
    map_,
    negative,
    null_of,
    pi,
    rand,
    rand_integer,
    range_,
    row,
    to_date,
    with_columns,
    without_columns,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view(
        "v", t_env.from_elements([(1, "hello", 2.5, "2024-03-05")], ["id", "s", "d", "ds"])
    )
    return t_env


def _row(t_env: TableEnvironment, sql: str) -> tuple[object, ...]:
    return _first(t_env.execute_sql(sql))


def _first(result: object) -> tuple[object, ...]:
    with result.collect() as rows:  # type: ignore[attr-defined]
        (first, *_) = list(rows)  # every row read: the job ends before the iterator closes
        return tuple(first)


def test_math(t_env: TableEnvironment) -> None:
    values = _row(
        t_env,
        "SELECT SIN(d), COS(d), TAN(d), ATAN2(1.0e0, d), LOG(2, 8), LOG(d), LOG2(8), PI(), DEGREES(1), RADIANS(180) FROM v",
    )
    assert values == (
        math.sin(2.5),
        math.cos(2.5),
        math.tan(2.5),
        math.atan2(1, 2.5),
        3.0,
        math.log(2.5),
        3.0,
        math.pi,
        math.degrees(1),
        math.pi,
    )
    assert _row(t_env, "SELECT TRUNCATE(d * 3.14159, 2), TRUNCATE(-7.89, 1), TRUNCATE(1234, -2), HEX(255), HEX('ab'), BIN(5) FROM v") == (
        7.85, decimal.Decimal("-7.8"), 1200, "FF", "6162", "101"
    )  # fmt: skip


def test_strings_and_hashes(t_env: TableEnvironment) -> None:
    assert _row(t_env, "SELECT ASCII(s), LEFT(s, 2), RIGHT(s, 3), RIGHT(s, -1), LOCATE('l', s), LOCATE('l', s, 4), LOCATE('z', s), INSTR(s, 'lo') FROM v") == (
        104, "he", "llo", "", 3, 4, 0, 4
    )  # fmt: skip
    hashes = _row(t_env, "SELECT TO_BASE64(s), FROM_BASE64('aGVsbG8='), MD5(s), SHA1(s), SHA256(s) FROM v")
    assert hashes[:2] == ("aGVsbG8=", "hello")
    assert [h[:27] for h in hashes[2:]] == [
        "5d41402abc4b2a76b9719d91101",
        "aaf4c61ddcc5e8a2dabede0f3b4",
        "2cf24dba5fb0a30e26e83b2ac5b",
    ]
    assert _row(t_env, "SELECT REGEXP(s, 'l+'), IS_DIGIT('123'), IS_DIGIT(''), IS_ALPHA(s), IS_DECIMAL('1.5'), IS_DECIMAL('x'), IF(id > 0, 'p', 'n') FROM v") == (
        True, True, False, True, True, False, "p"
    )  # fmt: skip


def test_collections_random_and_dates(t_env: TableEnvironment) -> None:
    collections = _row(
        t_env,
        "SELECT CARDINALITY(ARRAY[1, 2, 3]), ELEMENT(ARRAY[7]), ARRAY[1, 2][2], MAP['a', 1]['a'], ROW(1, 'x') FROM v",
    )
    assert collections[:4] == (3, 7, 2, 1) and tuple(collections[4]) == (1, "x")
    assert _row(t_env, "SELECT RAND(42), RAND_INTEGER(42, 100), TO_DATE('2024-03-05'), TO_DATE('05/03/2024', 'dd/MM/yyyy'), DAYOFWEEK(TO_DATE(ds)), DAYOFYEAR(TO_DATE(ds)), WEEK(TO_DATE(ds)), QUARTER(TO_DATE(ds)) FROM v") == (
        0.7275636800328681, 30, datetime.date(2024, 3, 5), datetime.date(2024, 3, 5), 3, 65, 10, 1
    )  # fmt: skip
    now = _row(t_env, "SELECT CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, NOW(), UUID() FROM v")
    assert all(v is not None for v in now) and len(str(now[4])) == 36


def test_expression_functions_of_the_table_api(t_env: TableEnvironment) -> None:
    table = t_env.from_path("v")
    chosen = table.select(
        pi(),
        e(),
        rand(7),
        rand_integer(10, 7),
        atan2(col("d"), 1),
        log(col("d")),
        log(8, 2),
        negative(col("id")),
    )
    assert _first(chosen.execute()) == (
        3.141592653589793,
        2.718281828459045,
        0.7306990420600421,
        6,
        1.1902899496825317,
        0.9162907318741551,
        3.0,
        -1,
    )
    chosen = table.select(
        array(col("id"), 2),
        row(col("id"), col("s")),
        map_("k", col("id")),
        null_of(DataTypes.INT()),
        to_date(col("ds")),
        json_string(col("s")),
    )
    built = _first(chosen.execute())
    assert (built[0], tuple(built[1]), built[2], built[3], built[4], built[5]) == (
        [1, 2],
        (1, "hello"),
        {"k": 1},
        None,
        datetime.date(2024, 3, 5),
        '"hello"',
    )  # type: ignore[arg-type]
    assert table.select(with_columns(range_(2, 3))).get_schema().get_field_names() == ["s", "d"]
    assert table.select(without_columns(col("s"), 4)).get_schema().get_field_names() == ["id", "d"]
    assert _first(table.select(call_sql("UPPER(s)")).execute())[0] == "HELLO"
