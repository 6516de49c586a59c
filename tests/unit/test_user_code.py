"""dumps_user_code: user functions pickled by value keep the file their code came from."""

from __future__ import annotations

import operator
import pickle
import traceback
from typing import Any

import pytest

from millstream.common.user_code import dumps_user_code, subscript_as_itemgetter


def _make_closure():
    factor = 10

    def divide(x):
        return [factor // v for v in x]  # the comprehension is a nested code object (3.11)

    return divide


def test_a_lambda_keeps_its_file_and_its_line_shows_in_the_traceback():
    divide = lambda x: 10 // x  # noqa: E731 - a lambda is what users write
    loaded = pickle.loads(dumps_user_code(divide))
    assert loaded.__code__.co_filename == __file__
    assert loaded(5) == 2
    try:
        loaded(0)
    except ZeroDivisionError as err:
        text = "".join(traceback.format_exception(err))
    assert "10 // x" in text and __file__ in text


def test_nested_code_objects_keep_their_file_too():
    loaded = pickle.loads(dumps_user_code(_make_closure()))
    assert loaded([1, 2]) == [10, 5]
    nested = [c for c in loaded.__code__.co_consts if hasattr(c, "co_filename")]
    assert all(code.co_filename == __file__ for code in [loaded.__code__, *nested])


def test_subscript_lambdas_become_itemgetters_that_behave_the_same() -> None:
    for selector, value in (
        (lambda x: x[0], ("a", 1)),
        (lambda x: x[-1], ("a", 1)),
        (lambda row: row["name"], {"name": "b"}),
    ):
        fast = subscript_as_itemgetter(selector)
        assert type(fast) is operator.itemgetter
        assert fast(value) == selector(value)
        for bad in ((), None):  # the same error as the lambda's
            with pytest.raises(Exception) as expected:
                selector(bad)
            with pytest.raises(type(expected.value)):
                fast(bad)
        assert pickle.loads(pickle.dumps(fast))(value) == selector(value)


def test_other_functions_stay_as_they_are() -> None:
    position = 0
    others = [
        lambda x: x[position],  # a global, not a constant
        lambda x: x[0] + 1,
        lambda x, y=1: x[0],
        lambda *xs: xs[0],
        lambda x: x[0.5],
        lambda x: x[(0, 1)],
        len,
    ]

    def closure(i: int) -> Any:
        return lambda x: x[i]

    for function in [*others, closure(0)]:
        assert subscript_as_itemgetter(function) is function
