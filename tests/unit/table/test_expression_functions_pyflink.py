# ruff: noqa: E501 - PyFlink's printed tables are pasted as they are
"""The functions of ``pyflink.table.expressions`` that millstream lacked (issue 48, point 5):
``convert_tz``, ``from_unixtime``, ``unix_timestamp``, ``timestamp_diff``,
``temporal_overlaps``, ``json``, ``json_object``, ``json_array``, ``json_object_agg``,
``json_array_agg``, ``source_watermark``, ``descriptor`` (``current_watermark``:
``test_current_watermark.py``), with ``JsonOnNull`` / ``TimePointUnit`` and the
``to_date`` / ``to_time`` / ``to_timestamp`` properties their documented examples use.

Each program ran on PyFlink 2.3.0 (``pyflink`` in the imports, ``parallelism.default`` 1,
``table.local-time-zone`` UTC); the expected text is what it printed. PyFlink 2.3.0's own
``json_object`` / ``json_array`` / ``descriptor`` wrappers fail before any query runs (py4j
does not call Java's varargs ``Expressions.jsonObject(JsonOnNull, Object...)``: "Py4JException:
Method jsonObject([class org.apache.flink.table.api.JsonOnNull]) does not exist"), so their
expected values are what the Java Table API call gives, made through PyFlink's gateway with an
``Object[]`` array in the same program.
"""

from __future__ import annotations

import importlib

import pytest

from millstream.table import DataTypes, EnvironmentSettings, Schema, TableEnvironment
from millstream.table.expression import JsonOnNull, TimePointUnit
from millstream.table.expressions import (
    array,
    col,
    convert_tz,
    descriptor,
    from_unixtime,
    json,
    json_array,
    json_array_agg,
    json_object,
    json_object_agg,
    json_string,
    lit,
    map_,
    null_of,
    row,
    source_watermark,
    temporal_overlaps,
    timestamp_diff,
    unix_timestamp,
)

# pyflink.table.expressions.__all__ of PyFlink 2.3.0
PYFLINK_EXPRESSIONS_ALL = [
    "if_then_else", "lit", "col", "range_", "and_", "or_", "not_", "UNBOUNDED_ROW", "UNBOUNDED_RANGE",
    "CURRENT_ROW", "CURRENT_RANGE", "current_database", "current_date", "current_time",
    "current_timestamp", "current_watermark", "local_time", "local_timestamp", "temporal_overlaps",
    "date_format", "timestamp_diff", "array", "row", "map_", "row_interval", "pi", "e", "rand",
    "rand_integer", "atan2", "negative", "concat", "concat_ws", "uuid", "null_of", "log",
    "with_columns", "without_columns", "json", "json_string", "json_object", "json_object_agg",
    "json_array", "json_array_agg", "call", "call_sql", "source_watermark", "to_timestamp_ltz",
    "from_unixtime", "to_date", "to_timestamp", "convert_tz", "unix_timestamp", "descriptor",
]  # fmt: skip
# pyflink.table.expression.__all__ of PyFlink 2.3.0, and JsonOnNull (there, not in __all__)
PYFLINK_EXPRESSION_ALL = [
    "Expression", "TimeIntervalUnit", "TimePointUnit", "JsonType", "JsonExistsOnError",
    "JsonValueOnEmptyOrError", "JsonQueryWrapper", "JsonQueryOnEmptyOrError", "JsonOnNull",
]  # fmt: skip


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("table.local-time-zone", "UTC")
    return t_env


def _table(t_env: TableEnvironment):
    return t_env.from_elements(
        [(1, "a", "1970-01-01 00:00:00", 44), (2, None, "2024-03-10 12:30:00", 1700000000)],
        ["id", "s", "d", "n"],
    )


def _show(table) -> None:
    table.print_schema()
    table.execute().print()


def test_every_name_of_pyflinks_expression_modules_is_there():
    expressions = importlib.import_module("millstream.table.expressions")
    expression = importlib.import_module("millstream.table.expression")
    assert [n for n in PYFLINK_EXPRESSIONS_ALL if not hasattr(expressions, n)] == []
    assert [n for n in PYFLINK_EXPRESSION_ALL if not hasattr(expression, n)] == []
    assert expressions.JsonOnNull is JsonOnNull  # imported there by PyFlink's module too
    # PyFlink 2.3.0's members, in its order
    assert [m.name for m in JsonOnNull] == ["NULL", "ABSENT"]
    assert [m.name for m in TimePointUnit] == [
        "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "QUARTER", "WEEK", "MILLISECOND", "MICROSECOND",
    ]  # fmt: skip
    assert [m.name for m in expression.JsonQueryWrapper] == [
        "WITHOUT_ARRAY",
        "CONDITIONAL_ARRAY",
        "UNCONDITIONAL_ARRAY",
    ]


