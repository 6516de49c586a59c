"""Mini-batch group aggregation: the keyed process operator hands a function with a positive
``key_group_size`` each chunk of a batch grouped by key, and the group aggregate reads and
writes its state once per key and emits one update for the whole group, as Flink's
MiniBatchGroupAggFunction does in ``finishBundle``."""

from __future__ import annotations

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.runtime.group_agg import GroupAggregateFunction
from millstream.testing.operator_harness import OperatorHarness


def harness(group_size: int, latency_ms: int = 0, state_backend: str = "hashmap", fail: bool = False):
    argument = (lambda row: 1 // row[1]) if fail else (lambda row: row[1])
    function = GroupAggregateFunction(
        [("SUM", argument, DataTypes.BIGINT())], retracting=True, batch=False, key_count=1
    )
    function.key_group_size = group_size
    function.key_group_latency_ms = latency_ms
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("+I", ("a", 1))]).key_by(lambda kv: (kv[1][0],)).process(function)
    return OperatorHarness.of(stream, state_backend=state_backend)


def changes(*items):
    return [((kind, (key, value)), ts) for ts, (kind, key, value) in enumerate(items)]


@pytest.mark.parametrize("state_backend", ["hashmap", "rocksdb"])
def test_one_update_per_key_and_mini_batch(state_backend):
    h = harness(3, state_backend=state_backend)
    h.process_elements(changes(("+I", "a", 1), ("+I", "b", 2)))
    assert h.values() == []  # held: the mini-batch is not full
    h.process_elements(changes(("+I", "a", 3)))
    assert h.values() == [("+I", ("a", 4)), ("+I", ("b", 2))]  # keys in order of first appearance
    h.process_elements(changes(("+I", "a", 5), ("-U", "b", 2), ("+I", "b", 2)))
    # b's group leaves its sum unchanged: nothing is emitted for it (as Flink's equaliser check)
    assert h.values() == [("-U", ("a", 4)), ("+U", ("a", 9))]
    h.process_elements(changes(("-D", "b", 2)))
    h.end_input()  # the end of input ends the mini-batch
    assert h.values() == [("-D", ("b", 2))]
    h.close()


def test_a_mini_batch_ends_after_its_latency_and_before_watermarks_and_snapshots():
    h = harness(1000, latency_ms=500)
    h.set_processing_time(1_000)
    h.process_elements(changes(("+I", "a", 1), ("+I", "a", 2)))
    h.set_processing_time(1_499)
    assert h.values() == []
    h.set_processing_time(1_500)  # allow-latency after the first held record
    assert h.values() == [("+I", ("a", 3))]
    h.process_elements(changes(("+I", "a", 4)))
    h.process_watermark(10)
    assert [kind for kind, *_ in h.output] == ["record", "record", "watermark"]  # the records first
    assert h.values() == [("-U", ("a", 3)), ("+U", ("a", 7))]
    h.process_elements(changes(("+I", "b", 1)))
    snapshot = h.snapshot()  # a checkpoint: the held record's effect goes into the state
    assert h.values() == [("+I", ("b", 1))]
    h.close()
    restored = OperatorHarness.of(
        StreamExecutionEnvironment.get_execution_environment()
        .from_collection([("+I", ("a", 1))])
        .key_by(lambda kv: (kv[1][0],))
        .process(h.operator._function),
        restored_state=snapshot,
    )
    restored.process_elements(changes(("+I", "b", 5)))
    restored.end_input()
    assert restored.values() == [("-U", ("b", 1)), ("+U", ("b", 6))]
    restored.close()


def test_without_mini_batch_every_change_is_emitted_in_order():
    h = harness(0)
    h.process_elements(changes(("+I", "a", 1), ("+I", "b", 2), ("+I", "a", 3)))
    assert h.values() == [("+I", ("a", 1)), ("+I", ("b", 2)), ("-U", ("a", 1)), ("+U", ("a", 4))]
    h.close()


def test_a_full_mini_batch_is_processed_in_chunks_of_its_size():
    h = harness(2)
    h.process_elements(changes(("+I", "a", 1), ("+I", "b", 2), ("+I", "a", 3)))
    assert h.values() == [("+I", ("a", 1)), ("+I", ("b", 2))]
    h.end_input()
    assert h.values() == [("-U", ("a", 1)), ("+U", ("a", 4))]
    h.close()


def test_a_failing_group_names_the_position_of_its_first_record():
    h = harness(3, fail=True)
    with pytest.raises(Exception, match=r"on record \('\+I', \('b', 0\)\) at input position 1") as failure:
        h.process_elements(changes(("+I", "a", 1), ("+I", "b", 0), ("+I", "a", 1)))
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
