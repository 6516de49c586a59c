"""A partitioned JDBC scan's ranges are Flink's (issue 49, JDBC): the expected values are
flink-connector-jdbc's ``NumericBetweenParametersProviderTest`` (``ofBatchNum``), including
its bounds near Long's range, where Flink's batch size is computed in doubles."""

from __future__ import annotations

import pytest

from millstream.connectors.jdbc.splits import numeric_between_ranges


@pytest.mark.parametrize(
    ("lower", "upper", "num", "expected"),
    [
        (-5, 9, 5, [(-5, -3), (-2, 0), (1, 3), (4, 6), (7, 9)]),
        (-5, 11, 5, [(-5, -2), (-1, 2), (3, 5), (6, 8), (9, 11)]),
        (0, 2, 5, [(0, 0), (1, 1), (2, 2)]),
        (1, 10, 3, [(1, 4), (5, 7), (8, 10)]),
        (7, 7, 2, [(7, 7)]),
        (
            2260418954055131340,
            3875220057236942850,
            3,
            [
                (2260418954055131340, 2798685988449068491),
                (2798685988449068492, 3336953022843005643),
                (3336953022843005644, 3875220057236942850),
            ],
        ),
    ],
)
def test_ranges_as_flink_s_numeric_between_parameters_provider(
    lower: int, upper: int, num: int, expected: list[tuple[int, int]]
) -> None:
    assert numeric_between_ranges(lower, upper, num) == expected


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="minVal must not be larger than maxVal"):
        numeric_between_ranges(3, 1, 2)
    with pytest.raises(ValueError, match="Batch number must be positive"):
        numeric_between_ranges(1, 3, 0)
