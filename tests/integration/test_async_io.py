"""Async I/O jobs (``AsyncDataStream``) on the embedded runtime, in TaskManager processes and
threads: PyFlink 2.3.0's output for the same programs, user failures and timeouts reaching the
client, STREAMING and BATCH, chained or not, and a restore with elements in flight that loses
and repeats nothing.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from millstream.common import Configuration, Encoder, JobExecutionException, Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import Watermark, WatermarkGenerator
from millstream.datastream import (
    AsyncDataStream,
    AsyncFunction,
    AsyncRetryStrategy,
    ProcessFunction,
    RuntimeExecutionMode,
    StreamExecutionEnvironment,
    async_retry_predicates,
)
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from tests.conftest import make_env

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]

# The program run on PyFlink 2.3.0 (``pyflink`` in its imports) and on millstream.
PROGRAM = """
import asyncio, sys
from typing import List
from millstream.common import Types, Time
from millstream.datastream import StreamExecutionEnvironment, AsyncDataStream, AsyncFunction, RuntimeContext


class Enrich(AsyncFunction):
    def open(self, runtime_context: RuntimeContext):
        self.prefix = "v"

    async def async_invoke(self, value: int) -> List[str]:
        # later elements finish first
        await asyncio.sleep((6 - value) * 0.2)
        return [f"{self.prefix}{value}", f"{self.prefix}{value * 10}"]


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
ds = env.from_collection([1, 2, 3, 4, 5], type_info=Types.INT())
wait = AsyncDataStream.ordered_wait if sys.argv[1] == "ordered" else AsyncDataStream.unordered_wait
wait(ds, Enrich(), Time.seconds(10), 10, Types.STRING()).print()
env.execute(sys.argv[1])
"""

# What PyFlink 2.3.0 prints for PROGRAM (run with `pyflink` imports, `python prog.py <mode>`).
PYFLINK_ORDERED = ["v1", "v10", "v2", "v20", "v3", "v30", "v4", "v40", "v5", "v50"]
PYFLINK_UNORDERED = ["v5", "v50", "v4", "v40", "v3", "v30", "v2", "v20", "v1", "v10"]


@pytest.mark.parametrize(
    ("mode", "expected"), [("ordered", PYFLINK_ORDERED), ("unordered", PYFLINK_UNORDERED)]
)
def test_the_program_prints_what_pyflink_prints(tmp_path, mode, expected):
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1"}
    result = subprocess.run(
        [sys.executable, str(program), mode],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected


class Slow(AsyncFunction):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        await asyncio.sleep(60 if value == 3 else 0)  # PyFlink's program: 5 s
        return [value]


def test_a_timed_out_call_fails_the_job_naming_operator_subtask_and_element():
    # PyFlink 2.3.0, the same job (from_collection([1, 2, 3, 4]), ordered_wait, Time.milliseconds(500)):
    #   Exception: ("Error happens inside the class '<class '__main__.Slow'>' during handling
    #   input '3'", TimeoutError('Async function call has timed out for input: 3'))
    # and prints nothing (its output bundle is lost with the failure; millstream's 1 and 2 are out).
    env = make_env(1)
    ds = env.from_collection([1, 2, 3, 4], type_info=Types.INT())
    AsyncDataStream.ordered_wait(ds, Slow(), Time.milliseconds(500), 10, Types.INT()).print()
    started = time.monotonic()
    with pytest.raises(JobExecutionException) as info:
        env.execute("timeout")
    assert time.monotonic() - started < 30  # failed at the timeout, not when the call would end
    message = str(info.value)
    assert "the async call timed out after 500 ms and timeout() raised" in message
    assert "operator 'async wait operator' in subtask" in message and "on record 3" in message
    assert "TimeoutError: Async function call has timed out for input: 3" in _causes(info.value)


class Square(AsyncFunction):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.001 * (value % 7))
        return [(value, value * value)]


class Lookup(Square):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        if value == 13:
            raise LookupError(f"no user {value}")
        return await super().async_invoke(value)


def test_an_exception_of_async_invoke_fails_the_job_with_the_users_exception():
    env = make_env(2)
    ds = env.from_collection(list(range(40)))
    AsyncDataStream.unordered_wait(ds.rebalance(), Lookup(), Time.seconds(10)).print()
    with pytest.raises(JobExecutionException) as info:
        env.execute("failing lookup")
    assert "async_invoke() raised: operator 'async wait operator'" in str(info.value)
    assert "on record 13" in str(info.value)
    assert "LookupError: no user 13" in _causes(info.value)


def _causes(error: BaseException | None) -> str:
    out = []
    while error is not None:
        out.append(f"{type(error).__name__}: {error}")
        error = error.__cause__
    return "\n".join(out)


@pytest.mark.parametrize(
    ("runtime_mode", "minicluster", "chained"),
    [
        ("STREAMING", "processes", True),
        ("STREAMING", "threads", False),
        ("BATCH", "processes", False),
        ("BATCH", "threads", True),
    ],
)
def test_every_element_is_enriched_once_in_each_mode(runtime_mode, minicluster, chained):
    env = make_env(2, minicluster__mode=minicluster)
    env.set_runtime_mode(RuntimeExecutionMode[runtime_mode])
    ds = env.from_collection(list(range(300)), type_info=Types.INT())
    if not chained:
        ds = ds.rebalance()
    out = AsyncDataStream.ordered_wait(ds, Square(), Time.seconds(10), capacity=8)
    if not chained:
        out = out.disable_chaining()
    with out.filter(lambda pair: pair[0] % 2 == 0).execute_and_collect() as results:
        got = sorted(results)
    assert got == [(v, v * v) for v in range(0, 300, 2)]


class RetriedTwice(AsyncFunction):
    def __init__(self) -> None:
        self.attempts: dict[int, int] = {}

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        self.attempts[value] = self.attempts.get(value, 0) + 1
        if self.attempts[value] < 3:
            raise ConnectionError("try again")
        return [(value, self.attempts[value])]


def test_retries_follow_the_strategy_in_a_job():
    env = make_env(2)
    strategy = AsyncRetryStrategy.fixed_delay(
        max_attempts=3,
        backoff_time_millis=5,
        result_predicate=None,
        exception_predicate=async_retry_predicates.has_exception_predicate,
    )
    ds = env.from_collection(list(range(20)))
    out = AsyncDataStream.unordered_wait_with_retry(ds, RetriedTwice(), Time.seconds(10), strategy)
    with out.execute_and_collect() as results:
        assert sorted(results) == [(v, 3) for v in range(20)]


STUCK = 100  # the element that stays in flight until the job restarted


class StuckUntilCheckpointed(AsyncFunction):
    """Element ``STUCK`` stays in flight in the first attempt until a checkpoint that holds it
    in flight completed, then fails the job (once: a marker file outlives the restart). After
    the restore, ``STUCK`` comes back from that checkpoint's state, is called again and
    completes; the other elements take 2 ms each."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.stuck_in_flight = False
        self.first_checkpoint_holding_it: int | None = None
        self.checkpointed = False

    def snapshot_state(self, context):  # type: ignore[no-untyped-def]
        if self.stuck_in_flight and self.first_checkpoint_holding_it is None:
            self.first_checkpoint_holding_it = context.get_checkpoint_id()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        first = self.first_checkpoint_holding_it
        if first is not None and checkpoint_id >= first:
            self.checkpointed = True

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        if value != STUCK:
            await asyncio.sleep(0.002)
            return [value]
        if os.path.exists(self.marker):
            return [value]  # called again after the restore
        self.stuck_in_flight = True
        while not self.checkpointed:
            await asyncio.sleep(0.01)
        open(self.marker, "w").close()
        raise RuntimeError("boom (once)")


