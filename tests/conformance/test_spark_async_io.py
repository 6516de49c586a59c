"""Async I/O on Spark: a bounded job runs its async wait operator in the vertex's operator chain
and gives the embedded runtime's output; Structured Streaming refuses it before the query starts."""

from __future__ import annotations

import asyncio

import pytest

from millstream.common import Time
from millstream.datastream import AsyncDataStream, AsyncFunction
from millstream.spark.support import UnsupportedStreamingError
from tests.conformance.streaming_support import watched
from tests.conformance.test_spark_runner import env_for, numbers, same_on_both

pytestmark = pytest.mark.usefixtures("spark")


class Square(AsyncFunction):
    async def async_invoke(self, value):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.001 * (value % 5))
        return [(value, value * value)] if value % 3 else []


@pytest.mark.parametrize("ordered", [True, False], ids=["ordered", "unordered"])
def test_a_bounded_job_with_async_io_gives_the_embedded_runtimes_output(ordered):  # type: ignore[no-untyped-def]
    wait = AsyncDataStream.ordered_wait if ordered else AsyncDataStream.unordered_wait

    def build(env):  # type: ignore[no-untyped-def]
        return wait(numbers(env, 0, 199).rebalance(), Square(), Time.seconds(10), 8)

    out = same_on_both(build)
    assert len(out) == len([v for v in range(200) if v % 3])


def test_structured_streaming_refuses_async_io_in_one_line(tmp_path):  # type: ignore[no-untyped-def]
    env = env_for("spark")
    AsyncDataStream.unordered_wait(watched(env, tmp_path), Square(), Time.seconds(10)).print()
    with pytest.raises(
        UnsupportedStreamingError, match="async I/O \\(AsyncDataStream\\) keeps elements in flight"
    ):
        env.execute()
