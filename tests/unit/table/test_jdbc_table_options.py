"""The ``jdbc`` table connector's options are checked as Flink's ``JdbcDynamicTableFactory``
checks them (issue 49, JDBC): the messages are those of ``validateConfigOptions``,
``checkAllOrNone`` (its option list on one line here), ``DefaultLookupCache.fromConfig`` and the
dialect's ``validate`` (flink-connector-jdbc ``core/table/JdbcDynamicTableFactory.java``,
flink-table-common ``DefaultLookupCache.java``); an unknown option or URL fails naming it. The
filters a scan can say in SQL are pushed into its query (``JdbcFilterPushdownPreparedStatementVisitor``)."""

from __future__ import annotations

import datetime

import pytest

from millstream.connectors.jdbc.dialects import POSTGRES, SQLITE
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.connectors.jdbc_filters import to_predicate
from millstream.table.expression.expression import _Binary, _Column, _IsNull, _Literal, _Logic
from millstream.table.functions.builtins import _Call


def _create(options: str, columns: str = "id INT, name STRING") -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(f"CREATE TABLE t ({columns}) WITH ('connector' = 'jdbc', {options})")


BASE = "'url' = 'jdbc:sqlite::memory:', 'table-name' = 't'"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("'url' = 'jdbc:sqlite::memory:'", "missing the required option(s) table-name"),
        (
            f"{BASE}, 'username' = 'u'",
            "Either all or none of the following options should be provided: username, password",
        ),
        (
            f"{BASE}, 'scan.partition.column' = 'id', 'scan.partition.num' = '2'",
            "Either all or none of the following options should be provided: scan.partition.column, "
            "scan.partition.num, scan.partition.lower-bound, scan.partition.upper-bound",
        ),
        (
            f"{BASE}, 'scan.partition.column' = 'id', 'scan.partition.num' = '2', "
            "'scan.partition.lower-bound' = '10', 'scan.partition.upper-bound' = '1'",
            "'scan.partition.lower-bound'='10' must not be larger than 'scan.partition.upper-bound'='1'.",
        ),
        (
            f"{BASE}, 'sink.max-retries' = '-1'",
            "The value of 'sink.max-retries' option shouldn't be negative, but is -1.",
        ),
        (
            f"{BASE}, 'lookup.max-retries' = '-2'",
            "The value of 'lookup.max-retries' option shouldn't be negative, but is -2.",
        ),
        (
            f"{BASE}, 'connection.max-retry-timeout' = '100ms'",
            "The value of 'connection.max-retry-timeout' option must be in second granularity and "
            "shouldn't be smaller than 1 second, but is 100ms.",
        ),
        (
            f"{BASE}, 'lookup.cache.max-rows' = '10'",
            "Either all or none of the following options should be provided: "
            "lookup.cache.max-rows, lookup.cache.ttl",
        ),
        (
            f"{BASE}, 'lookup.cache' = 'PARTIAL'",
            "Missing 'lookup.partial-cache.expire-after-access', "
            "'lookup.partial-cache.expire-after-write' or 'lookup.partial-cache.max-rows' "
            "in the configuration.",
        ),
        (
            f"{BASE}, 'sink.buffer-flush.max-rows' = 'many'",
            "sink.buffer-flush.max-rows='many': expected an integer",
        ),
        (
            f"{BASE}, 'scan.fetchsize' = '10'",
            "Unsupported options found for 'jdbc' in table 't': scan.fetchsize",
        ),
        ("'url' = 'jdbc:db2://h/x', 'table-name' = 't'", "Unsupported JDBC URL 'jdbc:db2://h/x'"),
        (
            f"{BASE}, 'driver' = 'org.postgresql.Driver'",
            "JDBC driver 'org.postgresql.Driver' cannot connect to",
        ),
    ],
)
def test_bad_options_fail_in_one_line_naming_the_option(options: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        _create(options)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_type_the_database_cannot_hold_is_refused_with_flink_s_message() -> None:
    with pytest.raises(ValueError, match=r"The SQLite dialect doesn't support type: TIMESTAMP_LTZ\(3\)\."):
        _create(BASE, "id INT, at TIMESTAMP_LTZ(3)")


def test_every_flink_option_is_accepted() -> None:
    _create(
        f"{BASE}, 'driver' = 'org.sqlite.JDBC', 'username' = 'u', 'password' = 'p', "
        "'connection.max-retry-timeout' = '30s', 'scan.partition.column' = 'id', 'scan.partition.num' = '4', "
        "'scan.partition.lower-bound' = '0', 'scan.partition.upper-bound' = '100', 'scan.fetch-size' = '50', "
        "'scan.auto-commit' = 'false', 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10', "
        "'lookup.partial-cache.expire-after-write' = '1 min', "
        "'lookup.partial-cache.expire-after-access' = '30s', "
        "'lookup.partial-cache.cache-missing-key' = 'false', 'lookup.max-retries' = '1', "
        "'sink.buffer-flush.max-rows' = '10', 'sink.buffer-flush.interval' = '0', 'sink.max-retries' = '0', "
        "'sink.parallelism' = '2', 'filter.handling.policy' = 'NEVER'"
    )
    _create(
        f"{BASE}, 'lookup.cache.max-rows' = '10', 'lookup.cache.ttl' = '5s', "
        "'lookup.cache.caching-missing-key' = 'true'"
    )


def test_simple_filters_become_parameterized_sql() -> None:
    names = ["id", "name", "d"]
    greater = _Binary(">", _Column("id"), _Literal(1))
    assert to_predicate(greater, names, POSTGRES) == ("(id > %s)", (1,))
    assert to_predicate(_Binary("<", _Literal(5), _Column("id")), names, SQLITE) == ('(? < "id")', (5,))
    either = _Logic("OR", [_Binary("=", _Column("name"), _Literal("a")), _IsNull(_Column("name"), True)])
    assert to_predicate(either, names, POSTGRES) == ("((name = %s) OR (name IS NULL))", ("a",))
    dated = _Binary(">=", _Column("d"), _Literal(datetime.date(2024, 1, 1)))
    assert to_predicate(dated, names, SQLITE) == ('("d" >= ?)', ("2024-01-01",))
    assert to_predicate(_Call("LIKE", [_Column("name"), _Literal("a%")]), names, POSTGRES) == (
        "(name LIKE %s)",
        ("a%",),
    )


def test_other_filters_are_not_pushed() -> None:
    names = ["id", "name"]
    assert to_predicate(_Call("UPPER", [_Column("name")]), names, POSTGRES) is None
    assert to_predicate(_Binary("+", _Column("id"), _Literal(1)), names, POSTGRES) is None
    assert (
        to_predicate(
            _Logic("AND", [_Binary(">", _Column("id"), _Literal(1)), _Call("UPPER", [])]), names, POSTGRES
        )
        is None
    )
    assert to_predicate(_Call("LIKE", [_Column("name"), _Literal("a\\%")]), names, POSTGRES) is None
    assert to_predicate(_Binary("=", _Column("other"), _Literal(1)), names, POSTGRES) is None