@pytest.mark.parametrize("minicluster", ["threads", "processes"])
def test_elements_in_flight_at_a_checkpoint_are_called_again_after_a_restore_and_emitted_once(
    tmp_path, minicluster
):  # type: ignore[no-untyped-def]
    conf = Configuration().set_string("minicluster.mode", minicluster)
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(50)
    marker = tmp_path / "failed-once"
    out_dir = tmp_path / "out"
    # 800 numbers a second: the input goes on for 5 s after STUCK, so a checkpoint holding it
    # in flight completes while records still flow, however loaded the machine (at the end of
    # its input the operator waits for its calls without taking checkpoints, as Flink's)
    numbers = DataGeneratorSource(lambda i: i, 4000, 800.0, Types.LONG())
    source = env.from_source(numbers, WatermarkStrategy.no_watermarks(), "numbers")
    enriched = AsyncDataStream.unordered_wait(
        source, StuckUntilCheckpointed(str(marker)), Time.seconds(60), capacity=10, output_type=Types.LONG()
    )
    enriched.sink_to(FileSink.for_row_format(str(out_dir), Encoder.simple_string_encoder()).build())
    env.execute("async I/O across a restore")
    assert marker.exists()  # it did fail, with STUCK in flight in the checkpoint it restarted from
    got = [int(line) for line in committed_lines(out_dir)]
    assert sorted(got) == list(range(4000))  # nothing lost (STUCK included), nothing twice


