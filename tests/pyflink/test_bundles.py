"""Bundles, as in PyFlink: outputs are not held back behind a slow call [issue 13.5].

PyFlink hands records to Python functions in bundles (``python.fn-execution.bundle.size``,
default 1000 in PyFlink 2.3's ``PythonOptions``; ``python.fn-execution.bundle.time``,
default 1000 ms). In millstream a batch is cut into bundles that take at most about half
of ``min(bundle.time, execution.buffer-timeout)`` each, and the outputs of a bundle go
downstream before the next bundle starts. In these programs every call is slow (0.2 s,
as a call to a service would be) and also waits for proof that the previous record's
output already arrived downstream (a marker file written by the consumer), so holding
outputs back fails the job instead of slowing it down.

Which outputs wait: a batch's bundles are sized from the cost measured so far, so a
function that turns slow after fast records holds the outputs of its current bundle
until that one slow call returns; from then on its bundles are single records. PyFlink
holds more: with the default bundle size, 14 records each sleeping 0.3 s in a map all
reached the next operator together, 4.2 s after the first was produced (PyFlink 2.3,
from_collection -> map -> rebalance -> ..., parallelism 1).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from millstream.common import Types, WatermarkStrategy
from millstream.common.config_options import BUNDLE_SIZE, BUNDLE_TIME, ConfigurationError
from millstream.common.configuration import parse_defines
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import KeyedProcessFunction
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(120)

MIN_WATERMARK = -(2**63)
WAIT_S = 30.0
SLOW_S = 0.2  # each call: 4x the default budget of a bundle (half of the 100 ms buffer timeout)


def slow_call_after(path: str, what: str) -> None:
    """In a user function: a slow call, then block until ``path`` exists (the consumer saw ``what``)."""
    time.sleep(SLOW_S)
    deadline = time.monotonic() + WAIT_S
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} never arrived downstream: held back in a bundle")
        time.sleep(0.01)


class WaitForPrevious:
    """A map whose call for record k waits until record k-1's output reached the consumer."""

    def __init__(self, markers: str) -> None:
        self.markers = markers

    def __call__(self, value: int) -> int:
        if value == 1:
            time.sleep(SLOW_S)
        else:
            slow_call_after(os.path.join(self.markers, str(value - 1)), f"the output of record {value - 1}")
        return value


@pytest.mark.parametrize("hop", ["chained", "network"])
def test_outputs_before_a_slow_call_reach_the_consumer(tmp_path: Path, hop: str) -> None:
    markers = str(tmp_path)
    env = make_env(1)
    ds = env.from_collection([1, 2, 3, 4, 5], type_info=Types.INT()).map(
        WaitForPrevious(markers), output_type=Types.INT()
    )
    if hop == "network":
        ds = ds.rebalance().map(lambda v: v, output_type=Types.INT())
    seen = []
    with ds.execute_and_collect() as results:
        for value in results:
            seen.append(value)
            Path(markers, str(value)).touch()
    assert seen == [1, 2, 3, 4, 5]


class ByField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):  # type: ignore[no-untyped-def]
        return value[1]


class WatermarkBeforeEach(KeyedProcessFunction):
    """Prints the watermark it saw before each record; marks when it passed a record's time."""

    def __init__(self, markers: str) -> None:
        self.markers = markers

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ctx.timer_service().register_event_time_timer(value[1] - 1)
        yield f"{value[0]} wm={ctx.timer_service().current_watermark()}"

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        Path(self.markers, f"wm{(timestamp + 1) // 1000}").touch()


class WaitForWatermark:
    """Record k waits until the downstream watermark passed record k-1's timestamp."""

    def __init__(self, markers: str) -> None:
        self.markers = markers

    def __call__(self, value):  # type: ignore[no-untyped-def]
        if value[0] == 1:
            time.sleep(SLOW_S)
        else:
            slow_call_after(
                os.path.join(self.markers, f"wm{value[0] - 1}"), f"the watermark after record {value[0] - 1}"
            )
        return value


def test_a_slow_function_sees_watermarks_between_records_as_pyflink_with_bundle_size_one(
    tmp_path: Path,
) -> None:
    """Slow map -> rebalance -> periodic watermarks -> key_by -> process, bundle.size=1.

    PyFlink 2.3 ran this pipeline (with the map sleeping 0.3 s per record and not
    waiting for markers, ``python.fn-execution.bundle.size: 1``, parallelism 1) and printed
    ``1 wm=-9223372036854775808``, ``2 wm=999``, ``3 wm=1999`` ...: every record reaches
    the watermark assigner on its own, which emits a watermark before the next arrives.
    """
    markers = str(tmp_path)
    env = make_env(1, **{"python.fn-execution.bundle.size": 1})
    pair = Types.TUPLE([Types.INT(), Types.LONG()])
    out = (
        env.from_collection([(k, k * 1000) for k in range(1, 6)], type_info=pair)
        .map(WaitForWatermark(markers), output_type=pair)
        .rebalance()
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ByField())
        )
        .key_by(lambda v: 0, key_type=Types.INT())
        .process(WatermarkBeforeEach(markers), output_type=Types.STRING())
    )
    with out.execute_and_collect() as results:
        lines = list(results)
    assert lines == [f"1 wm={MIN_WATERMARK}"] + [f"{k} wm={(k - 1) * 1000 - 1}" for k in range(2, 6)]


class Logged:
    """A map that appends ``name value`` to a shared log before returning the value."""

    def __init__(self, log: str, name: str) -> None:
        self.log = log
        self.name = name

    def __call__(self, value: int) -> int:
        with open(self.log, "a") as f:
            f.write(f"{self.name} {value}\n")
        return value


def test_bundle_size_one_hands_each_record_through_the_chain_before_the_next(tmp_path: Path) -> None:
    log = str(tmp_path / "calls.log")
    env = make_env(1, **{"python.fn-execution.bundle.size": 1})
    ds = (
        env.from_collection(list(range(1, 7)), type_info=Types.INT())
        .map(Logged(log, "first"), output_type=Types.INT())
        .map(Logged(log, "second"), output_type=Types.INT())
    )
    with ds.execute_and_collect() as results:
        assert list(results) == [1, 2, 3, 4, 5, 6]
    calls = Path(log).read_text().split("\n")[:-1]
    assert calls == [f"{name} {k}" for k in range(1, 7) for name in ("first", "second")]


@pytest.mark.parametrize(
    "define",
    ["python.fn-execution.bundle.size=0", "python.fn-execution.bundle.time=soon"],
)
def test_bad_bundle_settings_are_rejected(define: str) -> None:
    with pytest.raises(ConfigurationError, match=define.split("=")[0]):
        parse_defines([define])


def test_bundle_settings_are_known_options() -> None:
    config = parse_defines(["python.fn-execution.bundle.size=1", "python.fn-execution.bundle.time=2 s"])
    assert config.get(BUNDLE_SIZE) == 1
    assert config.get(BUNDLE_TIME) == 2000
