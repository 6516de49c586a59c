from pathlib import Path

from millstream.table import EnvironmentSettings, TableEnvironment

# customers in a CSV file, read as a lookup table; orders arriving on a stream
Path("customers.csv").write_text("1,Alice,DE\n2,Bob,FR\n3,Carol,US\n")
Path("orders.csv").write_text("101,1,20\n102,3,35\n103,4,12\n104,1,8\n")
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE customers (id BIGINT, name STRING, country STRING)
    WITH ('connector' = 'filesystem', 'path' = '{Path("customers.csv").resolve()}', 'format' = 'csv',
          'lookup.join.cache.ttl' = '10 min')
""")
t_env.execute_sql(f"""
    CREATE TABLE orders (order_id BIGINT, customer_id BIGINT, amount INT, proc_time AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '{Path("orders.csv").resolve()}', 'format' = 'csv')
""")
# each order enriched with its customer as the table holds it when the order is processed
t_env.execute_sql("""
    SELECT o.order_id, o.amount, c.name, c.country
    FROM orders AS o
    LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c
    ON o.customer_id = c.id
""").print()
