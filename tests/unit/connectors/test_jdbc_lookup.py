"""The JDBC lookup function (issue 49, JDBC), Flink's ``JdbcRowDataLookupFunction``: the rows
of a key by ``SELECT ... WHERE key = ?``, each column converted to its Flink type, served by
the partial cache until the entry expires. Runs on a SQLite file with a clock moved by hand."""

from __future__ import annotations

import decimal
import sqlite3
from pathlib import Path

import cloudpickle

from millstream.connectors.jdbc.connection import JdbcOptions
from millstream.connectors.jdbc.lookup import JdbcRowDataLookupFunction, LookupCache
from millstream.table.common.types import DataTypes


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_lookups_query_by_key_and_the_cache_serves_until_expiry(tmp_path: Path) -> None:
    path = tmp_path / "rates.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE rates (currency TEXT, day TEXT, rate DECIMAL(10, 4))")
        db.executemany(
            "INSERT INTO rates VALUES (?, ?, ?)",
            [("EUR", "mon", 1.08), ("EUR", "tue", 1.09), ("GBP", "mon", 1.27)],
        )
    clock = Clock()
    function = JdbcRowDataLookupFunction(
        JdbcOptions(f"jdbc:sqlite:{path}"),
        "rates",
        ["currency", "day", "rate"],
        [DataTypes.STRING(), DataTypes.STRING(), DataTypes.DECIMAL(10, 4)],
        ["currency"],
        cache=LookupCache(expire_after_write_s=60, clock=clock),
    )
    function = cloudpickle.loads(cloudpickle.dumps(function))  # shipped to the subtask
    function.cache._clock = clock  # type: ignore[union-attr]
    function.open(None)
    try:
        d = decimal.Decimal
        assert sorted(function.lookup(("EUR",))) == [("EUR", "mon", d("1.0800")), ("EUR", "tue", d("1.0900"))]
        assert function.lookup(("USD",)) == []
        with sqlite3.connect(path) as db:
            db.execute("UPDATE rates SET rate = 1.30 WHERE currency = 'GBP'")
            db.execute("INSERT INTO rates VALUES ('USD', 'mon', 1.0)")
        assert function.lookup(("GBP",)) == [("GBP", "mon", d("1.3000"))]  # not cached before
        assert function.lookup(("USD",)) == []  # the missing key is cached
        clock.now = 60
        assert function.lookup(("USD",)) == [("USD", "mon", d("1.0000"))]  # expired: queried again
        assert function.cache is not None and function.cache.hits == 1
    finally:
        function.close()
