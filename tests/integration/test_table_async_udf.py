"""Async scalar functions (``AsyncScalarFunction``, or ``udf`` of an ``async def``), as
PyFlink 2.3 added them (``pyflink/examples/table/async/async_scalar_function.py``) and as
Flink's ``AsyncWaitOperator`` runs them: calls in flight at once up to
``table.exec.async-scalar.max-concurrent-operations``, results in the rows' order, a call that
raises tried again (FIXED_DELAY, ``max-attempts`` retries), a call over
``table.exec.async-scalar.timeout`` failing the task.

The program of ``test_results_keep_the_rows_order_and_their_own_arguments`` ran on PyFlink
2.3.0 (2026-11-27, parallelism 1) printed every row with another row's result: ``k=0`` got
``db_1``, ``k=3`` (whose lookup returns NULL) got ``db_4``, and ``flaky(v)`` gave 73..79, the
last row's ``v`` with attempt counts 3..9. Its Python worker reuses the input row object while
calls are in flight. Flink's semantics (each row's value computed from its own arguments,
ORDERED output) are what is asserted here; PyFlink's printed header and row kinds match.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from millstream.table import AsyncScalarFunction, DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import call, col
from millstream.table.udf import udf

pytestmark = pytest.mark.timeout(300)


def _environment(**options: str) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    for key, value in options.items():
        t_env.get_config().set(key, value)
    t_env.create_temporary_view("src", t_env.from_elements([(str(i), i) for i in range(8)], ["k", "v"]))
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[object, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return [tuple(r) for r in rows]


class Lookup(AsyncScalarFunction):
    def open(self, function_context):  # type: ignore[no-untyped-def]
        self.prefix = "db_"

    async def eval(self, key):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.02 * (5 - int(key) % 5))  # later rows finish first
        return None if key == "3" else self.prefix + key


_ATTEMPTS: dict[tuple[int, str], int] = {}  # per process running the task; ``run`` keeps queries apart


@udf(result_type=DataTypes.INT())
async def flaky(x, run):  # type: ignore[no-untyped-def]
    """Raises twice for each value, then returns ``10 x + attempt``."""
    n = _ATTEMPTS.get((x, run), 0) + 1
    _ATTEMPTS[(x, run)] = n
    if n < 3:
        raise RuntimeError(f"try again ({x})")
    return x * 10 + n


def test_results_keep_the_rows_order_and_their_own_arguments() -> None:
    t_env = _environment()
    t_env.create_temporary_function("lookup", udf(Lookup(), result_type=DataTypes.STRING()))
    t_env.create_temporary_function("flaky", flaky)
    sql = (
        "SELECT k, lookup(k) AS looked, UPPER(lookup(k)) AS up, flaky(v, 'order') AS f FROM src WHERE v <> 6"
    )
    assert _rows(t_env, sql) == [
        (k, None if k == "3" else f"db_{k}", None if k == "3" else f"DB_{k}", int(k) * 10 + 3)
        for k in "0123457"
    ]
    # the Table API's call() by name, and a lambda-free decorator form
    table = t_env.from_path("src").select(col("k"), call("lookup", col("k")).alias("x"))
    with table.execute().collect() as rows:
        assert [tuple(r) for r in rows][:3] == [("0", "db_0"), ("1", "db_1"), ("2", "db_2")]


class InFlight(AsyncScalarFunction):
    """Returns how many calls were in flight when it started (this subtask's process)."""

    def open(self, function_context):  # type: ignore[no-untyped-def]
        self.now = 0

    async def eval(self, v):  # type: ignore[no-untyped-def]
        self.now += 1
        seen = self.now
        await asyncio.sleep(0.05)
        self.now -= 1
        return seen


@pytest.mark.parametrize("capacity", [1, 3])
def test_at_most_max_concurrent_operations_calls_are_in_flight(capacity: int) -> None:
    t_env = _environment(**{"table.exec.async-scalar.max-concurrent-operations": str(capacity)})
    t_env.create_temporary_function("in_flight", udf(InFlight(), result_type=DataTypes.INT()))
    seen = [row[1] for row in _rows(t_env, "SELECT v, in_flight(v) FROM src")]
    assert max(seen) == capacity  # the calls overlap, up to the limit and no further


def test_a_call_that_keeps_raising_fails_the_task_naming_the_row() -> None:
    t_env = _environment(**{"table.exec.async-scalar.max-attempts": "1"})  # 2 calls; 3 needed
    t_env.create_temporary_function("flaky", flaky)
    with pytest.raises(Exception) as failure:
        _rows(t_env, "SELECT flaky(v, 'attempts') FROM src WHERE v > 4")
    text = str(failure.value)
    assert "operator 'Calc'" in text and "on record ('+I', ('5', 5))" in text
    cause = failure.value.__cause__
    while cause is not None and not isinstance(cause, RuntimeError):
        cause = cause.__cause__
    assert cause is not None and "try again (5)" in str(cause)

    # no retry at all
    t_env = _environment(**{"table.exec.async-scalar.retry-strategy": "NO_RETRY"})
    t_env.create_temporary_function("flaky", flaky)
    with pytest.raises(Exception, match=r"on record \('\+I', \('0', 0\)\)"):
        _rows(t_env, "SELECT flaky(v, 'no-retry') FROM src")


@udf(result_type=DataTypes.INT())
async def slow(x):  # type: ignore[no-untyped-def]
    await asyncio.sleep(600 if x == 2 else 0)
    return x


def test_a_call_over_the_timeout_fails_the_task() -> None:
    t_env = _environment(**{"table.exec.async-scalar.timeout": "300 ms"})
    t_env.create_temporary_function("slow", slow)
    started = time.monotonic()
    with pytest.raises(Exception) as failure:
        _rows(t_env, "SELECT slow(v) FROM src")
    assert time.monotonic() - started < 120  # not the call's 600 s
    assert "on record ('+I', ('2', 2))" in str(failure.value)
    cause = failure.value.__cause__
    while cause is not None and not isinstance(cause, TimeoutError):
        cause = cause.__cause__
    assert cause is not None and "table.exec.async-scalar.timeout" in str(cause)


@udf(result_type=DataTypes.INT())
async def positive_only(x):  # type: ignore[no-untyped-def]
    if x <= 3:
        raise ValueError(f"called on a filtered row {x}")
    return -x


def test_the_filter_runs_before_the_calls_and_a_bad_option_fails_in_one_line() -> None:
    t_env = _environment()
    t_env.create_temporary_function("positive_only", positive_only)
    assert _rows(t_env, "SELECT v, positive_only(v) FROM src WHERE v > 3") == [(v, -v) for v in range(4, 8)]
    # an async call in the condition runs for every row, before the filter
    assert _rows(t_env, "SELECT v FROM src WHERE v > 5 AND positive_only(v + 4) < -9") == [(6,), (7,)]

    t_env = _environment(**{"table.exec.async-scalar.retry-strategy": "SOMETIMES"})
    t_env.create_temporary_function("positive_only", positive_only)
    with pytest.raises(ValueError, match=r"strategy='SOMETIMES': expected one of NO_RETRY, FIXED_DELAY"):
        _rows(t_env, "SELECT positive_only(v) FROM src")


def test_an_async_function_is_not_a_pandas_function() -> None:
    with pytest.raises(ValueError, match="Async scalar functions do not support pandas func_type"):
        udf(slow._function, result_type=DataTypes.INT(), func_type="pandas")
