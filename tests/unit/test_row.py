"""Row behaves as PyFlink 2.3's ``pyflink.common.types.Row`` (issue 46, point 1).

Every expectation below is what PyFlink 2.3.0 printed for the same expression
(``Row(total=140, number=2)`` and friends, run in /work/pyflink-venv).
"""

from __future__ import annotations

import pickle

import pytest

from millstream.common import Row, RowKind, Types


def test_keyword_arguments_keep_their_order():
    row = Row(total=140, number=2)
    # PyFlink 2.3.0: Row(total=140, number=2) {'total': 140, 'number': 2} [140, 2]
    assert repr(row) == "Row(total=140, number=2)"
    assert row.as_dict() == {"total": 140, "number": 2}
    assert list(row.as_dict()) == ["total", "number"]
    assert list(row) == [140, 2]
    assert row[0] == 140 and row.total == 140 and row["number"] == 2


def test_in_looks_at_field_names_of_a_named_row_and_at_values_of_others():
    # PyFlink 2.3.0: 'total' in Row(total=140, number=2) is True, 140 in it is False
    assert "total" in Row(total=140, number=2)
    assert 140 not in Row(total=140, number=2)
    assert 140 in Row(140, 2)
    person = Row("name", "age")
    assert "name" in person  # PyFlink 2.3.0: True
    assert repr(person) == "<Row('name', 'age')>"
    assert repr(person("Alice", 11)) == "Row(name='Alice', age=11)"


def test_equality_compares_named_rows_by_name():
    # PyFlink 2.3.0: Row(a=1, b=2) == Row(b=2, a=1) is True; == Row(1, 2) is False
    assert Row(a=1, b=2) == Row(b=2, a=1)
    assert Row(a=1, b=2) != Row(b=1, a=2)
    assert Row(a=1, b=2) != Row(1, 2)
    assert Row(1, 2) != Row(a=1, b=2)
    assert Row(1, 2) == Row(1, 2)
    assert Row(a=1, b=2) != Row(a=1, c=2)
    assert Row.of_kind(RowKind.DELETE, a=1) != Row(a=1)
    assert hash(Row(a=1, b=2)) == hash((1, 2))


def test_get_fields_by_names_and_name_errors():
    row = Row(total=140, number=2)
    assert row.get_fields_by_names(["number", "total"]) == [2, 140]
    assert Row(1, 2).get_fields_by_names(["a", "b"]) == [1, 2]
    # PyFlink 2.3.0: Exception: Field names ['zzz'] not exist in ['total', 'number'].
    with pytest.raises(Exception, match=r"Field names \['zzz'\] not exist in \['total', 'number'\]\."):
        row.get_fields_by_names(["zzz"])
    with pytest.raises(ValueError, match="zzz"):  # PyFlink 2.3.0: ValueError: zzz
        row["zzz"]
    with pytest.raises(ValueError):  # PyFlink 2.3.0: ValueError: 1
        row["zzz"] = 1
    with pytest.raises(KeyError):  # PyFlink 2.3.0: KeyError: 'zzz'
        Row(1, 2)["zzz"] = 1


def test_pickling_keeps_names_order_and_kind():
    row = Row.of_kind(RowKind.UPDATE_AFTER, total=140, number=2)
    copy = pickle.loads(pickle.dumps(row))
    assert repr(copy) == "Row(total=140, number=2)" and copy.get_row_kind() is RowKind.UPDATE_AFTER


def test_a_declared_row_type_takes_a_named_rows_values_by_name():
    declared = Types.ROW_NAMED(["total", "number"], [Types.INT(), Types.INT()])
    # PyFlink 2.3.0, map(lambda x: Row(number=2, total=140), output_type=declared)
    # .rebalance().map(repr): Row(total=140, number=2)
    assert repr(declared.from_python(Row(number=2, total=140))) == "Row(total=140, number=2)"
    # ... and a Row without names, by position: Row(2, 140) -> Row(total=2, number=140)
    assert repr(declared.from_python(Row(2, 140))) == "Row(total=2, number=140)"
    # PyFlink 2.3.0 fails the job: Field names ['a'] not exist in ['b', 'c'].
    with pytest.raises(ValueError, match=r"Field names \['total', 'number'\] not exist in \['b', 'c'\]"):
        declared.from_python(Row(b=2, c=1))
    # print formats the values in the Row's own order, as PyFlink's print does
    assert declared.print_str(Row(number=2, total=140)) == "+I[2,140]"


def test_types_take_pyflinks_keyword_names():
    named = Types.ROW_NAMED(field_names=["a"], field_types=[Types.INT()])
    assert named.get_field_names() == ["a"]
    assert Types.ROW(field_types=[Types.INT()]).get_field_names() == ["f0"]
    assert Types.TUPLE(field_types=[Types.INT()]).get_field_types() == [Types.INT()]
    assert Types.MAP(key_type_info=Types.STRING(), value_type_info=Types.INT()) == Types.MAP(
        Types.STRING(), Types.INT()
    )
    assert Types.LIST(element_type_info=Types.INT()) == Types.LIST(Types.INT())


def test_a_declared_row_type_takes_a_dicts_values_by_name():
    declared = Types.ROW_NAMED(["a", "b"], [Types.INT(), Types.INT()])
    # PyFlink 2.3.0, env.from_collection([...], type_info=declared).map(repr):
    # {'b': 2, 'a': 1} -> Row(a=1, b=2); {'b': 2} -> Row(a=None, b=2);
    # {'b': 2, 'a': 1, 'c': 5} -> Row(a=1, b=2)
    assert repr(declared.from_python({"b": 2, "a": 1})) == "Row(a=1, b=2)"
    assert repr(declared.from_python({"b": 2})) == "Row(a=None, b=2)"
    assert repr(declared.from_python({"b": 2, "a": 1, "c": 5})) == "Row(a=1, b=2)"