def time_program() -> None:
    t = _table(_t_env())
    _show(
        t.select(
            convert_tz(col("d"), "UTC", "America/Los_Angeles"),
            convert_tz("1970-01-01 00:00:00", "UTC", "Asia/Tokyo"),
        )
    )
    _show(t.select(from_unixtime(col("n")), from_unixtime(col("n"), "yyyy-MM-dd HH"), from_unixtime(44)))
    _show(
        t.select(
            unix_timestamp(col("d")),
            unix_timestamp(col("d"), "yyyy-MM-dd"),
            unix_timestamp("1970-01-01 00:01:00"),
            unix_timestamp() > 0,
        )
    )
    _show(
        t.select(
            timestamp_diff(TimePointUnit.DAY, lit("2016-06-15").to_date, lit("2016-06-18").to_date),
            timestamp_diff(
                TimePointUnit.HOUR, col("d").to_timestamp, lit("2024-03-11 00:00:00").to_timestamp
            ),
            timestamp_diff(TimePointUnit.MONTH, lit("2016-06-15").to_date, lit("2017-01-14").to_date),
        )
    )
    _show(
        t.select(
            unix_timestamp("1970-01-02", "yyyy-MM-dd"),
            unix_timestamp("garbage"),
            convert_tz(col("s"), col("s"), "UTC"),
            convert_tz("bad", "UTC", "PST"),
        )
    )


# PyFlink 2.3.0, the same program
TIME_OUTPUT = """\
(
  `_c0` STRING,
  `_c1` STRING
)
+--------------------------------+--------------------------------+
|                            _c0 |                            _c1 |
+--------------------------------+--------------------------------+
|            1969-12-31 16:00:00 |            1970-01-01 09:00:00 |
|            2024-03-10 05:30:00 |            1970-01-01 09:00:00 |
+--------------------------------+--------------------------------+
2 rows in set
(
  `_c0` STRING,
  `_c1` STRING,
  `_c2` STRING NOT NULL
)
+--------------------------------+--------------------------------+--------------------------------+
|                            _c0 |                            _c1 |                            _c2 |
+--------------------------------+--------------------------------+--------------------------------+
|            1970-01-01 00:00:44 |                  1970-01-01 00 |            1970-01-01 00:00:44 |
|            2023-11-14 22:13:20 |                  2023-11-14 22 |            1970-01-01 00:00:44 |
+--------------------------------+--------------------------------+--------------------------------+
2 rows in set
(
  `_c0` BIGINT,
  `_c1` BIGINT,
  `_c2` BIGINT,
  `_c3` BOOLEAN
)
+----------------------+----------------------+----------------------+--------+
|                  _c0 |                  _c1 |                  _c2 |    _c3 |
+----------------------+----------------------+----------------------+--------+
|                    0 |                    0 |                   60 |   TRUE |
|           1710073800 |           1710028800 |                   60 |   TRUE |
+----------------------+----------------------+----------------------+--------+
2 rows in set
(
  `_c0` INT NOT NULL,
  `_c1` INT,
  `_c2` INT NOT NULL
)
+-------------+-------------+-------------+
|         _c0 |         _c1 |         _c2 |
+-------------+-------------+-------------+
|           3 |      475032 |           6 |
|           3 |          11 |           6 |
+-------------+-------------+-------------+
2 rows in set
(
  `_c0` BIGINT,
  `_c1` BIGINT,
  `_c2` STRING,
  `_c3` STRING
)
+----------------------+----------------------+--------------------------------+--------------------------------+
|                  _c0 |                  _c1 |                            _c2 |                            _c3 |
+----------------------+----------------------+--------------------------------+--------------------------------+
|                86400 | -9223372036854775808 |                         <NULL> |                         <NULL> |
|                86400 | -9223372036854775808 |                         <NULL> |                         <NULL> |
+----------------------+----------------------+--------------------------------+--------------------------------+
2 rows in set
"""


def test_time_functions_print_what_pyflink_prints(capsys):
    time_program()
    assert capsys.readouterr().out == TIME_OUTPUT


