"""Basic Table API and SQL operations over JSON records: extract fields, filter, aggregate
with a built-in and a user-defined aggregate, deduplicate, join, and expand rows with a table
function through the Table API and through SQL's LATERAL TABLE.

Run: ``python examples/table/basic_operations.py`` (one subtask, so the changelogs printed are
in a fixed order).
"""

from __future__ import annotations

import json

from millstream.common.types import Row
from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col, concat
from millstream.table.udf import AggregateFunction, udaf, udtf

PEOPLE = [
    (1, '{"name": "Flink", "tel": 123, "addr": {"country": "Germany", "city": "Berlin"}}'),
    (2, '{"name": "hello", "tel": 135, "addr": {"country": "China", "city": "Shanghai"}}'),
    (3, '{"name": "world", "tel": 124, "addr": {"country": "USA", "city": "NewYork"}}'),
    (4, '{"name": "PyFlink", "tel": 32, "addr": {"country": "China", "city": "Hangzhou"}}'),
]


class CountAndSum(AggregateFunction):
    """The number of rows and the sum of a column, as a ROW(cnt, total)."""

    def create_accumulator(self) -> list[int]:
        return [0, 0]

    def accumulate(self, accumulator: list[int], value: int) -> None:
        accumulator[0] += 1
        accumulator[1] += value

    def retract(self, accumulator: list[int], value: int) -> None:
        accumulator[0] -= 1
        accumulator[1] -= value

    def get_value(self, accumulator: list[int]) -> Row:
        return Row(accumulator[0], accumulator[1])

    def get_accumulator_type(self) -> object:
        return DataTypes.ARRAY(DataTypes.BIGINT())


@udtf(result_types=[DataTypes.STRING()])
def split(name: str):  # type: ignore[no-untyped-def]
    """The pieces of a name around each 'l'."""
    yield from name.split("l")


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT(), DataTypes.STRING()])
def parse(data: str):  # type: ignore[no-untyped-def]
    """Name, telephone and country of a JSON record."""
    record = json.loads(data)
    yield record["name"], record["tel"], record["addr"]["country"]


def main() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    people = t_env.from_elements(PEOPLE, ["id", "data"])
    table = people.add_columns(
        col("data").json_value("$.name", DataTypes.STRING()).alias("name"),
        col("data").json_value("$.tel", DataTypes.INT()).alias("tel"),
        col("data").json_value("$.addr.country", DataTypes.STRING()).alias("country"),
    ).drop_columns(col("data"))
    table.print_schema()
    table.filter(col("tel") > 100).execute().print()
    table.group_by(col("country")).select(col("country"), col("id").count, col("tel").max).execute().print()
    count_sum = udaf(
        CountAndSum(),
        result_type=DataTypes.ROW(
            [DataTypes.FIELD("cnt", DataTypes.BIGINT()), DataTypes.FIELD("total", DataTypes.BIGINT())]
        ),
    )
    table.group_by(col("country")).aggregate(count_sum(col("tel")).alias("cnt", "total")).select(
        col("country"), col("cnt"), col("total")
    ).execute().print()
    table.select(col("country")).distinct().execute().print()
    ages = t_env.from_elements([(1, 18), (2, 30), (3, 25), (4, 10)], ["r_id", "age"])
    table.join(ages, col("id") == col("r_id")).select(
        col("name"), col("age"), concat(col("name"), "@", col("country")).alias("tag")
    ).execute().print()
    table.join_lateral(split(col("name")).alias("piece")).select(col("id"), col("piece")).execute().print()
    t_env.create_temporary_function("parse", parse)
    t_env.create_temporary_view("people", people)
    t_env.execute_sql(
        "SELECT id, name, tel FROM people, LATERAL TABLE(parse(data)) AS t(name, tel, country) "
        "WHERE tel > 100"
    ).print()


if __name__ == "__main__":
    main()
