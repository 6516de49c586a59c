"""Mixing the DataStream API and the Table API in one job.

Orders arrive as a DataStream of rows (order_id, customer, amount). The program registers
them as a table and computes each customer's running total with SQL; that updating table
comes back as a changelog stream, which a DataStream ``map`` turns into one line per change
(``+I`` a customer's first order, ``-U``/``+U`` the total before and after a later one).
Then a Table API projection with a Python function sizes each order; its insert-only
result becomes a DataStream again, filtered and printed as rows.

Run: ``python examples/table/mixing_datastream_and_table.py``.
"""

from __future__ import annotations

from millstream.common import Row, Types
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, StreamTableEnvironment
from millstream.table.expressions import col
from millstream.table.udf import udf

ORDERS = [
    (1, "ann", 30),
    (2, "bob", 12),
    (3, "ann", 5),
    (4, "cid", 44),
    (5, "bob", 8),
    (6, "ann", 20),
]


@udf(result_type=DataTypes.STRING())
def size(amount: int) -> str:
    return "large" if amount >= 20 else "small"


def describe(change: Row) -> str:
    return f"{change.get_row_kind()} {change.customer}: {change.total} over {change.n} orders"


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)

    orders = env.from_collection(
        ORDERS,
        type_info=Types.ROW_NAMED(
            ["order_id", "customer", "amount"], [Types.LONG(), Types.STRING(), Types.LONG()]
        ),
    )
    t_env.create_temporary_view("orders", t_env.from_data_stream(orders))

    totals = t_env.sql_query(
        "SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM orders GROUP BY customer"
    )
    t_env.to_changelog_stream(totals).map(describe, output_type=Types.STRING()).print()

    sized = t_env.from_path("orders").select(
        col("order_id"), col("customer"), size(col("amount")).alias("size")
    )
    t_env.to_data_stream(sized).filter(lambda order: order.size == "large").print()

    env.execute("mixing DataStream and Table")


if __name__ == "__main__":
    main()
