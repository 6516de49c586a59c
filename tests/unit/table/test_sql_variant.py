"""Flink's VARIANT type: PARSE_JSON, TRY_PARSE_JSON, a variant's subscript, its printing,
equality and refusals. Every expectation is what PyFlink 2.3.0 printed for the same statement
(batch mode). Before, none existed ("unsupported SQL expression: PARSE_JSON(...)")."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.common.variant import VariantError, parse_json


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


# JSON text -> what PyFlink 2.3.0 prints for PARSE_JSON of it
_PRINTED = {
    '{"b": 2, "a": [2, 3.5, true, null, "x"], "c": {"z": 1, "y": -0}}': (
        '{"a":[2,3.5,true,null,"x"],"b":2,"c":{"y":0,"z":1}}'
    ),
    "1.50": "1.5",
    "1.0": "1",
    "1e2": "100.0",
    "-0": "0",
    "-0.0": "0",
    "-0e0": "-0.0",
    "123456789012345678901234567890123456789012": "1.2345678901234568E41",
    "12345678901234567890": "12345678901234567890",
    "100000000000000000000000.0": "100000000000000000000000",
    "1.23456789012345678901234567890": "1.2345678901234567890123456789",
    "1.000000000000000000000000000000000000001": "1.0",
    "0.000001": "0.000001",
    "0.5E-3": "5.0E-4",
    "1e400": "Infinity",
    "-1E-400": "-0.0",
    '"a\\"b\\\\c\\u00e9\\n"': '"a\\"b\\\\cé\\n"',
    '{"a":"\\u0001"}': '{"a":"\\u0001"}',
    '"\\ud800"': '"?"',
    '{"é":1,"z":2,"A":3,"😀":4,"｡":5}': '{"A":3,"z":2,"é":1,"😀":4,"｡":5}',
    "[1,2] x": "[1,2]",
    "1 2": "1",
    "true x": "true",
    ' \n "a"b': '"a"',
}

# texts TRY_PARSE_JSON gives NULL for (PARSE_JSON fails the job)
_NOT_JSON = [
    "",
    "  ",
    "1x",
    "01",
    "-01",
    "1.",
    ".5",
    "+1",
    "1e",
    "truex",
    "NaN",
    "[1,]",
    '"\t"',
    "1,2",
    "{bad",
]


def test_variant_of_json_text() -> None:
    for text, printed in _PRINTED.items():
        assert str(parse_json(text)) == printed, text
    for text in _NOT_JSON:
        with pytest.raises(VariantError):
            parse_json(text)
    with pytest.raises(VariantError, match="VARIANT_DUPLICATE_KEY"):
        parse_json('{"a":1,"a":2}')
    assert str(parse_json('{"a":1,"a":2}', True)) == '{"a":2}'


def test_parse_json_in_sql(t_env: TableEnvironment) -> None:
    assert _select(
        t_env,
        "SELECT PARSE_JSON('{\"a\": {\"b\": 1}}')['a']['b'], PARSE_JSON('[10, 20]')[2], "
        "PARSE_JSON('[10, 20]')[0], PARSE_JSON('{\"a\": 1}')['b'], PARSE_JSON('{\"a\":1,\"a\":2}', TRUE), "
        "TRY_PARSE_JSON('{bad'), TYPEOF(PARSE_JSON('1')), TYPEOF(TRY_PARSE_JSON('1')), "
        "PARSE_JSON('null') IS NULL, PARSE_JSON(CAST(NULL AS STRING)), "
        "ARRAY[PARSE_JSON('1'), PARSE_JSON('\"a\"')], COALESCE(TRY_PARSE_JSON('x'), PARSE_JSON('2'))",
    ) == [
        ("VARIANT", "1"),
        ("VARIANT", "20"),
        ("VARIANT", "<NULL>"),
        ("VARIANT", "<NULL>"),
        ("VARIANT NOT NULL", '{"a":2}'),
        ("VARIANT", "<NULL>"),
        ("STRING", "VARIANT NOT NULL"),
        ("STRING", "VARIANT"),
        ("BOOLEAN NOT NULL", "FALSE"),
        ("VARIANT", "<NULL>"),
        ("ARRAY<VARIANT NOT NULL> NOT NULL", '[1, "a"]'),
        ("VARIANT NOT NULL", "2"),
    ]


def test_variant_equality(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: TRUE | FALSE | FALSE (binary variants: a decimal is no long, and an
    # object's keys are kept in the order the text names them)
    assert _select(
        t_env,
        "SELECT PARSE_JSON('{\"a\":1}') = PARSE_JSON('{ \"a\" : 1 }'), PARSE_JSON('1') = PARSE_JSON('1.0'), "
        'PARSE_JSON(\'{"a":1,"b":2}\') = PARSE_JSON(\'{"b":2,"a":1}\')',
    ) == [("BOOLEAN NOT NULL", "TRUE"), ("BOOLEAN NOT NULL", "FALSE"), ("BOOLEAN NOT NULL", "FALSE")]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT PARSE_JSON('{\"a\": 1}')[1]", "Integer index access on variant requires an array variant"),
        ("SELECT PARSE_JSON('[1]')['a']", "String key access on variant requires an object variant"),
        ('SELECT PARSE_JSON(\'{"a":1,"a":2}\')', "VARIANT_DUPLICATE_KEY"),
        ("SELECT PARSE_JSON('')", "Unexpected null token"),
    ],
)
def test_variant_failures_at_run_time(t_env: TableEnvironment, sql: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        _select(t_env, sql)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "SELECT CAST(PARSE_JSON('1') AS INT)",
            "Cast function cannot convert value of type VARIANT to type INTEGER",
        ),
        ("SELECT CAST(1 AS VARIANT)", "Cast function cannot convert value of type INTEGER to type VARIANT"),
        ("SELECT PARSE_JSON('1') = 1", r"Cannot apply '=' to arguments of type '<VARIANT> = <INTEGER>'"),
        ("SELECT PARSE_JSON('1') < PARSE_JSON('2')", "Comparable type expected, but was 'VARIANT NOT NULL'"),
        (
            "SELECT PARSE_JSON('{\"a\":1}')[1.5e0]",
            r"Cannot apply 'ITEM' to arguments of type 'ITEM\(<VARIANT>, <DOUBLE>\)'",
        ),
        ("SELECT PARSE_JSON(1)", "Invalid input arguments"),
        (
            "SELECT MAX(PARSE_JSON(s)) FROM (VALUES ('1')) AS t(s)",
            "Max aggregate function does not support type",
        ),
        (
            "SELECT v, COUNT(*) FROM (SELECT PARSE_JSON(s) AS v FROM (VALUES ('1')) AS t(s)) GROUP BY v",
            r"Type\(VARIANT NOT NULL\) is not an orderable data type",
        ),
        (
            "SELECT PARSE_JSON(s) AS v FROM (VALUES ('1')) AS t(s) ORDER BY v",
            r"Type\(VARIANT NOT NULL\) is not an orderable data type",
        ),
    ],
)
def test_variant_refused_while_planning(t_env: TableEnvironment, sql: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        t_env.sql_query(sql)