def temporal_overlaps_program() -> None:
    t = _table(_t_env())

    def ts(text):
        return lit(text).to_timestamp

    def date(text):
        return lit(text).to_date

    _show(
        t.select(
            temporal_overlaps(lit("2:55:00").to_time, lit(1).hours, lit("3:30:00").to_time, lit(2).hours)
        )
    )
    _show(
        t.select(temporal_overlaps(col("d").to_timestamp, lit(1).days, col("d").to_timestamp, lit(1).hours))
    )
    _show(
        t.select(
            temporal_overlaps(date("2024-01-01"), date("2024-01-03"), date("2024-01-03"), date("2024-01-05")),
            temporal_overlaps(date("2024-01-01"), lit(2).days, date("2024-01-04"), lit(3).days),
            temporal_overlaps(date("2024-01-05"), date("2024-01-01"), date("2024-01-03"), date("2024-01-05")),
        )
    )
    _show(
        t.select(
            temporal_overlaps(
                ts("2024-01-01 00:00:00"), lit(1).hours, ts("2024-01-01 00:30:00"), lit(10).minutes
            ),
            temporal_overlaps(
                ts("2024-01-01 00:00:00"),
                ts("2024-01-01 01:00:00"),
                ts("2024-01-01 01:00:00"),
                lit(10).minutes,
            ),
            temporal_overlaps(
                ts("2024-01-01 00:00:00"), lit(1).hours, ts("2024-01-01 01:00:01"), lit(10).minutes
            ),
        )
    )
    _show(t.select(temporal_overlaps(date("2024-01-01"), lit(1).months, date("2024-01-20"), lit(1).days)))


# PyFlink 2.3.0, the same program
TEMPORAL_OVERLAPS_OUTPUT = """\
(
  `_c0` BOOLEAN NOT NULL
)
+--------+
|    _c0 |
+--------+
|   TRUE |
|   TRUE |
+--------+
2 rows in set
(
  `_c0` BOOLEAN
)
+--------+
|    _c0 |
+--------+
|   TRUE |
|   TRUE |
+--------+
2 rows in set
(
  `_c0` BOOLEAN NOT NULL,
  `_c1` BOOLEAN NOT NULL,
  `_c2` BOOLEAN NOT NULL
)
+--------+--------+--------+
|    _c0 |    _c1 |    _c2 |
+--------+--------+--------+
|   TRUE |  FALSE |   TRUE |
|   TRUE |  FALSE |   TRUE |
+--------+--------+--------+
2 rows in set
(
  `_c0` BOOLEAN NOT NULL,
  `_c1` BOOLEAN NOT NULL,
  `_c2` BOOLEAN NOT NULL
)
+--------+--------+--------+
|    _c0 |    _c1 |    _c2 |
+--------+--------+--------+
|   TRUE |   TRUE |  FALSE |
|   TRUE |   TRUE |  FALSE |
+--------+--------+--------+
2 rows in set
(
  `_c0` BOOLEAN NOT NULL
)
+--------+
|    _c0 |
+--------+
|   TRUE |
|   TRUE |
+--------+
2 rows in set
"""


def test_temporal_overlaps_prints_what_pyflink_prints(capsys):
    temporal_overlaps_program()
    assert capsys.readouterr().out == TEMPORAL_OVERLAPS_OUTPUT


# each call and the last line of the ValidationException PyFlink 2.3.0 raises in select
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            lambda: (col("id"), lit(1).days, col("id"), lit(1).hours),
            "TEMPORAL_OVERLAPS requires 1st argument 'leftTimePoint' to be a DATETIME type, but is BIGINT",
        ),
        (
            lambda: (lit("2024-01-01").to_date, lit(1), lit("2024-01-01").to_date, lit(1).days),
            "TEMPORAL_OVERLAPS requires 2nd argument 'leftTemporal' to be DATETIME or INTERVAL type, but is INT NOT NULL",
        ),
        (
            lambda: (
                lit("2024-01-01").to_date,
                lit(1).days,
                lit("2024-01-01 00:00:00").to_timestamp,
                lit(1).hours,
            ),
            "TEMPORAL_OVERLAPS requires 'leftTimePoint' and 'rightTimePoint' arguments to be of the same type, but is DATE NOT NULL != TIMESTAMP(3) NOT NULL",
        ),
        (
            lambda: (
                lit("2024-01-01").to_date,
                null_of(DataTypes.DATE()),
                lit("2024-01-05").to_date,
                lit("2024-01-20").to_date,
            ),
            "TEMPORAL_OVERLAPS requires 'leftTemporal' and 'leftTimePoint' arguments to be of the same type if 'leftTemporal' is a DATETIME, but is DATE != DATE NOT NULL",
        ),
    ],
)
def test_temporal_overlaps_refuses_what_pyflink_refuses(arguments, message):
    t = _table(_t_env())
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        t.select(temporal_overlaps(*arguments()))


