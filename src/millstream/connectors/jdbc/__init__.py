"""The JDBC connector's shared layer: Flink's JDBC URLs mapped to Python DB-API drivers
(``urls``), one dialect per database (``dialects``: quoting, placeholders, the upsert
statement, Flink's type checks; ``converters``: values between Flink's SQL types and the
driver's), the connection a writer or reader holds and re-opens (``connection``), the batching
writer of the DataStream ``JdbcSink`` and the SQL sink (``output_format``), the bounded scan
(``source``, split as ``splits`` says) and the lookup function with its cache (``lookup``).

    jdbc:postgresql://host:5432/db  ->  psycopg 3           (pip install 'millstream[postgres]')
    jdbc:mysql://host:3306/db       ->  PyMySQL             (pip install 'millstream[mysql]')
    jdbc:sqlite:/path/to/file.db    ->  sqlite3             (the standard library)
"""
