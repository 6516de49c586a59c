"""Async I/O one operator at a time: the element queues (ordered, unordered between
watermarks, capacity), and the AsyncWaitOperator on its event loop (back-pressure, timeouts,
retries, failures, snapshots with elements in flight, the end of input).

The operator runs with a mailbox the test drives by hand: a call's outcome arrives as a mail,
which the test runs on its own thread (the task thread here). Calls wait on gates the test
opens, so which call completes when is the test's choice, never a race.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from millstream.common import Time
from millstream.datastream import AsyncDataStream, AsyncFunction, AsyncRetryStrategy, async_retry_predicates
from millstream.graph.job_graph_generator import create_job_graph
from millstream.graph.operator_specs import AsyncWaitSpec
from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.async_queue import (
    STATUS,
    WATERMARK,
    OrderedStreamElementQueue,
    UnorderedStreamElementQueue,
)
from millstream.runtime.operators.async_wait import AsyncWaitOperator
from millstream.runtime.operators.base import OperatorContext, StreamingRuntimeContext
from millstream.runtime.operators.elements import Watermark, WatermarkStatus
from millstream.runtime.state.snapshot import OperatorSnapshot
from tests.conftest import make_env

DEADLINE_S = 10.0

# -- the queues --------------------------------------------------------------------------------


def test_the_ordered_queue_lets_elements_out_in_input_order_only():
    q = OrderedStreamElementQueue(3)
    a, b = q.put_record("a", 1, 0), q.put_record("b", 2, 1)
    q.put_marker(WATERMARK, 5)
    assert not q.has_room()
    q.complete(b, ["B"])
    assert q.pop_completed() == []  # b waits for a
    q.complete(a, ["A"])
    out = q.pop_completed()
    assert [(e.kind, e.value) for e in out] == [("record", "a"), ("record", "b"), ("watermark", 5)]
    assert q.is_empty() and q.has_room()


def test_the_unordered_queue_lets_records_out_as_they_complete_but_never_across_a_watermark():
    q = UnorderedStreamElementQueue(10)
    a, b = q.put_record("a", None, 0), q.put_record("b", None, 1)
    q.put_marker(WATERMARK, 100)
    c = q.put_record("c", None, 2)
    q.complete(c, ["C"])
    q.complete(b, ["B"])
    assert [e.value for e in q.pop_completed()] == ["b"]  # c is behind the watermark
    q.complete(a, ["A"])
    assert [e.value for e in q.pop_completed()] == ["a", 100, "c"]
    assert q.is_empty()


def test_the_unordered_queue_keeps_consecutive_markers_in_order_and_counts_them():
    q = UnorderedStreamElementQueue(4)
    q.put_marker(WATERMARK, 1)
    q.put_marker(STATUS, WatermarkStatus.IDLE)
    q.put_marker(WATERMARK, 2)
    r = q.put_record("r", None, 0)
    assert not q.has_room()  # markers take room, as in Flink
    assert [e.value for e in q.pop_completed()] == [1, WatermarkStatus.IDLE, 2]
    q.complete(r, [])
    assert [e.value for e in q.pop_completed()] == ["r"] and q.is_empty()


def test_the_queues_keep_what_a_checkpoint_needs_in_an_order_that_keeps_the_watermarks_between():
    for q in (OrderedStreamElementQueue(10), UnorderedStreamElementQueue(10)):
        a = q.put_record("a", 7, 0)
        q.put_marker(WATERMARK, 8)
        q.put_record("b", 9, 1)
        q.complete(a, ["A"])  # completed, not emitted yet: still kept
        assert q.elements() == [("record", "a", 7), ("watermark", 8), ("record", "b", 9)]


def test_a_queue_needs_room_for_one_element():
    with pytest.raises(ValueError, match="should be greater than 0"):
        OrderedStreamElementQueue(0)


# -- the operator ------------------------------------------------------------------------------


class Gated(AsyncFunction):
    """Each call waits for its value's gate (a future the test resolves, with the results or an
    exception), counting the calls in flight."""

    def __init__(self) -> None:
        self.gates: dict[Any, concurrent.futures.Future[Any]] = {}
        self.started: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()

    def gate(self, value: Any) -> concurrent.futures.Future[Any]:
        with self.lock:
            return self.gates.setdefault(value, concurrent.futures.Future())

    def open_gate(self, value: Any, results: Any = None, error: BaseException | None = None) -> None:
        if error is not None:
            self.gate(value).set_exception(error)
        else:
            self.gate(value).set_result([f"r{value}"] if results is None else results)

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        self.started.put(value)
        try:
            return await asyncio.wrap_future(self.gate(value))
        finally:
            self.in_flight -= 1


class Driver:
    """An opened AsyncWaitOperator, its mails run by the test, its output recorded."""

    def __init__(
        self, function: Any, restored: OperatorSnapshot | None = None, open_now: bool = True, **spec: Any
    ) -> None:
        self.mails: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.output: list[Any] = []
        location = TaskLocation("job", "Source -> async wait operator", 0, 1)
        context = OperatorContext(
            name="async wait operator",
            location=location,
            runtime_context=StreamingRuntimeContext("task", 0, 1, 128, 0),
            mailbox=lambda action, description: self.mails.put(action),
        )
        settings = {"timeout_ms": 0, "capacity": 10, "ordered": True, **spec}
        self.op = AsyncWaitOperator(context, AsyncWaitSpec(function, **settings), self._emit)
        self.op.emit_watermark = lambda wm: self.output.append(("watermark", wm.timestamp))
        self.op.emit_watermark_status = lambda status: self.output.append(("status", status))
        if restored is not None:
            self.op.restore_state(restored)
        if open_now:
            self.op.open()

    def _emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        stamps = timestamps if timestamps is not None else [None] * len(values)
        self.output.extend(zip(values, stamps, strict=True))

    def run_mails_until(self, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while not condition():
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"condition not met; output {self.output}"
            try:
                self.mails.get(timeout=remaining)()
            except queue.Empty:
                pass

    def records(self) -> list[Any]:
        return [o for o in self.output if o[0] not in ("watermark", "status")]

    def close(self) -> None:
        self.op.close()
        self.op.dispose()


@pytest.fixture
def drivers() -> Iterator[Callable[..., Driver]]:
    made: list[Driver] = []

    def make(function: Any, **spec: Any) -> Driver:
        made.append(Driver(function, **spec))
        return made[-1]

    yield make
    for driver in made:
        driver.close()


def wait_started(function: Gated, count: int) -> list[Any]:
    return [function.started.get(timeout=DEADLINE_S) for _ in range(count)]


def test_ordered_mode_emits_in_input_order_with_each_input_s_timestamp(drivers):
    f = Gated()
    d = drivers(f, ordered=True)
    d.op.process_batch([1, 2, 3], [10, 20, 30])
    wait_started(f, 3)
    f.open_gate(3, ["c", "cc"])
    f.open_gate(2)
    d.run_mails_until(lambda: f.gate(2).done() and d.mails.empty())
    assert d.output == []  # 1 is still in flight
    f.open_gate(1)
    d.run_mails_until(lambda: len(d.output) == 4)
    assert d.output == [("r1", 10), ("r2", 20), ("c", 30), ("cc", 30)]


def test_unordered_mode_emits_as_calls_complete_and_holds_records_behind_a_watermark(drivers):
    f = Gated()
    d = drivers(f, ordered=False)
    d.op.process_batch([1, 2], None)
    d.op.process_watermark(Watermark(50))
    d.op.process_batch([3], None)
    wait_started(f, 3)
    f.open_gate(3)
    f.open_gate(2)
    d.run_mails_until(lambda: len(d.output) == 1)
    assert d.output == [("r2", None)]  # r3 waits behind the watermark, r2 does not wait for r1
    f.open_gate(1)
    d.run_mails_until(lambda: len(d.output) == 4)
    assert d.output == [("r2", None), ("r1", None), ("watermark", 50), ("r3", None)]


def test_a_watermark_with_nothing_in_flight_leaves_at_once_and_statuses_queue_like_watermarks(drivers):
    f = Gated()
    d = drivers(f, ordered=False)
    d.op.process_watermark(Watermark(5))
    assert d.output == [("watermark", 5)]
    d.op.process_batch([1], None)
    d.op.process_watermark_status(WatermarkStatus.IDLE)
    assert d.output == [("watermark", 5)]  # the status waits for the record before it
    f.open_gate(1)
    d.run_mails_until(lambda: len(d.output) == 3)
    assert d.output[1:] == [("r1", None), ("status", WatermarkStatus.IDLE)]


def test_a_full_queue_blocks_the_task_until_a_call_completes(drivers):
    f = Gated()
    d = drivers(f, capacity=2)
    done = threading.Event()

    def feed() -> None:
        d.op.process_batch([1, 2, 3], None)
        done.set()

    feeder = threading.Thread(target=feed)  # the task thread, blocked while the queue is full
    feeder.start()
    assert wait_started(f, 2) == [1, 2]
    assert not done.is_set() and d.op._queue.size == 2
    f.open_gate(1)  # room for 3: the blocked task takes r1's outcome in and emits it
    assert wait_started(f, 1) == [3]
    assert done.wait(DEADLINE_S)
    feeder.join()
    f.open_gate(2)
    f.open_gate(3)
    d.run_mails_until(lambda: len(d.output) == 3)
    assert d.output == [("r1", None), ("r2", None), ("r3", None)]
    assert f.most_in_flight == 2


def test_finish_waits_for_every_call_in_flight(drivers):
    class Quick(AsyncFunction):
        async def async_invoke(self, value):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0.01 * (5 - value))
            return [value]

    d = drivers(Quick(), ordered=False)
    d.op.process_batch(list(range(5)), None)
    d.op.process_watermark(Watermark(2**63 - 1))
    d.op.finish()
    assert sorted(d.records()) == [(v, None) for v in range(5)]
    assert d.output[-1] == ("watermark", 2**63 - 1)


def test_a_timed_out_call_fails_with_pyflinks_message_naming_operator_subtask_and_record(drivers):
    f = Gated()
    d = drivers(f, timeout_ms=30)
    d.op.process_batch([1, 2], None)
    f.open_gate(1)
    with pytest.raises(UserFunctionError) as info:
        d.run_mails_until(lambda: False)
    message = str(info.value)
    assert message.startswith("the async call timed out after 30 ms and timeout() raised: ")
    assert "operator 'async wait operator' in subtask Source -> async wait operator (1/1)#0" in message
    assert "on record 2 at input position 1" in message
    cause = info.value.__cause__
    assert isinstance(cause, TimeoutError)
    assert str(cause) == "Async function call has timed out for input: 2"  # PyFlink's text
    assert d.output == [("r1", None)]


def test_timeout_results_stand_for_the_call_s(drivers):
    class WithDefault(Gated):
        def timeout(self, value):  # type: ignore[no-untyped-def]
            return [f"default {value}"]

    f = WithDefault()
    d = drivers(f, timeout_ms=30)
    d.op.process_batch([1], [4])
    d.run_mails_until(lambda: len(d.output) == 1)
    assert d.output == [("default 1", 4)]


def test_an_exception_of_async_invoke_fails_with_it_as_the_cause(drivers):
    f = Gated()
    d = drivers(f)
    d.op.process_batch(["x"], None)
    f.open_gate("x", error=KeyError("no such user"))
    with pytest.raises(UserFunctionError, match=r"^async_invoke\(\) raised: .* on record 'x'") as info:
        d.run_mails_until(lambda: False)
    assert isinstance(info.value.__cause__, KeyError)


def test_a_result_that_is_no_collection_fails_as_in_pyflink(drivers):
    f = Gated()
    d = drivers(f)
    d.op.process_batch([1], None)
    f.gate(1).set_result(None)
    with pytest.raises(UserFunctionError) as info:
        d.run_mails_until(lambda: False)
    assert "The result of AsyncFunction cannot be none" in str(info.value.__cause__)


class Flaky(AsyncFunction):
    """Fails (or returns nothing) for the first ``failures`` attempts of each value."""

    def __init__(self, failures: int, empty: bool = False) -> None:
        self.failures = failures
        self.empty = empty
        self.attempts: dict[Any, int] = {}

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        self.attempts[value] = self.attempts.get(value, 0) + 1
        if self.attempts[value] <= self.failures:
            if self.empty:
                return []
            raise ConnectionError(f"attempt {self.attempts[value]}")
        return [value]


def retrying(max_attempts: int, backoff_ms: int = 1, **predicates: Any) -> Any:
    return AsyncRetryStrategy.fixed_delay(
        max_attempts,
        backoff_ms,
        predicates.get("result_predicate"),
        predicates.get("exception_predicate"),
    )


def test_retries_on_the_exception_predicate_until_a_call_succeeds(drivers):
    f = Flaky(failures=2)
    on_connection_errors = functools.partial(
        async_retry_predicates.exception_type_predicate, expected_error_type=ConnectionError
    )
    d = drivers(f, timeout_ms=5000, retry_strategy=retrying(3, exception_predicate=on_connection_errors))
    d.op.process_batch([1, 2], None)
    d.run_mails_until(lambda: len(d.output) == 2)
    assert d.output == [(1, None), (2, None)] and f.attempts == {1: 3, 2: 3}


def test_retries_on_the_result_predicate_and_fails_when_they_run_out(drivers):
    f = Flaky(failures=5, empty=True)
    d = drivers(
        f,
        timeout_ms=5000,
        retry_strategy=retrying(2, result_predicate=async_retry_predicates.empty_result_predicate),
    )
    d.op.process_batch([1], None)
    d.run_mails_until(d.op._queue.is_empty)  # the last attempt's (empty) results are the element's
    assert d.output == [] and f.attempts == {1: 3}  # can_retry(1), (2) true: 3 attempts, PyFlink's count

    g = Flaky(failures=5)
    e = drivers(
        g,
        timeout_ms=5000,
        retry_strategy=retrying(1, exception_predicate=async_retry_predicates.has_exception_predicate),
    )
    e.op.process_batch([1], None)
    with pytest.raises(UserFunctionError, match=r"async_invoke\(\) raised") as info:
        e.run_mails_until(lambda: False)
    assert str(info.value.__cause__) == "attempt 2"


def test_the_end_of_input_waits_for_retries_as_pyflink_does(drivers):
    # PyFlink 2.3.0 keeps retrying after the end of input (a bounded job of 20 elements failing
    # twice each, fixed_delay(3, 5 ms) on every exception, prints all 20 with 3 attempts);
    # Flink's Java operator would stop retrying there and fail
    f = Flaky(failures=2)
    strategy = retrying(3, backoff_ms=20, exception_predicate=async_retry_predicates.has_exception_predicate)
    d = drivers(f, timeout_ms=60_000, retry_strategy=strategy)
    d.op.process_batch([1, 2], None)
    d.op.finish()
    assert d.output == [(1, None), (2, None)] and f.attempts == {1: 3, 2: 3}


def test_a_snapshot_keeps_the_elements_in_flight_and_a_restore_calls_them_again(drivers):
    f = Gated()
    d = drivers(f, ordered=True)
    d.op.process_batch([1, 2], [1, 2])
    d.op.process_watermark(Watermark(2))
    d.op.process_batch([3], [3])
    f.open_gate(1)
    f.open_gate(3)
    d.run_mails_until(lambda: d.output == [("r1", 1)])
    snapshot = d.op.snapshot_state(1)  # 1 emitted; 2 in flight, the watermark, 3 completed
    g = Gated()
    for value in (2, 3):
        g.open_gate(value, [f"again {value}"])
    restored = drivers(g, ordered=True, restored=snapshot)
    restored.run_mails_until(lambda: len(restored.output) == 3)
    assert restored.output == [("again 2", 2), ("watermark", 2), ("again 3", 3)]
    assert sorted(wait_started(g, 2)) == [2, 3]  # called again; 1 is not


class LoopBound(AsyncFunction):
    """A client built in ``open`` on the subtask's loop (as an asyncpg pool is) and closed in
    ``close``; ``asyncio.run`` in ``open`` works too, as in PyFlink, whose ``open`` runs outside
    any event loop."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.client = asyncio.get_event_loop().run_until_complete(self._connect())
        asyncio.run(asyncio.sleep(0))  # a loop of its own, as in PyFlink's open

    async def _connect(self):  # type: ignore[no-untyped-def]
        return {"loop": asyncio.get_running_loop(), "open": True}

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        return [asyncio.get_running_loop() is self.client["loop"]]

    def close(self):  # type: ignore[no-untyped-def]
        asyncio.get_event_loop().run_until_complete(self._disconnect())

    async def _disconnect(self):  # type: ignore[no-untyped-def]
        self.client["open"] = False


