"""A lookup join's filesystem table is read again once ``lookup.join.cache.ttl`` has passed, in
a running job: orders published one file at a time into a watched directory (an unbounded
table) are enriched from a customers file that is rewritten while the job runs. Until the TTL
passes, orders see the customer as first read; after it, the next order's lookup reads the file
again and sees the new name (Flink's FileSystemLookupFunction: the whole table cached, reloaded
at the first lookup after the TTL). Each order is published when the previous one's result
arrives, so the test waits for a condition (the new name), never for time to pass.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(180)


def _publish(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` at once (a hidden file renamed: a reader never sees half)."""
    hidden = path.with_name(f".{path.name}")
    hidden.write_text(text)
    os.replace(hidden, path)


def test_a_filesystem_lookup_table_is_read_again_after_its_ttl(tmp_path: Path) -> None:
    orders, customers = tmp_path / "orders", tmp_path / "customers.csv"
    orders.mkdir()
    _publish(customers, "1,Alice\n2,Bob\n")
    _publish(orders / "0.csv", "0,1\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE orders (order_id BIGINT, customer_id BIGINT, pt AS PROCTIME()) WITH ("
        f"'connector' = 'filesystem', 'path' = '{orders}', 'format' = 'csv', "
        "'source.monitor-interval' = '50 ms')"
    )
    t_env.execute_sql(
        "CREATE TABLE customers (id BIGINT, name STRING) WITH ("
        f"'connector' = 'filesystem', 'path' = '{customers}', 'format' = 'csv', "
        "'lookup.join.cache.ttl' = '1 s')"
    )
    names: list[str] = []
    deadline = time.monotonic() + 120
    query = (
        "SELECT o.order_id, c.name FROM orders AS o "
        "LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer_id = c.id"
    )
    with t_env.execute_sql(query).collect() as rows:
        for row in rows:
            names.append(row[1])
            if row[1] == "Alicia" or time.monotonic() > deadline:
                break
            if len(names) == 1:  # the table was read for the first order: change it
                _publish(customers, "1,Alicia\n2,Bob\n")
            _publish(orders / f"{len(names)}.csv", f"{len(names)},1\n")  # the next order
    assert names[-1] == "Alicia", f"no order saw the new name within 120 s: {names}"
    first_new = names.index("Alicia")
    assert first_new >= 1 and set(names[:first_new]) == {"Alice"}  # the cache served until the TTL
