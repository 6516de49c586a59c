from pathlib import Path

from millstream.table import EnvironmentSettings, TableEnvironment

# orders, and the changes of the currency rates (debezium-json: an insert, then an update)
Path("orders.csv").write_text(
    "o_001,12.00,EUR,2024-01-01 10:00:03\n"
    "o_002,10.00,USD,2024-01-01 10:00:05\n"
    "o_003,5.00,EUR,2024-01-01 10:00:11\n"
    "o_004,8.00,GBP,2024-01-01 10:00:12\n"
)
euro = '"currency":"EUR","conversion_rate":{},"update_time":"2024-01-01 10:00:{:02d}"'
Path("rates.json").write_text(
    f'{{"before":null,"after":{{{euro.format(1.14, 0)}}},"op":"c"}}\n'
    '{"before":null,"after":{"currency":"USD","conversion_rate":1.00,'
    '"update_time":"2024-01-01 10:00:00"},"op":"c"}\n'
    f'{{"before":{{{euro.format(1.14, 0)}}},"after":{{{euro.format(1.08, 10)}}},"op":"u"}}\n'
)
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE orders (
        order_id STRING, price DECIMAL(32, 2), currency STRING, order_time TIMESTAMP(3),
        WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
    ) WITH ('connector' = 'filesystem', 'path' = '{Path("orders.csv").resolve()}', 'format' = 'csv')
""")
# a versioned table: a primary key, and a watermark on the time each version starts at
t_env.execute_sql(f"""
    CREATE TABLE currency_rates (
        currency STRING, conversion_rate DECIMAL(32, 2), update_time TIMESTAMP(3),
        WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
        PRIMARY KEY (currency) NOT ENFORCED
    ) WITH ('connector' = 'filesystem', 'path' = '{Path("rates.json").resolve()}',
            'format' = 'debezium-json')
""")
# each order with the rate of its currency valid at the order's time
t_env.execute_sql("""
    SELECT order_id, price, orders.currency, conversion_rate, order_time
    FROM orders
    LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
    ON orders.currency = currency_rates.currency
""").print()