def test_time_functions_refuse_the_argument_types_pyflink_refuses():
    t = _table(_t_env())
    # PyFlink 2.3.0 (ValidationException in select): "Unsupported argument type. Expected type of
    # family 'DATETIME' but actual type was 'BIGINT'." / "... 'CHARACTER_STRING' but actual type was
    # 'BIGINT'." / "Unsupported argument symbol variant. Expected one of the following variants [HOUR,
    # YEAR, QUARTER, SECOND, MONTH, DAY, WEEK, MINUTE] but actual symbol was MILLISECOND."
    with pytest.raises(ValueError, match="Expected type of family 'DATETIME' but actual type was 'BIGINT'"):
        t.select(timestamp_diff(TimePointUnit.DAY, col("id"), col("id")))
    with pytest.raises(
        ValueError, match="Expected type of family 'CHARACTER_STRING' but actual type was 'BIGINT'"
    ):
        t.select(convert_tz(col("id"), "UTC", "PST"))
    with pytest.raises(
        ValueError,
        match=r"variants \[HOUR, YEAR, QUARTER, SECOND, MONTH, DAY, WEEK, MINUTE\] but actual symbol was MILLISECOND",
    ):
        timestamp_diff(TimePointUnit.MILLISECOND, lit("2024-01-01").to_date, lit("2024-01-02").to_date)


def json_program() -> None:
    t = _table(_t_env())
    _show(
        t.select(
            json_object(),
            json_object(JsonOnNull.NULL, "K1", "V1", "K2", col("id")),
            json_object(JsonOnNull.NULL, "s", col("s")),
            json_object(JsonOnNull.ABSENT, "s", col("s")),
            json_object(JsonOnNull.NULL, "K1", json('{"K2":"V"}')),
            json_object(JsonOnNull.NULL, "K1", json_object(JsonOnNull.NULL, "K2", "V")),
            json_object(JsonOnNull.NULL, "K1", json_array(JsonOnNull.NULL, 1, col("s"))),
        )
    )
    _show(
        t.select(
            json_array(),
            json_array(JsonOnNull.NULL, 1, "2", col("s")),
            json_array(JsonOnNull.ABSENT, col("s"), col("id")),
            json_array(JsonOnNull.NULL, json_array(JsonOnNull.NULL, 1)),
            json_array(JsonOnNull.NULL, json('{"nested_json": {"value": 42}}')),
            json_array(JsonOnNull.NULL, json("")),
        )
    )
    _show(
        t.select(
            json_string(json_object(JsonOnNull.NULL, "a", 1)),
            json_object(JsonOnNull.NULL, "a", json_string(col("s"))),
        )
    )
    _show(
        t.select(
            json_array_agg(JsonOnNull.NULL, col("s")),
            json_array_agg(JsonOnNull.ABSENT, col("s")),
            json_object_agg(JsonOnNull.NULL, col("d"), col("s")),
            json_object_agg(JsonOnNull.ABSENT, col("d"), col("s")),
        )
    )
    _show(
        t.group_by(col("id")).select(
            col("id"),
            json_array_agg(JsonOnNull.NULL, col("s")),
            json_object_agg(JsonOnNull.ABSENT, "k", col("id")),
        )
    )