def test_open_and_close_run_on_the_loop_s_thread_with_the_loop_as_its_current_loop():
    f = LoopBound()
    d = Driver(f)
    try:
        d.op.process_batch([1], None)
        d.run_mails_until(lambda: len(d.output) == 1)
        assert d.output == [(True, None)]  # the call ran on the loop the client was built on
    finally:
        d.close()
    assert f.client["open"] is False


def test_a_failing_open_fails_the_operator_and_close_still_stops_the_loop():
    class Broken(AsyncFunction):
        def open(self, runtime_context):  # type: ignore[no-untyped-def]
            raise ConnectionRefusedError("no service")

        async def async_invoke(self, value):  # type: ignore[no-untyped-def]
            return [value]

    d = Driver(Broken(), open_now=False)
    with pytest.raises(UserFunctionError, match=r"open\(\) raised") as info:
        d.op.open()
    assert isinstance(info.value.__cause__, ConnectionRefusedError)
    d.close()  # as the task closes its chain after a failure
    assert not [t.name for t in threading.enumerate() if t.name.startswith("AsyncIO - ")]


# -- the API -----------------------------------------------------------------------------------


class Echo(AsyncFunction):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        return [value]


def test_the_api_checks_its_arguments_with_pyflinks_messages():
    ds = make_env(1).from_collection([1])

    class NotAsync(AsyncFunction):
        def async_invoke(self, value):  # type: ignore[no-untyped-def, override]
            return [value]

    with pytest.raises(Exception, match="should be declared as 'async def'"):
        AsyncDataStream.ordered_wait(ds, NotAsync(), Time.seconds(1))
    strategy = retrying(2, exception_predicate=async_retry_predicates.has_exception_predicate)
    with pytest.raises(Exception, match=r"^Timeout should be configured when do async with retry\.$"):
        AsyncDataStream.unordered_wait_with_retry(ds, Echo(), Time.milliseconds(0), strategy)
    with pytest.raises(Exception, match=r"^Async retry strategy should not be None\.$"):
        AsyncDataStream.unordered_wait_with_retry(ds, Echo(), Time.seconds(1), None)  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=r"max_attempts should be greater than zero\."):
        AsyncRetryStrategy.fixed_delay(0, 10, None, None)


