"""Each database's statements, placeholders and type checks (issue 49, JDBC), as Flink's
dialects write them: ``PostgresDialect.getUpsertStatement`` (``ON CONFLICT (k) DO UPDATE SET
f=EXCLUDED.f``, names unquoted), ``MySqlDialect.getUpsertStatement`` (``ON DUPLICATE KEY UPDATE
`f`=VALUES(`f`)`` for every field), ``AbstractDialect`` (insert, update, delete, select) and
``AbstractDialect.validate``'s messages (flink-connector-jdbc, ``core/database/dialect`` and the
``postgres`` / ``mysql`` modules). SQLite is not among Flink's dialects; its statements follow
PostgreSQL's with SQLite's quoting."""

from __future__ import annotations

import sqlite3

import pytest

from millstream.connectors.jdbc.dialects import MYSQL, POSTGRES, SQLITE, to_driver_sql
from millstream.table.common.types import DataTypes

FIELDS = ["id", "name", "total"]


def test_postgresql_statements() -> None:
    assert POSTGRES.get_insert_into_statement("shop.orders", FIELDS) == (
        "INSERT INTO shop.orders(id, name, total) VALUES (%s, %s, %s)"
    )
    assert POSTGRES.get_upsert_statement("orders", FIELDS, ["id"]) == (
        "INSERT INTO orders(id, name, total) VALUES (%s, %s, %s) "
        "ON CONFLICT (id) DO UPDATE SET name=EXCLUDED.name, total=EXCLUDED.total"
    )
    assert POSTGRES.get_upsert_statement("k", ["a", "b"], ["a", "b"]) == (
        "INSERT INTO k(a, b) VALUES (%s, %s) ON CONFLICT (a, b) DO NOTHING"
    )
    assert POSTGRES.get_delete_statement("orders", ["id"]) == "DELETE FROM orders WHERE id = %s"
    assert POSTGRES.get_select_from_statement("orders", FIELDS, ["id", "name"]) == (
        "SELECT id, name, total FROM orders WHERE id = %s AND name = %s"
    )
    assert POSTGRES.get_select_from_statement("orders", ["id"], []) == "SELECT id FROM orders"
    assert (
        POSTGRES.get_update_statement("orders", ["name"], ["id"])
        == "UPDATE orders SET name = %s WHERE id = %s"
    )


def test_mysql_statements() -> None:
    assert MYSQL.get_upsert_statement("orders", FIELDS, ["id"]) == (
        "INSERT INTO `orders`(`id`, `name`, `total`) VALUES (%s, %s, %s) ON DUPLICATE KEY UPDATE "
        "`id`=VALUES(`id`), `name`=VALUES(`name`), `total`=VALUES(`total`)"
    )
    assert MYSQL.get_delete_statement("db.orders", ["id"]) == "DELETE FROM `db`.`orders` WHERE `id` = %s"
    assert MYSQL.quote_identifier("a`b") == "`a``b`"


def test_sqlite_statements_run_on_sqlite() -> None:
    upsert = SQLITE.get_upsert_statement("orders", FIELDS, ["id"])
    assert upsert == (
        'INSERT INTO "orders"("id", "name", "total") VALUES (?, ?, ?) '
        'ON CONFLICT ("id") DO UPDATE SET "name"=excluded."name", "total"=excluded."total"'
    )
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, name TEXT, total REAL)")
    db.executemany(upsert, [(1, "a", 1.0), (2, "b", 2.0), (1, "a2", 3.0)])
    db.executemany(SQLITE.get_delete_statement("orders", ["id"]), [(2,)])
    assert db.execute('SELECT * FROM "orders"').fetchall() == [(1, "a2", 3.0)]


@pytest.mark.parametrize(
    ("jdbc", "driver"),
    [
        ("INSERT INTO t (a, b) VALUES (?, ?)", "INSERT INTO t (a, b) VALUES (%s, %s)"),
        ("UPDATE t SET s = '?%' WHERE a = ?", "UPDATE t SET s = '?%%' WHERE a = %s"),
        (
            "SELECT \"q?\" FROM t WHERE x LIKE 'a%' AND y = ?",
            "SELECT \"q?\" FROM t WHERE x LIKE 'a%%' AND y = %s",
        ),
        ("SELECT 'it''s ?' -- a ? comment\n, ? /* ? */", "SELECT 'it''s ?' -- a ? comment\n, %s /* ? */"),
        ("SELECT data ?? 'key', ?", "SELECT data ? 'key', %s"),
        ("SELECT 10 % 3, ?", "SELECT 10 %% 3, %s"),
    ],
)
def test_jdbc_placeholders_become_the_format_paramstyle(jdbc: str, driver: str) -> None:
    assert to_driver_sql(jdbc, POSTGRES) == driver
    assert to_driver_sql(jdbc, SQLITE) == jdbc


def test_validate_refuses_types_as_flink_does() -> None:
    names = ["a"]
    POSTGRES.validate(
        ["a", "b", "c"], [DataTypes.TIMESTAMP_LTZ(3), DataTypes.ARRAY(DataTypes.INT()), DataTypes.BYTES()]
    )
    with pytest.raises(ValueError, match=r"^The MySQL dialect doesn't support type: TIMESTAMP_LTZ\(3\)\.$"):
        MYSQL.validate(names, [DataTypes.TIMESTAMP_LTZ(3)])
    with pytest.raises(ValueError, match=r"^The SQLite dialect doesn't support type: VARBINARY\(10\)\.$"):
        SQLITE.validate(names, [DataTypes.VARBINARY(10)])
    with pytest.raises(
        ValueError, match=r"^The PostgreSQL dialect doesn't support type: MAP<STRING, INT>\.$"
    ):
        POSTGRES.validate(names, [DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())])
    with pytest.raises(ValueError) as error:
        MYSQL.validate(["price"], [DataTypes.DECIMAL(66, 2)])
    assert str(error.value) == (
        "The precision of field 'price' is out of the DECIMAL precision range [1, 65] "
        "supported by MySQL dialect."
    )
    with pytest.raises(ValueError) as error:
        POSTGRES.validate(["ts"], [DataTypes.TIMESTAMP(9)])
    assert str(error.value) == (
        "The precision of field 'ts' is out of the TIMESTAMP precision range [0, 6] "
        "supported by PostgreSQL dialect."
    )