# PyFlink 2.3.0, the same program (json_object / json_array through the gateway: see the top)
JSON_OUTPUT = """\
(
  `_c0` STRING NOT NULL,
  `_c1` STRING NOT NULL,
  `_c2` STRING NOT NULL,
  `_c3` STRING NOT NULL,
  `_c4` STRING NOT NULL,
  `_c5` STRING NOT NULL,
  `_c6` STRING NOT NULL
)
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                            _c0 |                            _c1 |                            _c2 |                            _c3 |                            _c4 |                            _c5 |                            _c6 |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                             {} |             {"K1":"V1","K2":1} |                      {"s":"a"} |                      {"s":"a"} |              {"K1":{"K2":"V"}} |              {"K1":{"K2":"V"}} |                 {"K1":[1,"a"]} |
|                             {} |             {"K1":"V1","K2":2} |                     {"s":null} |                             {} |              {"K1":{"K2":"V"}} |              {"K1":{"K2":"V"}} |                {"K1":[1,null]} |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
2 rows in set
(
  `_c0` STRING NOT NULL,
  `_c1` STRING NOT NULL,
  `_c2` STRING NOT NULL,
  `_c3` STRING NOT NULL,
  `_c4` STRING NOT NULL,
  `_c5` STRING NOT NULL
)
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                            _c0 |                            _c1 |                            _c2 |                            _c3 |                            _c4 |                            _c5 |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                             [] |                    [1,"2","a"] |                        ["a",1] |                          [[1]] | [{"nested_json":{"value":42}}] |                         [null] |
|                             [] |                   [1,"2",null] |                            [2] |                          [[1]] | [{"nested_json":{"value":42}}] |                         [null] |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
2 rows in set
(
  `_c0` STRING NOT NULL,
  `_c1` STRING NOT NULL
)
+--------------------------------+--------------------------------+
|                            _c0 |                            _c1 |
+--------------------------------+--------------------------------+
|                        {"a":1} |                  {"a":"\\"a\\""} |
|                        {"a":1} |                     {"a":null} |
+--------------------------------+--------------------------------+
2 rows in set
(
  `EXPR$0` STRING NOT NULL,
  `EXPR$1` STRING NOT NULL,
  `EXPR$2` STRING NOT NULL,
  `EXPR$3` STRING NOT NULL
)
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                         EXPR$0 |                         EXPR$1 |                         EXPR$2 |                         EXPR$3 |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
|                     ["a",null] |                          ["a"] | {"1970-01-01 00:00:00":"a",... |    {"1970-01-01 00:00:00":"a"} |
+--------------------------------+--------------------------------+--------------------------------+--------------------------------+
1 row in set
(
  `id` BIGINT,
  `EXPR$0` STRING NOT NULL,
  `EXPR$1` STRING NOT NULL
)
+----------------------+--------------------------------+--------------------------------+
|                   id |                         EXPR$0 |                         EXPR$1 |
+----------------------+--------------------------------+--------------------------------+
|                    1 |                          ["a"] |                        {"k":1} |
|                    2 |                         [null] |                        {"k":2} |
+----------------------+--------------------------------+--------------------------------+
2 rows in set
"""


def test_json_functions_print_what_pyflink_prints(capsys):
    json_program()
    assert capsys.readouterr().out == JSON_OUTPUT


def _values(table) -> list[list[object]]:
    with table.execute().collect() as rows:
        return [list(r) for r in rows]


def test_json_values_of_every_kind_and_nested_aggregates():
    t = _table(_t_env())
    ts = lit("2024-01-01 10:00:00").to_timestamp
    decimal = lit(1.5).cast(DataTypes.DECIMAL(5, 2))
    values = json_object(
        JsonOnNull.NULL,
        "b",
        True,
        "d",
        1.5,
        "arr",
        array(1, 2),
        "r",
        row(1, "x"),
        "m",
        map_("a", 1),
        "ts",
        ts,
        "dec",
        decimal,
    )
    items = json_array(JsonOnNull.NULL, True, 1.5, array(1, 2), row(1, "x"), map_("a", 1), col("n"), col("s"))
    # PyFlink 2.3.0 (collect): each row ['{"arr":[1,2],"b":true,"d":1.5,"dec":1.50,"m":{"a":1},
    # "r":{"f0":1,"f1":"x"},"ts":"2024-01-01T10:00:00"}'], and ['[true,1.5,[1,2],{"f0":1,"f1":"x"},
    # {"a":1},44,"a"]'], ['[true,1.5,[1,2],{"f0":1,"f1":"x"},{"a":1},1700000000,null]']
    obj = '{"arr":[1,2],"b":true,"d":1.5,"dec":1.50,"m":{"a":1},"r":{"f0":1,"f1":"x"},"ts":"2024-01-01T10:00:00"}'
    assert _values(t.select(values)) == [[obj], [obj]]
    assert _values(t.select(items)) == [
        ['[true,1.5,[1,2],{"f0":1,"f1":"x"},{"a":1},44,"a"]'],
        ['[true,1.5,[1,2],{"f0":1,"f1":"x"},{"a":1},1700000000,null]'],
    ]
    # PyFlink 2.3.0: [{"k":1},{"k":2}] and {"1970-01-01 00:00:00":[1],"2024-03-10 12:30:00":[2]}
    nested = t.select(
        json_array_agg(JsonOnNull.NULL, json_object(JsonOnNull.NULL, "k", col("id"))),
        json_object_agg(JsonOnNull.NULL, col("d"), json_array(JsonOnNull.NULL, col("id"))),
    )
    assert _values(nested) == [['[{"k":1},{"k":2}]', '{"1970-01-01 00:00:00":[1],"2024-03-10 12:30:00":[2]}']]


