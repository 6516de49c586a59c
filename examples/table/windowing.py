"""Windows over a table's event time, with the Table API and with SQL.

Sales (time, name, price) arrive out of order; the table's event-time attribute is ``ts``
with a watermark 3 seconds behind the largest time seen. The program prints, into Flink's
print connector, each name's total per tumbling window (5 s), per sliding window (5 s every
2 s) and per session (gap 5 s), then each sale with the highest price among it and the two
sales before it (an over window), then the same tumbling totals again through SQL's
``TUMBLE`` table function.

Run: ``python examples/table/windowing.py``.
"""

from __future__ import annotations

from millstream.common import Types
from millstream.common.time import Instant
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, Schema, StreamTableEnvironment, TableDescriptor
from millstream.table.expressions import CURRENT_ROW, col, lit, row_interval
from millstream.table.window import Over, Session, Slide, Tumble

SALES = [
    (1000, "Alice", 110.1),
    (4000, "Bob", 30.2),
    (3000, "Alice", 20.0),
    (2000, "Bob", 53.1),
    (5000, "Alice", 13.1),
    (3000, "Bob", 3.1),
    (7000, "Bob", 16.1),
    (10000, "Alice", 20.1),
]


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(stream_execution_environment=env)
    stream = env.from_collection(
        [(Instant.of_epoch_milli(t), name, price) for t, name, price in SALES],
        type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.FLOAT()]),
    )
    sales = t_env.from_data_stream(
        stream,
        Schema.new_builder()
        .column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.STRING())
        .column("f2", DataTypes.FLOAT())
        .watermark("ts", "ts - INTERVAL '3' SECOND")
        .build(),
    ).alias("ts", "name", "price")
    t_env.create_temporary_view("sales", sales)

    window_sink = (
        Schema.new_builder()
        .column("name", DataTypes.STRING())
        .column("total_price", DataTypes.FLOAT())
        .column("w_start", DataTypes.TIMESTAMP_LTZ())
        .column("w_end", DataTypes.TIMESTAMP_LTZ())
        .build()
    )
    for kind, window in (
        ("tumble", Tumble.over(lit(5).seconds)),
        ("slide", Slide.over(lit(5).seconds).every(lit(2).seconds)),
        ("session", Session.with_gap(lit(5).seconds)),
    ):
        t_env.create_temporary_table(
            kind,
            TableDescriptor.for_connector("print")
            .option("print-identifier", kind)
            .schema(window_sink)
            .build(),
        )
        sales.window(window.on(col("ts")).alias("w")).group_by(col("name"), col("w")).select(
            col("name"), col("price").sum, col("w").start, col("w").end
        ).execute_insert(kind).wait()

    over_sink = Schema.new_builder().column("name", DataTypes.STRING()).column("max_price", DataTypes.FLOAT())
    t_env.create_temporary_table(
        "over",
        TableDescriptor.for_connector("print")
        .option("print-identifier", "over")
        .schema(over_sink.build())
        .build(),
    )
    recent = (
        Over.partition_by(col("name")).order_by(col("ts")).preceding(row_interval(2)).following(CURRENT_ROW)
    )
    sales.over_window(recent.alias("w")).select(col("name"), col("price").max.over(col("w"))).execute_insert(
        "over"
    ).wait()

    t_env.execute_sql(
        """SELECT window_start, name, SUM(price) AS total
           FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '5' SECOND))
           GROUP BY window_start, window_end, name"""
    ).print()


if __name__ == "__main__":
    main()
