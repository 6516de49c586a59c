"""Failures: clear messages naming operator, subtask and record; nothing left behind."""

from __future__ import annotations

import traceback

import pytest

from millstream.common import JobExecutionException, Types
from millstream.datastream import MapFunction, SourceFunction
from tests.conftest import make_env


def test_user_exception_names_operator_subtask_and_record(exchange):
    env = make_env(2, taskmanager__network__local_exchange=exchange)
    env.from_collection([4, 2, 0, 1] * 3).rebalance().map(lambda x: 10 // x).name("divide").print()
    with pytest.raises(JobExecutionException) as info:
        env.execute("failing")
    message = str(info.value)
    assert "operator 'divide'" in message
    assert "subtask divide -> Print to Std. Out (" in message and "/2)#0" in message
    assert "on record 0 at input position" in message
    chain = []
    error = info.value
    while error is not None:
        chain.append(error)
        error = error.__cause__
    assert isinstance(chain[-1], ZeroDivisionError)
    text = "".join(traceback.format_exception(info.value))
    assert "10 // x" in text  # the user's own line is in the traceback


def test_error_in_open_fails_the_job():
    class Broken(MapFunction):
        def open(self, ctx):
            raise RuntimeError("cannot connect")

        def map(self, value):
            return value

    env = make_env(1)
    env.from_collection([1]).map(Broken()).print()
    with pytest.raises(JobExecutionException, match="open\\(\\) raised: operator 'Map'") as info:
        env.execute()
    assert "cannot connect" in str(info.value.__cause__.__cause__)


def test_failing_key_selector_names_the_record():
    env = make_env(2)
    env.from_collection([{"k": 1}, {"x": 2}]).key_by(lambda d: d["k"]).map(lambda d: d).print()
    with pytest.raises(JobExecutionException, match="key selector") as info:
        env.execute()
    assert "{'x': 2}" in str(info.value)


def test_failure_cancels_the_other_tasks_of_an_unbounded_job():
    from millstream.common import WatermarkStrategy
    from millstream.datastream.connectors.datagen import DataGeneratorSource

    env = make_env(2)
    endless = env.from_source(
        DataGeneratorSource(lambda i: i, None), WatermarkStrategy.no_watermarks(), "endless"
    )
    other = env.from_collection([1, 0]).map(lambda x: 1 // x).name("boom")
    endless.map(lambda x: x).union(other).print()
    with pytest.raises(JobExecutionException, match="boom"):
        env.execute()  # returns although the generator never ends: it was cancelled


def test_batch_mode_with_an_unbounded_source_is_a_clear_error():
    from millstream.datastream import RuntimeExecutionMode

    env = make_env(1)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)

    class Endless(SourceFunction):
        def run(self, ctx):  # type: ignore[no-untyped-def]
            while True:
                ctx.collect(1)

        def cancel(self) -> None:
            pass

    env.add_source(Endless()).print()
    with pytest.raises(ValueError, match=r"UNBOUNDED source .*'execution\.runtime-mode' set to 'BATCH'"):
        env.execute()


def test_a_failing_built_in_aggregation_names_the_record_and_its_position():
    """``sum`` of a declared tuple type folds with compiled code; a field it cannot add still
    fails the job naming the operator, the record and its position in the input."""
    env = make_env(1)
    rows = [("a", 1), ("b", 2), ("a", 3), ("a", None), ("b", 5)]
    pairs = env.from_collection(rows, type_info=Types.TUPLE([Types.STRING(), Types.LONG()]))
    keyed = pairs.key_by(lambda r: r[0])
    keyed.sum(1).name("total").print()
    with pytest.raises(JobExecutionException) as info:
        env.execute()
    message = str(info.value)
    assert "operator 'total'" in message
    assert "on record ('a', None) at input position 3" in message
