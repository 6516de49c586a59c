"""``x NOT IN (SELECT y ...)`` with SQL's NULL rules (a null-aware anti join): compared with
DuckDB on the same rows, in batch mode and as the final table of the streaming changelog;
and the streaming changelog as the subquery gains and loses a NULL."""

from __future__ import annotations

from collections import Counter

import duckdb
import pytest

from millstream.common import Row, Types
from millstream.common.types import RowKind
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import EnvironmentSettings, StreamTableEnvironment, TableEnvironment
from millstream.testing.tables import fold_changelog

ORDERS = [(1, 10), (2, 20), (3, None), (4, 30), (5, 10)]
CASES = {
    "no_nulls": [(10,), (40,)],
    "with_null": [(10,), (None,)],
    "empty": [],
    "only_null": [(None,)],
}


def _duckdb(blocked: list[tuple[int | None]]) -> Counter[tuple[object, ...]]:
    con = duckdb.connect()
    con.execute("CREATE TABLE orders (id INTEGER, customer INTEGER)")
    con.execute("CREATE TABLE blocked (customer INTEGER)")
    con.executemany("INSERT INTO orders VALUES (?, ?)", ORDERS)
    if blocked:
        con.executemany("INSERT INTO blocked VALUES (?)", blocked)
    query = "SELECT id, customer FROM orders WHERE customer NOT IN (SELECT customer FROM blocked)"
    return Counter(con.execute(query).fetchall())


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "streaming"])
@pytest.mark.parametrize("case", list(CASES))
def test_not_in_equals_duckdb(case: str, batch: bool) -> None:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t_env.create_temporary_view("orders", t_env.from_elements(ORDERS, ["id", "customer"]))
    blocked = CASES[case] or [(None,)]  # from_elements needs a row: an empty case filters it out
    table = t_env.from_elements(blocked, ["customer"])
    if not CASES[case]:
        table = table.where(table.customer.is_not_null)
    t_env.create_temporary_view("blocked", table)
    query = "SELECT id, customer FROM orders WHERE customer NOT IN (SELECT customer FROM blocked)"
    with t_env.execute_sql(query).collect() as rows:
        result = fold_changelog((str(r.get_row_kind()), tuple(r)) for r in rows)
    assert result == _duckdb(CASES[case])


def test_a_null_arriving_in_the_subquery_withdraws_every_row_and_leaving_brings_them_back() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view("orders", t_env.from_elements([(1, 10), (2, 20)], ["id", "customer"]))
    changes = [
        Row.of_kind(RowKind.INSERT, 10),
        Row.of_kind(RowKind.INSERT, None),
        Row.of_kind(RowKind.DELETE, None),
        Row.of_kind(RowKind.DELETE, 10),
    ]
    stream = env.from_collection(changes, Types.ROW_NAMED(["customer"], [Types.INT()]))
    t_env.create_temporary_view("blocked", t_env.from_changelog_stream(stream))
    query = "SELECT id FROM orders WHERE customer NOT IN (SELECT customer FROM blocked)"
    with t_env.execute_sql(query).collect() as rows:
        changelog = [(str(r.get_row_kind()), tuple(r)) for r in rows]
    # the two inputs interleave as the sources deliver them; what the changelog must do is
    # fold, after each step, into the rows the subquery's state allows; at the end it is
    # empty again (no NULL, no 10): both orders are in
    assert fold_changelog(changelog) == Counter([(1,), (2,)])
    assert all(kind in ("+I", "-D") for kind, _ in changelog)
