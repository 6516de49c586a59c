"""A Row built from keywords keeps their order, end to end (issue 46, point 1).

The issue's program printed ``+I[2,140]`` here (the names were sorted: values in the
wrong columns); PyFlink 2.3.0 prints ``+I[140,2]``.
"""

from __future__ import annotations

from millstream.common import Row, Types
from millstream.datastream import StreamExecutionEnvironment

TOTAL_NUMBER = Types.ROW_NAMED(["total", "number"], [Types.INT(), Types.INT()])


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    return env


def test_the_issues_map_prints_the_values_in_keyword_order(capfd):
    env = _env()
    env.from_collection([1]).map(lambda x: Row(total=140, number=2), output_type=TOTAL_NUMBER).print()
    env.execute()
    assert capfd.readouterr().out.splitlines() == ["+I[140,2]"]  # PyFlink 2.3.0: +I[140,2]


def test_a_declared_row_type_places_a_named_rows_values_by_name_between_tasks(capfd):
    env = _env()
    ds = env.from_collection([1])
    # PyFlink's print formats the Row it is handed, in its own order (+I[2,140]); between
    # tasks the declared type takes its values by name.
    ds.map(lambda x: Row(number=2, total=140), output_type=TOTAL_NUMBER).print()
    ds.map(lambda x: Row(number=2, total=140), output_type=TOTAL_NUMBER).rebalance().map(
        lambda r: "rebalanced " + repr(r)
    ).print()
    env.execute()
    # PyFlink 2.3.0 prints: +I[2,140] and rebalanced Row(total=140, number=2)
    assert sorted(capfd.readouterr().out.splitlines()) == ["+I[2,140]", "rebalanced Row(total=140, number=2)"]
