"""Window assignment of the Table API's window aggregation (``window_agg.WindowSpec``): the
slices a row lands in and the windows those slices make up agree with the windows a row
belongs to (the windowing TVF's assignment), for tumbling, hopping and cumulating windows."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.table.common.window_spec import WindowSpec


@st.composite
def specs(draw: st.DrawFn) -> WindowSpec:
    kind = draw(st.sampled_from(["TUMBLE", "HOP", "CUMULATE"]))
    step = draw(st.integers(1, 50))
    if kind == "TUMBLE":
        return WindowSpec("TUMBLE", step, 0, draw(st.integers(0, step - 1)))
    if kind == "HOP":
        return WindowSpec("HOP", draw(st.integers(1, 120)), step)
    return WindowSpec("CUMULATE", step * draw(st.integers(1, 6)), step)


@given(specs(), st.integers(-10_000, 10_000))
def test_slices_make_up_exactly_the_windows_a_row_belongs_to(spec: WindowSpec, ts: int) -> None:
    windows = spec.windows_of(ts)
    assert windows or spec.size < spec.slide, "every row belongs to a window unless windows leave gaps"
    assert all(start <= ts < end for start, end in windows)
    slice_end = spec.slice_end(ts)
    assert slice_end - spec.slice_size <= ts < slice_end
    ends = spec.window_ends(slice_end)
    assert ends == sorted(ends)
    assert ends == [end for _, end in windows]
    assert all(spec.window_start(end) == start for start, end in windows)


def test_hopping_windows_start_at_multiples_of_the_slide() -> None:
    """Flink's HOP(size 5 s, slide 2 s): windows [-2, 3), [0, 5), [2, 7) ... hold ts = 1 s."""
    spec = WindowSpec("HOP", 5000, 2000)
    assert spec.windows_of(1000) == [(-2000, 3000), (0, 5000)]
    assert spec.slice_size == 1000
    assert spec.window_ends(spec.slice_end(1000)) == [3000, 5000]


def test_cumulating_windows_grow_by_step_within_the_max_size() -> None:
    spec = WindowSpec("CUMULATE", 6000, 2000)
    assert spec.windows_of(2500) == [(0, 4000), (0, 6000)]
    assert spec.windows_of(6000) == [(6000, 8000), (6000, 10000), (6000, 12000)]


def test_invalid_windows_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        WindowSpec("TUMBLE", 0)
    with pytest.raises(ValueError, match="multiple of its step"):
        WindowSpec("CUMULATE", 5000, 2000)
