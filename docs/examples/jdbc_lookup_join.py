"""Orders enriched with the exchange rate a database table holds when each order is
processed: a lookup join against a JDBC table, its rows cached per currency for a minute."""

import sqlite3

from millstream.table import EnvironmentSettings, TableEnvironment

with sqlite3.connect("rates.db") as db:
    db.execute("CREATE TABLE rates (currency TEXT PRIMARY KEY, rate DECIMAL(10, 4))")
    db.executemany("INSERT INTO rates VALUES (?, ?)", [("EUR", "1.0800"), ("GBP", "1.2700")])

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("""
    CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), PRIMARY KEY (currency) NOT ENFORCED)
    WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:rates.db', 'table-name' = 'rates',
          'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000',
          'lookup.partial-cache.expire-after-write' = '1 min')
""")
t_env.execute_sql("""
    CREATE TEMPORARY VIEW orders AS
    SELECT order_id, currency, amount, PROCTIME() AS proc_time FROM (VALUES
      (1, 'EUR', 100.00), (2, 'USD', 20.00), (3, 'GBP', 50.00), (4, 'EUR', 10.00)
    ) AS t(order_id, currency, amount)
""")
# one query per currency (the cache answers the second EUR order); USD has no rate: NULL
t_env.execute_sql("""
    SELECT o.order_id, o.currency, o.amount, r.rate, o.amount * r.rate AS amount_usd
    FROM orders AS o
    LEFT JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r
    ON o.currency = r.currency
""").print()
