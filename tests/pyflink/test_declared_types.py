"""Declared types apply to values as in PyFlink (issue 13, point 2; first part).

Observed in real PyFlink 2.3 (p=1, collected with ``execute_and_collect``):
``env.from_collection([(1, "a")], type_info=Types.ROW_NAMED(["n", "s"], [INT, STRING]))``
yields ``Row(n=1, s='a')`` with ``_fields == ['n', 's']``, and a map after it reads
``r.s``; the same collection declared ``Types.ROW([...])`` names its fields f0, f1. The
official example pyflink/examples/datastream/basic_operations.py relies on it
(``data.info``).
"""

from __future__ import annotations

import pytest

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


def test_from_collection_rounds_float_fields_to_32_bits_and_checks_integer_ranges() -> None:
    # PyFlink 2.3's state_access example declares Types.TUPLE([STRING, FLOAT]) and prints
    # ('Bob', 30.200000762939453) for 30.2; millstream now prints the same.
    pair = Types.TUPLE([Types.STRING(), Types.FLOAT()])
    values = list(_env().from_collection([("Bob", 30.2), ("x", 0.1)], type_info=pair).execute_and_collect())
    assert values == [("Bob", 30.200000762939453), ("x", 0.10000000149011612)]
    ints = Types.TUPLE([Types.INT(), Types.LONG(), Types.DOUBLE()])
    assert list(_env().from_collection([(1.9, 2, 3)], type_info=ints).execute_and_collect()) == [(1, 2, 3.0)]
    for kind, value in (
        (Types.INT(), 2**31),
        (Types.SHORT(), -(2**15) - 1),
        (Types.BYTE(), 128),
        (Types.LONG(), 2**63),
    ):
        with pytest.raises(ValueError, match=rf"^{value} is out of range for Types\.{kind!r}\(\)"):
            _env().from_collection([value], type_info=kind)


# -- values crossing tasks (the whole program against PyFlink's output: test_programs.py) --


def test_an_output_its_declared_type_cannot_hold_fails_naming_operator_and_record() -> None:
    # PyFlink 2.3 fails the same job too (its INT coder rejects 2**40).
    env = _env()
    ds = env.from_collection([1, 2], type_info=Types.INT()).map(
        lambda x: x << 40 if x == 2 else x, output_type=Types.INT()
    )
    ds.key_by(lambda x: 0).map(lambda x: x).print()
    with pytest.raises(Exception, match=r"operator 'Map'.*2199023255552.*out of range for Types.INT"):
        env.execute()


def test_a_tuple_field_out_of_its_range_fails_and_floats_truncate() -> None:
    pair = Types.TUPLE([Types.STRING(), Types.SHORT()])
    env = _env()
    ok = env.from_collection([1], type_info=Types.INT()).map(lambda x: ("a", 2.9), output_type=pair)
    assert list(ok.rebalance().execute_and_collect()) == [("a", 2)]
    env = _env()
    ds = env.from_collection([1], type_info=Types.INT()).map(lambda x: ("a", 40000), output_type=pair)
    ds.rebalance().print()
    with pytest.raises(Exception, match=r"output \('a', 40000\) does not fit .*out of range for Types.SHORT"):
        env.execute()


def test_chained_operators_see_values_as_returned_and_a_task_boundary_converts_them() -> None:
    env = _env()
    floats = env.from_collection([1], type_info=Types.INT()).map(lambda x: x / 10, output_type=Types.FLOAT())
    chained = floats.map(repr, output_type=Types.STRING())
    across = floats.rebalance().map(repr, output_type=Types.STRING())
    assert list(chained.execute_and_collect()) == ["0.1"]
    assert list(across.execute_and_collect()) == ["0.10000000149011612"]


def test_side_outputs_convert_to_their_tags_type() -> None:
    from millstream.datastream import OutputTag, ProcessFunction

    tag = OutputTag("half", Types.FLOAT())

    class Split(ProcessFunction):
        def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
            yield tag, value / 10
            yield value

    env = _env()
    main = env.from_collection([1], type_info=Types.INT()).process(Split(), output_type=Types.INT())
    side = main.get_side_output(tag).rebalance().map(repr, output_type=Types.STRING())
    assert list(side.execute_and_collect()) == ["0.10000000149011612"]
