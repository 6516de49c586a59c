"""A statement passes the Table & SQL layers once, downward, from ``execute_sql`` to its operators.

The calls made while an ``INSERT ... SELECT`` with a join and a GROUP BY is parsed, planned
and translated into DataStream transformations are traced (``sys.setprofile``); each call's
module gives its layer (``millstream.table.<package>``: api over sql over catalog over planner
over connectors over runtime over functions over expression over common). A call from one
layer into a higher one is a call back up, and fails the test: the SQL front end never calls
the Table API, the planner never calls the SQL front end, the runtime's operators never call
the planner, and so on. Calls into lower layers, again and again, are the flow.

A callback an upper layer hands down (a function a tree walk calls for each node) runs as
that layer's own call. One exemption, named: an expression tree resolves itself node by node (``resolve``,
``aggregates`` ...), and the calls of functions among its nodes are the functions package's
classes, so the expression package reaches them through the tree it holds (Flink keeps
expressions as data and resolves them with the planner's visitors instead).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.api import table_environment

LAYERS = ("common", "expression", "functions", "runtime", "connectors", "planner", "catalog", "sql", "api")
RANK = {name: rank for rank, name in enumerate(LAYERS)}
TOP = len(LAYERS)  # millstream.table itself and PyFlink's module paths re-exporting the layers
TREE = {"expression", "functions"}  # expression trees resolving through their nodes (see above)

STATEMENTS = [
    """CREATE TABLE orders (id BIGINT, customer INT, amount INT) WITH (
        'connector' = 'datagen', 'number-of-rows' = '10',
        'fields.customer.min' = '1', 'fields.customer.max' = '3')""",
    """CREATE TABLE customers (cid INT, name STRING) WITH (
        'connector' = 'datagen', 'number-of-rows' = '3')""",
    "CREATE TABLE totals (name STRING, orders BIGINT, amount INT) WITH ('connector' = 'blackhole')",
]
INSERT = """INSERT INTO totals
    SELECT c.name, COUNT(*), SUM(o.amount) FROM orders AS o JOIN customers AS c ON o.customer = c.cid
    WHERE o.amount > 0 GROUP BY c.name"""


def layer_of(module: str) -> tuple[str, int] | None:
    """The layer of a module of millstream.table, with its rank; None for other modules."""
    if module != "millstream.table" and not module.startswith("millstream.table."):
        return None
    package = module.split(".")[2] if module.count(".") >= 2 else ""
    if package in RANK and module.count(".") >= 3:
        return package, RANK[package]
    return "pyflink-paths", TOP


def _caller(frame: FrameType) -> tuple[str, int] | None:
    """The layer of the nearest frame below ``frame`` that runs Table & SQL code."""
    below = frame.f_back
    while below is not None:
        found = layer_of(below.f_globals.get("__name__", ""))
        if found is not None:
            return found
        below = below.f_back
    return None


def _handed(frame: FrameType) -> bool:
    """Whether the function ``frame`` runs was handed to its caller (a callback an upper layer
    passed down, as a tree walk's): the upper layer's own call, made through the lower one."""
    caller = frame.f_back
    if caller is None:
        return False
    for value in caller.f_locals.values():
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is frame.f_code:
            return True
    return False


class Trace:
    """The calls between layers seen while profiling: upward ones, and the layers entered."""

    def __init__(self) -> None:
        self.upward: list[str] = []
        self.entered: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":  # a module's first import
            return
        callee = layer_of(frame.f_globals.get("__name__", ""))
        if callee is None:
            return
        if not self.entered or self.entered[-1] != callee[0]:
            self.entered.append(callee[0])
        caller = _caller(frame)
        if caller is None or callee[1] <= caller[1] or {caller[0], callee[0]} <= TREE:
            return
        if _handed(frame):  # a callback of the upper layer, which keeps the flow going down
            return
        code = frame.f_code
        self.upward.append(
            f"{caller[0]} -> {callee[0]}: {frame.f_globals['__name__']}.{code.co_name} "
            f"(called from {frame.f_back.f_globals.get('__name__')}.{frame.f_back.f_code.co_name})"  # type: ignore[union-attr]
        )


@pytest.fixture
def planned_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """INSERT jobs are planned and translated, not started: their environments, collected."""
    environments: list[Any] = []
    monkeypatch.setattr(table_environment, "_insert_result", lambda env, names: environments.append(env))
    yield environments


def _environment() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for statement in STATEMENTS:
        t_env.execute_sql(statement)
    return t_env


def test_an_insert_passes_each_layer_downward(planned_only: list[Any]) -> None:
    _environment().execute_sql(INSERT)  # every module imported once, outside the trace
    t_env = _environment()
    trace = Trace()
    sys.setprofile(trace)
    try:
        t_env.execute_sql(INSERT)
    finally:
        sys.setprofile(None)
    assert len(planned_only) == 2 and planned_only[-1]._transformations  # planned and translated
    assert not trace.upward, "calls back up:\n" + "\n".join(dict.fromkeys(trace.upward))
    # the statement went from the API through SQL, the catalog and the planner to the
    # connectors' sources and sinks and the runtime's operators
    for name in ("api", "sql", "catalog", "planner", "connectors", "runtime"):
        assert name in trace.entered, (name, trace.entered)


def test_the_trace_sees_a_call_back_up_and_not_a_callback() -> None:
    api: dict[str, Any] = {"__name__": "millstream.table.api.table"}
    exec("def h():\n    pass\n", api)
    planner: dict[str, Any] = {
        "__name__": "millstream.table.planner.nodes",
        "api": types.SimpleNamespace(**api),
    }
    exec("def g():\n    api.h()\n", planner)  # the planner calls the API: back up
    exec("def walk(callback):\n    callback()\n", planner)  # the planner calls what it was handed
    trace = Trace()
    sys.setprofile(trace)
    try:
        planner["g"]()
        planner["walk"](api["h"])
    finally:
        sys.setprofile(None)
    assert [line.split(":")[0] for line in trace.upward] == ["planner -> api"], trace.upward
