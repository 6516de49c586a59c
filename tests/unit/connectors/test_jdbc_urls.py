"""Flink's JDBC URLs become Python DB-API connections (issue 49, JDBC): the URL names the
database, the database the driver, and a URL or driver millstream cannot serve fails in one
line naming it. Flink loads a Java driver by the URL (``JdbcFactoryLoader.loadDialect`` fails
with "Could not find any jdbc dialect factory that can handle url ..."); here a Python module."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from millstream.connectors.jdbc.errors import JdbcConnectorError
from millstream.connectors.jdbc.urls import check_driver_name, connect, parse_jdbc_url


def test_a_postgresql_url_gives_libpq_arguments() -> None:
    url = parse_jdbc_url(
        "jdbc:postgresql://db.example:6543/shop?user=ann&password=s3cret&sslmode=require"
        "&currentSchema=sales&ApplicationName=etl&connectTimeout=5&prepareThreshold=3"
    )
    assert url.database == "postgresql"
    assert dict(url.arguments) == {
        "host": "db.example",
        "port": "6543",
        "dbname": "shop",
        "user": "ann",
        "password": "s3cret",
        "sslmode": "require",
        "options": "-c search_path=sales",
        "application_name": "etl",
        "connect_timeout": "5",
    }
    assert "s3cret" not in url.shown()


def test_postgresql_hosts_default_port_and_short_form() -> None:
    several = dict(parse_jdbc_url("jdbc:postgresql://a,b:5433,[::1]:7/db").arguments)
    assert several["host"] == "a,b,::1" and several["port"] == "5432,5433,7"
    assert dict(parse_jdbc_url("jdbc:postgresql:shop").arguments) == {"dbname": "shop"}
    assert dict(parse_jdbc_url("jdbc:postgresql://localhost/db?ssl=true").arguments)["sslmode"] == "require"


def test_a_mysql_url_gives_pymysql_arguments() -> None:
    url = parse_jdbc_url(
        "jdbc:mysql://127.0.0.1:3307/shop?useSSL=false&characterEncoding=UTF-8&connectTimeout=2500&user=u"
    )
    assert url.database == "mysql"
    assert dict(url.arguments) == {
        "host": "127.0.0.1",
        "port": 3307,
        "database": "shop",
        "charset": "utf8mb4",
        "connect_timeout": 2,
        "user": "u",
    }
    assert dict(parse_jdbc_url("jdbc:mysql://db/x").arguments)["port"] == 3306


@pytest.mark.parametrize(
    ("url", "arguments"),
    [
        ("jdbc:sqlite:/tmp/a.db", {"database": "/tmp/a.db", "pragmas": ()}),
        (
            "jdbc:sqlite:rel/a.db?journal_mode=WAL",
            {"database": "rel/a.db", "pragmas": (("journal_mode", "WAL"),)},
        ),
        ("jdbc:sqlite::memory:", {"database": ":memory:"}),
        ("jdbc:sqlite:", {"database": ":memory:"}),
        ("jdbc:sqlite:file:a.db?mode=ro", {"database": "file:a.db?mode=ro", "uri": True}),
    ],
)
def test_sqlite_urls(url: str, arguments: dict[str, object]) -> None:
    parsed = parse_jdbc_url(url)
    assert parsed.database == "sqlite"
    assert dict(parsed.arguments) == arguments


def test_an_unknown_url_is_one_line_naming_it_and_the_supported_ones() -> None:
    with pytest.raises(JdbcConnectorError) as error:
        parse_jdbc_url("jdbc:oracle:thin:@localhost:1521:xe")
    message = str(error.value)
    assert "\n" not in message
    assert "'jdbc:oracle:thin:@localhost:1521:xe'" in message
    for supported in ("jdbc:postgresql://", "jdbc:mysql://", "jdbc:sqlite:"):
        assert supported in message


def test_the_driver_option_must_fit_the_url() -> None:
    check_driver_name(parse_jdbc_url("jdbc:postgresql://h/db"), "org.postgresql.Driver")
    check_driver_name(parse_jdbc_url("jdbc:mysql://h/db"), "com.mysql.cj.jdbc.Driver")
    check_driver_name(parse_jdbc_url("jdbc:sqlite:x.db"), "org.sqlite.JDBC")
    check_driver_name(parse_jdbc_url("jdbc:sqlite:x.db"), None)
    with pytest.raises(JdbcConnectorError, match=r"JDBC driver 'com.mysql.cj.jdbc.Driver' cannot connect to"):
        check_driver_name(parse_jdbc_url("jdbc:postgresql://h/db"), "com.mysql.cj.jdbc.Driver")


def test_a_missing_driver_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymysql", None)  # import pymysql fails
    with pytest.raises(JdbcConnectorError) as error:
        connect(parse_jdbc_url("jdbc:mysql://127.0.0.1:1/db?password=pw"), "u", None, 1)
    assert str(error.value) == (
        "The JDBC URL 'jdbc:mysql://127.0.0.1:1/db' needs the Python driver pymysql, which is not "
        "installed: pip install 'millstream[mysql]'"
    )
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(JdbcConnectorError, match=r"pip install 'millstream\[postgres\]'$"):
        connect(parse_jdbc_url("jdbc:postgresql://127.0.0.1:1/db"), "u", None, 1)


def test_sqlite_connects_with_the_url_pragmas(tmp_path: object) -> None:
    connection = connect(parse_jdbc_url(f"jdbc:sqlite:{tmp_path}/a.db?journal_mode=WAL"), None, None, 5)
    try:
        assert isinstance(connection, sqlite3.Connection)
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        connection.close()


def test_a_refused_connection_is_one_line_with_the_driver_s_first_line(tmp_path: object) -> None:
    with pytest.raises(JdbcConnectorError) as error:
        connect(parse_jdbc_url(f"jdbc:sqlite:file:{tmp_path}/none.db?mode=ro"), None, None, 1)
    assert str(error.value).startswith(f"Cannot connect to 'jdbc:sqlite:file:{tmp_path}/none.db?mode=ro': ")
    assert "OperationalError: unable to open database file" in str(error.value)
