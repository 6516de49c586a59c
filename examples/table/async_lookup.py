"""Enriching rows with an async lookup: an ``AsyncScalarFunction`` in SQL.

Each order names a customer; the function looks the customer up in a (simulated) remote
service with ``await`` instead of blocking. A Calc runs the calls of each batch of rows at
the same time, at most ``table.exec.async-scalar.max-concurrent-operations`` in flight, and
the results come back in the rows' order, as Flink's async scalar functions do. A lookup
that raises is tried again (``table.exec.async-scalar.max-attempts``) after
``table.exec.async-scalar.retry-delay``.

Run: ``python examples/table/async_lookup.py``.
"""

from __future__ import annotations

import asyncio

from millstream.table import AsyncScalarFunction, DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import udf

ORDERS = [(1, "c1", 30), (2, "c3", 12), (3, "c2", 7), (4, "c1", 55), (5, "c4", 20), (6, "c2", 41)]


class CustomerTier(AsyncScalarFunction):
    """The customer's tier from a slow service (later customers answer sooner: the output
    keeps the order of the rows anyway)."""

    def open(self, function_context):  # type: ignore[no-untyped-def]
        self.tiers = {"c1": "gold", "c2": "silver", "c3": "bronze"}

    async def eval(self, customer):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.01 * (5 - int(customer[1:])))
        return self.tiers.get(customer, "none")


def main() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.exec.async-scalar.max-concurrent-operations", "4")
    t_env.create_temporary_function("customer_tier", udf(CustomerTier(), result_type=DataTypes.STRING()))
    t_env.create_temporary_view("orders", t_env.from_elements(ORDERS, ["id", "customer", "amount"]))
    t_env.execute_sql(
        "SELECT id, customer, customer_tier(customer) AS tier, amount FROM orders WHERE amount > 10"
    ).print()


if __name__ == "__main__":
    main()
