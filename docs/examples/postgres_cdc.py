"""Order totals per customer, kept up to date from a PostgreSQL table's changes.

The server comes from POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD and
POSTGRES_DB (defaults: 127.0.0.1, 5432, postgres, postgres, postgres); it needs
wal_level = logical. Start one with: .venv/bin/python -m millstream.testing.postgres_server
"""

import os

import psycopg

from millstream.table import EnvironmentSettings, TableEnvironment

server = {
    "hostname": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
    "port": os.environ.get("POSTGRES_PORT", "5432"),
    "username": os.environ.get("POSTGRES_USER", "postgres"),
    "password": os.environ.get("POSTGRES_PASSWORD", "postgres"),
    "database-name": os.environ.get("POSTGRES_DB", "postgres"),
}
db = psycopg.connect(
    host=server["hostname"],
    port=server["port"],
    user=server["username"],
    password=server["password"],
    dbname=server["database-name"],
    autocommit=True,
)
db.execute("CREATE TABLE orders (id INT PRIMARY KEY, customer TEXT, amount INT)")
db.execute("ALTER TABLE orders REPLICA IDENTITY FULL")  # updates and deletes carry the old row
db.execute("INSERT INTO orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'ann', 5)")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
connection = ", ".join(f"'{key}' = '{value}'" for key, value in server.items())
t_env.execute_sql(f"""
    CREATE TABLE orders (id INT, customer STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'postgres-cdc', {connection},
          'schema-name' = 'public', 'table-name' = 'orders',
          'slot.name' = 'order_totals', 'decoding.plugin.name' = 'pgoutput')
""")
totals = t_env.execute_sql("SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer")
with totals.collect() as changes:  # the job runs until the iterator is closed
    for n, row in enumerate(changes, 1):
        print(row.get_row_kind(), row)
        if n == 4:  # the snapshot's three orders are summed: now the table changes
            db.execute("UPDATE orders SET amount = 30 WHERE id = 2")
            db.execute("DELETE FROM orders WHERE id = 1")
        if n == 8:
            break
