"""Vectorized Python functions: pandas scalar and aggregate functions on Arrow batches.

Temperature readings (sensor, time, celsius) come from a pandas DataFrame. A pandas scalar
function gets a whole batch of readings as ``pandas.Series`` and converts them all at once;
pandas aggregate functions get each group's (or window's) readings as one Series and reduce
it with pandas, in a GROUP BY and in a 10-second tumbling window. The result goes back to
pandas with ``to_pandas``.

Run: ``python examples/table/pandas_udfs.py``.
"""

from __future__ import annotations

import pandas as pd

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col, lit
from millstream.table.udf import udaf, udf
from millstream.table.window import Tumble

READINGS = pd.DataFrame(
    {
        "sensor": ["s1", "s2", "s1", "s3", "s2", "s1", "s3", "s2"],
        "ts": pd.to_datetime(
            [
                "2024-03-01 12:00:01",
                "2024-03-01 12:00:03",
                "2024-03-01 12:00:07",
                "2024-03-01 12:00:08",
                "2024-03-01 12:00:12",
                "2024-03-01 12:00:14",
                "2024-03-01 12:00:15",
                "2024-03-01 12:00:19",
            ]
        ),
        "celsius": [21.5, 19.0, 22.5, 30.0, 18.5, 23.0, 31.5, 18.0],
    }
)


@udf(result_type=DataTypes.DOUBLE(), func_type="pandas")
def fahrenheit(celsius: pd.Series) -> pd.Series:
    return celsius * 9 / 5 + 32


@udaf(result_type=DataTypes.DOUBLE(), func_type="pandas")
def spread(values: pd.Series) -> float:
    return float(values.max() - values.min())


@udaf(result_type=DataTypes.DOUBLE(), func_type="pandas")
def median(values: pd.Series) -> float:
    return float(values.median())


def main() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    schema = DataTypes.ROW(
        [
            DataTypes.FIELD("sensor", DataTypes.STRING()),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("celsius", DataTypes.DOUBLE()),
        ]
    )
    readings = t_env.from_pandas(READINGS, schema)

    # a scalar function over whole batches of rows
    converted = readings.select(col("sensor"), col("ts"), fahrenheit(col("celsius")).alias("fahrenheit"))
    converted.execute().print()

    # aggregate functions over each group's readings
    readings.group_by(col("sensor")).select(
        col("sensor"), spread(col("celsius")).alias("spread"), median(col("celsius")).alias("median")
    ).execute().print()

    # ... and over each 10-second window's readings
    windowed = (
        readings.window(Tumble.over(lit(10).seconds).on(col("ts")).alias("w"))
        .group_by(col("w"))
        .select(col("w").start.alias("window_start"), median(col("celsius")).alias("median"))
    )
    print(windowed.to_pandas().to_string(index=False))


if __name__ == "__main__":
    main()