def committed_lines(directory: Path) -> list[str]:
    """The lines of every committed (not hidden) file under ``directory``."""
    files = [p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return [line for p in files for line in p.read_text().splitlines()]


def test_a_job_finishes_in_the_time_of_its_calls_in_flight_not_one_after_the_other():
    class Sleepy(AsyncFunction):
        async def async_invoke(self, value):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0.05)
            return [value]

    env = make_env(1)
    out = AsyncDataStream.unordered_wait(
        env.from_collection(list(range(400))), Sleepy(), Time.seconds(10), 100
    )
    started = time.monotonic()
    with out.execute_and_collect() as results:
        assert sorted(results) == list(range(400))
    # 400 calls of 50 ms, 100 at once: 0.2 s of calls (20 s one after the other)
    assert time.monotonic() - started < 10


_hanging = threading.Event()


class Hangs(AsyncFunction):
    """Every call waits forever (no timeout is set), so the task blocks on its full queue."""

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        _hanging.set()
        await asyncio.Event().wait()
        return [value]


def test_a_task_blocked_on_a_full_queue_is_cancelled_and_its_loop_thread_ends():
    _hanging.clear()
    env = make_env(1, minicluster__mode="threads")  # the loop thread is in this process: none may leak
    ds = env.from_collection(list(range(100)))
    AsyncDataStream.ordered_wait(ds, Hangs(), Time.milliseconds(0), capacity=2).print()
    client = env.execute_async("hanging calls")
    assert _hanging.wait(60)
    started = time.monotonic()
    client.cancel()
    with pytest.raises(JobExecutionException, match="cancelled"):
        client.get_job_execution_result(timeout=60)
    assert time.monotonic() - started < 30


class _UserService:
    """An HTTP service on a free 127.0.0.1 port (aiohttp, on a loop thread of its own): GET
    /users/<id> answers after 20 ms; it records the most requests it had in flight at once."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.most_in_flight = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="user service")
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(30)

    async def _start(self) -> int:
        app = web.Application()
        app.router.add_get("/users/{id}", self._user)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def _user(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.02)
            return web.json_response(
                {"id": int(request.match_info["id"]), "name": f"user-{request.match_info['id']}"}
            )
        finally:
            self.in_flight -= 1

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()


class HttpEnrich(AsyncFunction):
    """An aiohttp session built in ``open`` on the subtask's loop, closed in ``close``."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/users/"

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.session = asyncio.get_event_loop().run_until_complete(self._new_session())

    async def _new_session(self) -> aiohttp.ClientSession:
        return aiohttp.ClientSession()

    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        async with self.session.get(f"{self.url}{value}") as response:
            body = await response.json()
        return [(value, body["name"])]

    def close(self):  # type: ignore[no-untyped-def]
        asyncio.get_event_loop().run_until_complete(self.session.close())


def test_an_aiohttp_client_enriches_a_stream_concurrently_on_task_manager_processes():
    service = _UserService()
    try:
        env = make_env(2)
        ds = env.from_collection(list(range(200)))
        out = AsyncDataStream.unordered_wait(ds, HttpEnrich(service.port), Time.seconds(30), capacity=20)
        with out.execute_and_collect() as results:
            assert sorted(results) == [(v, f"user-{v}") for v in range(200)]
        assert 1 < service.most_in_flight <= 40  # concurrent, at most capacity per subtask
    finally:
        service.stop()


class EveryEvent(WatermarkGenerator):
    """A watermark right after every element, at its timestamp."""

    def on_event(self, event, event_timestamp, output):  # type: ignore[no-untyped-def]
        output.emit_watermark(Watermark(event_timestamp))

    def on_periodic_emit(self, output):  # type: ignore[no-untyped-def]
        pass


class SlowerFirst(AsyncFunction):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.001 * (9 - value % 10))  # later elements of each ten finish first
        return [value]


class Lateness(ProcessFunction):
    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        yield value, ctx.timestamp() <= ctx.timer_service().current_watermark()


@pytest.mark.parametrize("ordered", [False, True], ids=["unordered", "ordered"])
def test_no_result_comes_behind_a_watermark_its_element_was_ahead_of(ordered):
    env = make_env(1, minicluster__mode="threads")
    strategy = WatermarkStrategy.for_generator(EveryEvent).with_timestamp_assigner(lambda v, ts: 1000 + v)
    stamped = env.from_collection(list(range(200))).assign_timestamps_and_watermarks(strategy)
    wait = AsyncDataStream.ordered_wait if ordered else AsyncDataStream.unordered_wait
    checked = wait(stamped, SlowerFirst(), Time.seconds(10), capacity=50).process(Lateness())
    with checked.execute_and_collect() as results:
        got = list(results)
    assert sorted(v for v, _ in got) == list(range(200))
    assert [
        v for v, late in got if late
    ] == []  # each result keeps its timestamp, ahead of the next watermark
    if ordered:
        assert [v for v, _ in got] == list(range(200))