def test_json_refuses_what_pyflink_refuses():
    t = _table(_t_env())
    # PyFlink 2.3.0: ValidationException "The JSON() function is currently only supported inside
    # JSON_ARRAY() or as the VALUE param of JSON_OBJECT(). Example: ..." (in select, and in a
    # json_array_agg when the job runs)
    only_inside = r"^The JSON\(\) function is currently only supported inside JSON_ARRAY\(\)"
    with pytest.raises(ValueError, match=only_inside):
        t.select(json('{"a":1}'))
    with pytest.raises(ValueError, match=only_inside):
        t.select(json_array_agg(JsonOnNull.NULL, json(col("s"))))
    # PyFlink 2.3.0: keys are [<CHARACTER_STRING> & <LITERAL NOT NULL>]: "Literal expected." for a
    # column; a DATE value "Unsupported argument type"; an odd argument count "Invalid arguments for
    # call: JSON_OBJECT(NULL, 'a')"
    with pytest.raises(ValueError, match=r"key 1 must be a string literal: Literal expected\."):
        json_object(JsonOnNull.NULL, col("s"), 1)
    with pytest.raises(ValueError, match="key 1 must be a string literal: got 1"):
        json_object(JsonOnNull.NULL, 1, "a")
    with pytest.raises(ValueError, match="pairs of keys and values"):
        json_object(JsonOnNull.NULL, "a")
    with pytest.raises(ValueError, match="DATE"):
        t.select(json_object(JsonOnNull.NULL, "k", lit("2024-01-01").to_date))


def test_descriptor_and_source_watermark_are_declarations():
    t = _table(_t_env())
    # PyFlink 2.3.0: select(descriptor('id')) types DESCRIPTOR NOT NULL and its job fails with
    # "Cannot create literal for type 'COLUMN_LIST'"; select(source_watermark()) fails its job;
    # str() of them: "(`a`, `b`)" and "SOURCE_WATERMARK()"
    with pytest.raises(ValueError, match=r"^DESCRIPTOR\(`id`\) names columns .*'COLUMN_LIST'"):
        t.select(descriptor("id"))
    with pytest.raises(ValueError, match=r"^source_watermark\(\) declares that a schema's watermark"):
        t.select(source_watermark())
    assert str(descriptor("a", "b")) == "(`a`, `b`)"
    assert str(source_watermark()) == "SOURCE_WATERMARK()"


def test_source_watermark_in_a_schema_prints_as_pyflinks():
    schema = (
        Schema.new_builder()
        .column("ts", DataTypes.TIMESTAMP_LTZ(3))
        .column("v", DataTypes.BIGINT())
        .watermark("ts", source_watermark())
        .build()
    )
    # PyFlink 2.3.0 prints this (the text "SOURCE_WATERMARK()" prints as "[SOURCE_WATERMARK()]")
    assert (
        str(schema)
        == "(\n  `ts` TIMESTAMP_LTZ(3),\n  `v` BIGINT,\n  WATERMARK FOR `ts` AS SOURCE_WATERMARK()\n)"
    )


def test_timestamp_diff_units_give_pyflinks_values():
    t = _table(_t_env())
    diffs = t.select(
        timestamp_diff(TimePointUnit.QUARTER, lit("2024-01-01").to_date, lit("2024-12-01").to_date),
        timestamp_diff(TimePointUnit.WEEK, lit("2024-01-01").to_date, lit("2024-02-01").to_date),
        timestamp_diff(TimePointUnit.YEAR, lit("2020-02-29").to_date, lit("2024-02-28").to_date),
        timestamp_diff(
            TimePointUnit.SECOND,
            lit("2024-01-01 00:00:00").to_timestamp,
            lit("2023-12-31 23:59:58.5").to_timestamp,
        ),
        timestamp_diff(TimePointUnit.DAY, lit("2024-01-01").to_date, lit("2024-01-03 12:00:00").to_timestamp),
    )
    # PyFlink 2.3.0 (collect, each on its own): [3], [4], [3], [-1], and [2] for a DATE and a TIMESTAMP
    assert _values(diffs) == [[3, 4, 3, -1, 2], [3, 4, 3, -1, 2]]
