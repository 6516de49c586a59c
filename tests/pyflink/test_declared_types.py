"""Declared types apply to values as in PyFlink (issue 13, point 2; first part).

Observed in real PyFlink 2.3 (p=1, collected with ``execute_and_collect``):
``env.from_collection([(1, "a")], type_info=Types.ROW_NAMED(["n", "s"], [INT, STRING]))``
yields ``Row(n=1, s='a')`` with ``_fields == ['n', 's']``, and a map after it reads
``r.s``; the same collection declared ``Types.ROW([...])`` names its fields f0, f1. The
official example pyflink/examples/datastream/basic_operations.py relies on it
(``data.info``).
"""

from __future__ import annotations

from millstream.common import Row, Types
from millstream.datastream import StreamExecutionEnvironment

NAMED = Types.ROW_NAMED(["n", "s"], [Types.INT(), Types.STRING()])


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    return env


def test_from_collection_gives_named_rows_for_a_row_type() -> None:
    rows = list(_env().from_collection([(1, "a"), Row(2, "b")], type_info=NAMED).execute_and_collect())
    assert [repr(r) for r in rows] == ["Row(n=1, s='a')", "Row(n=2, s='b')"]
    assert [r.as_dict() for r in rows] == [{"n": 1, "s": "a"}, {"n": 2, "s": "b"}]


def test_a_map_reads_fields_by_name_and_unnamed_row_types_name_them_f0_f1() -> None:
    env = _env()
    by_name = env.from_collection([(1, "a")], type_info=NAMED).map(
        lambda r: type(r).__name__ + repr(r) + r.s, output_type=Types.STRING()
    )
    assert list(by_name.execute_and_collect()) == ["RowRow(n=1, s='a')a"]  # PyFlink's output
    unnamed = Types.ROW([Types.INT(), Types.STRING()])
    rows = list(_env().from_collection([(1, "a")], type_info=unnamed).execute_and_collect())
    assert [repr(r) for r in rows] == ["Row(f0=1, f1='a')"]


def test_nested_rows_lists_and_maps_convert_their_elements() -> None:
    inner = Types.ROW_NAMED(["x"], [Types.INT()])
    outer = Types.ROW_NAMED(
        ["row", "rows", "by"], [inner, Types.LIST(inner), Types.MAP(Types.STRING(), inner)]
    )
    [row] = list(_env().from_collection([((1,), [(2,)], {"k": (3,)})], type_info=outer).execute_and_collect())
    assert row.row.x == 1 and row.rows[0].x == 2 and row.by["k"].x == 3
