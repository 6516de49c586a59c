"""Mini-batch group aggregation: the keyed process operator hands a function with a positive
``key_group_size`` each chunk of a batch grouped by key, and the group aggregate reads and
writes its state once per key and emits one update for the whole group, as Flink's
MiniBatchGroupAggFunction does in ``finishBundle``."""

from __future__ import annotations

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.planner import GroupAggregateFunction
from millstream.testing.operator_harness import OperatorHarness


def harness(group_size: int, state_backend: str = "hashmap") -> OperatorHarness:
    function = GroupAggregateFunction(
        [("SUM", lambda row: row[1], DataTypes.BIGINT())], retracting=True, batch=False, key_count=1
    )
    function.key_group_size = group_size
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("+I", ("a", 1))]).key_by(lambda kv: (kv[1][0],)).process(function)
    return OperatorHarness.of(stream, state_backend=state_backend)


@pytest.mark.parametrize("state_backend", ["hashmap", "rocksdb"])
def test_one_update_per_key_and_mini_batch(state_backend):
    h = harness(1000, state_backend)
    h.process_elements([(("+I", ("a", 1)), 1), (("+I", ("b", 2)), 2), (("+I", ("a", 3)), 3)])
    assert h.values() == [("+I", ("a", 4)), ("+I", ("b", 2))]  # keys in order of first appearance
    h.process_elements([(("+I", ("a", 5)), 4), (("-U", ("b", 2)), 5), (("+I", ("b", 2)), 6)])
    # b's group leaves its sum unchanged: nothing is emitted for it (as Flink's equaliser check)
    assert h.values() == [("-U", ("a", 4)), ("+U", ("a", 9))]  # values() takes the new outputs
    h.process_elements([(("-D", ("b", 2)), 7)])
    assert h.values() == [("-D", ("b", 2))]
    h.close()


def test_without_mini_batch_every_change_is_emitted_in_order():
    h = harness(0)
    h.process_elements([(("+I", ("a", 1)), 1), (("+I", ("b", 2)), 2), (("+I", ("a", 3)), 3)])
    assert h.values() == [("+I", ("a", 1)), ("+I", ("b", 2)), ("-U", ("a", 1)), ("+U", ("a", 4))]
    h.close()


def test_a_mini_batch_holds_at_most_its_size_of_records():
    h = harness(2)
    h.process_elements([(("+I", ("a", 1)), 1), (("+I", ("b", 2)), 2), (("+I", ("a", 3)), 3)])
    assert h.values() == [("+I", ("a", 1)), ("+I", ("b", 2)), ("-U", ("a", 1)), ("+U", ("a", 4))]
    h.close()


def test_a_failing_group_names_the_position_of_its_first_record():
    function = GroupAggregateFunction(
        [("SUM", lambda row: 1 // row[1], DataTypes.BIGINT())], retracting=False, batch=False, key_count=1
    )
    function.key_group_size = 100
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("+I", ("a", 1))]).key_by(lambda kv: (kv[1][0],)).process(function)
    h = OperatorHarness.of(stream)
    with pytest.raises(Exception, match=r"on record \('\+I', \('b', 0\)\) at input position 1") as failure:
        h.process_elements([(("+I", ("a", 1)), 1), (("+I", ("b", 0)), 2), (("+I", ("a", 1)), 3)])
    assert isinstance(failure.value.__cause__, ZeroDivisionError)
    h.close()


def test_mini_batch_options_are_checked_as_flink_checks_them():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("table.exec.mini-batch.enabled", "true")
    t_env.get_config().set("table.exec.mini-batch.size", "100")
    t_env.create_temporary_view("t", t_env.from_elements([(1, 2)], ["k", "v"]))
    with pytest.raises(ValueError, match="allow-latency must be a positive duration"):
        t_env.execute_sql("SELECT k, SUM(v) FROM t GROUP BY k")
    t_env.get_config().set("table.exec.mini-batch.allow-latency", "2 s")
    t_env.get_config().set("table.exec.mini-batch.size", "0")
    with pytest.raises(ValueError, match=r"mini-batch\.size must be a positive number"):
        t_env.execute_sql("SELECT k, SUM(v) FROM t GROUP BY k")