def test_the_operator_takes_pyflinks_settings():
    ds = make_env(1).from_collection([1])
    strategy = retrying(2, exception_predicate=async_retry_predicates.has_exception_predicate)
    out = AsyncDataStream.unordered_wait_with_retry(ds, Echo(), Time.seconds(2), strategy, capacity=7)
    spec = out._transformation.operator
    assert (spec.timeout_ms, spec.capacity, spec.ordered, spec.retry_strategy) == (2000, 7, False, strategy)
    assert out.get_name() == "async wait operator"
    no_retry = AsyncDataStream.ordered_wait(ds, Echo(), Time.seconds(1))._transformation.operator
    assert no_retry.ordered and no_retry.capacity == 100 and no_retry.retry_strategy is None
    assert AsyncRetryStrategy.no_restart().can_retry(1) is False


def test_exponential_backoff_grows_by_its_multiplier_up_to_its_maximum():
    strategy = AsyncRetryStrategy.exponential_backoff(5, 10, 35, 2.0, None, None)
    assert [strategy.get_backoff_time_millis(n) for n in (1, 2, 3, 4)] == [10, 20, 35, 35]
    assert strategy.can_retry(5) and not strategy.can_retry(6)


def test_an_async_operator_is_not_chained_to_a_legacy_source_but_is_to_others():
    from millstream.datastream import SourceFunction

    class Numbers(SourceFunction):
        def run(self, ctx):  # type: ignore[no-untyped-def]
            ctx.collect(1)

    env = make_env(1)
    AsyncDataStream.ordered_wait(env.add_source(Numbers()), Echo(), Time.seconds(1)).print()
    AsyncDataStream.ordered_wait(env.from_collection([1]), Echo(), Time.seconds(1)).print()
    vertices = [v.name for v in create_job_graph(env.get_stream_graph()).vertices]
    assert "Source: Collection Source -> async wait operator -> Print to Std. Out" in vertices
    assert "Source: Custom Source" in vertices  # alone: its SourceFunction emits from a thread of its own
    assert "async wait operator -> Print to Std. Out" in vertices
