"""TwoPhaseCommitSinkFunction through the operator: transactions pre-committed at checkpoints,
committed on completion; after a recovery the restored checkpoint's transactions are
committed again and the open one aborted (Flink's TwoPhaseCommitSinkFunction protocol)."""

from __future__ import annotations

import pickle
from typing import Any

from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.functions import TwoPhaseCommitSinkFunction
from millstream.testing import OperatorHarness

LOG: list[tuple[str, Any]] = []


class Recording(TwoPhaseCommitSinkFunction):
    def __init__(self) -> None:
        self.next_id = 0

    def begin_transaction(self):  # type: ignore[no-untyped-def]
        self.next_id += 1
        LOG.append(("begin", self.next_id))
        return {"id": self.next_id, "values": []}

    def invoke(self, transaction, value, context):  # type: ignore[no-untyped-def]
        transaction["values"].append(value)

    def pre_commit(self, transaction):  # type: ignore[no-untyped-def]
        LOG.append(("pre_commit", transaction["id"]))

    def commit(self, transaction):  # type: ignore[no-untyped-def]
        LOG.append(("commit", transaction["id"], tuple(transaction["values"])))

    def abort(self, transaction):  # type: ignore[no-untyped-def]
        LOG.append(("abort", transaction["id"]))


def harness(**kwargs: Any) -> OperatorHarness:
    env = StreamExecutionEnvironment.get_execution_environment()
    sink = env.from_collection([]).add_sink(Recording())
    return OperatorHarness.of(sink._stream, **kwargs)


def commits() -> list[tuple[Any, ...]]:
    return [entry for entry in LOG if entry[0] == "commit"]


def test_transactions_commit_only_when_their_checkpoint_completes():
    LOG.clear()
    h = harness()
    h.process_element("a")
    h.snapshot(1)
    h.process_element("b")
    h.snapshot(2)
    assert commits() == []
    h.operator.notify_checkpoint_complete(1)
    assert commits() == [("commit", 1, ("a",))]
    h.operator.notify_checkpoint_complete(2)
    assert commits() == [("commit", 1, ("a",)), ("commit", 2, ("b",))]


def test_a_recovery_commits_the_restored_checkpoints_transactions_and_aborts_the_open_one():
    LOG.clear()
    h = harness()
    h.process_element("a")
    state = pickle.loads(pickle.dumps(h.snapshot(1)))  # checkpoint 1 completes, its notification is lost
    h.process_element("b")  # in the transaction begun after checkpoint 1
    LOG.clear()
    harness(restored_state=state)
    assert ("commit", 1, ("a",)) in LOG  # recover_and_commit
    assert ("abort", 2) in LOG  # the transaction open at the checkpoint (it held "b")
    assert not [e for e in LOG if e[0] == "commit" and "b" in e[2]]


def test_end_of_input_commits_everything_and_a_failed_task_aborts_its_open_transaction():
    LOG.clear()
    h = harness()
    h.process_element("a")
    h.snapshot(1)
    h.process_element("b")
    h.end_input()
    assert commits() == [("commit", 1, ("a",)), ("commit", 2, ("b",))]
    LOG.clear()
    failed = harness()
    failed.process_element("c")
    failed.close()  # the task fails: no end of input
    assert ("abort", 1) in LOG and commits() == []
