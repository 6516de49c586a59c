from pathlib import Path

from millstream.table import EnvironmentSettings, TableEnvironment

# a ticker of one stock, a price per second (Flink's MATCH_RECOGNIZE example)
prices = [12, 17, 19, 21, 25, 18, 15, 14, 24, 25, 19]
ticker = Path("ticker.csv").resolve()
ticker.write_text("".join(f"ACME,2011-04-01 10:00:{s:02d},{p}\n" for s, p in enumerate(prices)))

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.execute_sql(f"""
    CREATE TABLE ticker (
        symbol STRING, rowtime TIMESTAMP(3), price BIGINT,
        WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
    ) WITH ('connector' = 'filesystem', 'path' = '{ticker}', 'format' = 'csv')
""")
# the periods of a falling price: where it started, its bottom, where it rose again
t_env.execute_sql("""
    SELECT *
    FROM ticker
        MATCH_RECOGNIZE (
            PARTITION BY symbol
            ORDER BY rowtime
            MEASURES
                START_ROW.rowtime AS start_tstamp,
                LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
                LAST(PRICE_UP.rowtime) AS end_tstamp
            ONE ROW PER MATCH
            AFTER MATCH SKIP TO LAST PRICE_UP
            PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
            DEFINE
                PRICE_DOWN AS
                    (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
                    OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
                PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
        ) MR
""").print()
