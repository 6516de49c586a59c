# ruff: noqa: E501 - PyFlink's plan line is pasted as it printed
"""Nexmark's q13 (bounded side input join) as Nexmark writes it: a lookup join of each bid,
``FOR SYSTEM_TIME AS OF`` its ``PROCTIME()``, with the side input's row of its auction modulo
10,000, the side input a filesystem table of Nexmark's side-input file (``i,i`` for i below
10,000). Its batch result, and the table folded from its streaming changelog, equal DuckDB's
join over the same events and file; the plan's LookupJoin is the one PyFlink 2.3.0 printed for
the same INSERT over the same DDL (with ``side_input`` a lookup table over the same file: its
own filesystem connector is no lookup table).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from millstream.testing.nexmark import (
    SIDE_INPUT_QUERIES,
    duckdb_side_input,
    duckdb_views,
    side_input_ddl,
    write_side_input,
)
from millstream.testing.tables import fold_changelog
from tests.differential.test_nexmark import events, nexmark_environment  # noqa: F401 - the fixture
from tests.differential.test_sql_vs_duckdb import _normalize, _rows

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.timeout(600)

Q13 = SIDE_INPUT_QUERIES["q13"]
# PyFlink 2.3.0, parallelism 2, explain_sql of INSERT INTO a blackhole table of q13's columns
PYFLINK_LOOKUP_JOIN = "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=$f8], select=[auction, bidder, price, dateTime, $f8, key, value])"


@pytest.fixture(scope="module")
def side_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("side") / "side_input.txt"
    write_side_input(str(path))
    return path


@pytest.fixture(scope="module")
def expected(events: Path, side_input: Path) -> Counter[tuple[object, ...]]:  # noqa: F811 - the fixture
    con = duckdb.connect()
    for statement in [*duckdb_views(str(events)), duckdb_side_input(str(side_input))]:
        con.execute(statement)
    return _rows(con.execute(Q13.duckdb).fetchall())


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "streaming"])
def test_q13_runs_as_written_and_equals_duckdb(
    events: Path,  # noqa: F811 - the fixture
    side_input: Path,
    expected: Counter[tuple[object, ...]],
    batch: bool,
) -> None:
    t_env = nexmark_environment(events, batch)
    t_env.execute_sql(side_input_ddl(str(side_input)))
    with t_env.execute_sql(Q13.sql).collect() as changes:
        result = fold_changelog((str(r.get_row_kind()), tuple(_normalize(v) for v in r)) for r in changes)
    assert sum(expected.values()) > 0
    assert result == expected


def test_q13_inserts_into_a_blackhole_with_pyflinks_lookup_join(
    events: Path,  # noqa: F811 - the fixture
    side_input: Path,
) -> None:
    t_env = nexmark_environment(events, batch=False)
    t_env.execute_sql(side_input_ddl(str(side_input)))
    t_env.execute_sql(f"CREATE TABLE nexmark_q13 ({Q13.columns}) WITH ('connector' = 'blackhole')")
    insert = f"INSERT INTO nexmark_q13 {Q13.sql}"
    plan = t_env.explain_sql(insert).split("== Optimized Execution Plan ==")[1]
    assert PYFLINK_LOOKUP_JOIN in [line.strip().lstrip(":+- ") for line in plan.splitlines()]
    t_env.execute_sql(insert).wait(300_000)
