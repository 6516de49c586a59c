"""Regular joins of the Table API on keyed state: inner join rows as PyFlink 2.3.0 printed them
for its basic_operations example, and outer joins whose changelog (padded rows withdrawn when a
match arrives) folds into the join of the final tables, whatever order the inputs arrive in."""

from __future__ import annotations

from collections import Counter

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col

pytestmark = pytest.mark.timeout(300)


def _fold(changes: list[tuple[str, tuple[object, ...]]]) -> Counter[tuple[object, ...]]:
    """The table a changelog describes; a withdrawal of a row not held fails."""
    table: Counter[tuple[object, ...]] = Counter()
    for kind, row in changes:
        if kind in ("+I", "+U"):
            table[row] += 1
        else:
            assert table[row] > 0, f"{kind} of a row never added: {row}"
            table[row] -= 1
    return +table


def _changes(table: object) -> list[tuple[str, tuple[object, ...]]]:
    with table.execute().collect() as rows:  # type: ignore[attr-defined]
        return [(str(r.get_row_kind()), tuple(r)) for r in rows]


def test_inner_join_gives_the_rows_pyflink_gives() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    left = t_env.from_elements([(1, "Flink"), (2, "hello"), (3, "world"), (4, "PyFlink")], ["id", "name"])
    right = t_env.from_elements([(1, 18), (2, 30), (3, 25), (4, 10)], ["id", "age"])
    joined = left.join(right.rename_columns(col("id").alias("r_id")), col("id") == col("r_id"))
    changes = _changes(joined)
    assert {kind for kind, _ in changes} == {"+I"}
    # PyFlink 2.3.0 printed these four rows (in the order 4, 1, 2, 3)
    assert Counter(row for _, row in changes) == Counter(
        [(4, "PyFlink", 4, 10), (1, "Flink", 1, 18), (2, "hello", 2, 30), (3, "world", 3, 25)]
    )


@pytest.mark.parametrize("parallelism", ["1", "2"])
def test_outer_joins_fold_into_the_join_of_the_final_tables(parallelism: str) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", parallelism)
    left = t_env.from_elements([(1, "a"), (2, "b"), (2, "b2"), (5, "e")], ["k", "l"])
    right = t_env.from_elements([(2, "x"), (3, "y"), (2, "z"), (1, "w")], ["rk", "r"])
    on = col("k") == col("rk")
    inner = [(1, "a", 1, "w"), (2, "b", 2, "x"), (2, "b", 2, "z"), (2, "b2", 2, "x"), (2, "b2", 2, "z")]
    assert _fold(_changes(left.join(right, on))) == Counter(inner)
    assert _fold(_changes(left.left_outer_join(right, on))) == Counter([*inner, (5, "e", None, None)])
    assert _fold(_changes(left.right_outer_join(right, on))) == Counter([*inner, (None, None, 3, "y")])
    assert _fold(_changes(left.full_outer_join(right, on))) == Counter(
        [*inner, (5, "e", None, None), (None, None, 3, "y")]
    )
    # a residual condition besides the keys
    residual = left.left_outer_join(right, on & (col("r") != "z"))
    assert _fold(_changes(residual)) == Counter(
        [(1, "a", 1, "w"), (2, "b", 2, "x"), (2, "b2", 2, "x"), (5, "e", None, None)]
    )
