"""Revenue per customer kept up to date in a database table: a JDBC upsert sink, in SQL.

SQLite (a file here) stands for any database: a PostgreSQL or MySQL URL
(jdbc:postgresql://host:5432/db, jdbc:mysql://host:3306/db, with 'username' and 'password')
works the same with pip install 'millstream[postgres]' or 'millstream[mysql]'.
"""

import sqlite3

from millstream.table import EnvironmentSettings, TableEnvironment

# the database table the job keeps current (its primary key: the upsert key)
with sqlite3.connect("shop.db") as db:
    db.execute("CREATE TABLE revenue (customer TEXT PRIMARY KEY, total DECIMAL(10, 2), orders BIGINT)")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("""
    CREATE TEMPORARY VIEW orders AS SELECT * FROM (VALUES
      (1, 'ann', 20.50), (2, 'bob', 5.00), (3, 'ann', 9.25), (4, 'cid', 12.00), (5, 'bob', 1.75)
    ) AS t(order_id, customer, amount)
""")
t_env.execute_sql("""
    CREATE TABLE revenue (customer STRING, total DECIMAL(10, 2), orders BIGINT,
                          PRIMARY KEY (customer) NOT ENFORCED)
    WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:shop.db', 'table-name' = 'revenue',
          'sink.buffer-flush.max-rows' = '100', 'sink.buffer-flush.interval' = '1 s')
""")
# the aggregation's updates (-U/+U) become upserts by customer
t_env.execute_sql("""
    INSERT INTO revenue
    SELECT customer, CAST(SUM(amount) AS DECIMAL(10, 2)), COUNT(*) FROM orders GROUP BY customer
""").wait()

# the table as the database holds it now, read back by a JDBC scan
t_env.execute_sql("SELECT * FROM revenue").print()
