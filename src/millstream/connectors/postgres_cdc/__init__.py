"""The postgres-cdc connector: a PostgreSQL database's tables as a snapshot and then their
changes, decoded from a logical replication slot (``pgoutput``) with psycopg 3, with Flink
CDC's names. The DataStream names are in ``millstream.datastream.connectors.postgres_cdc``;
the table connector (``'connector' = 'postgres-cdc'``) is ``table``."""

__all__: list[str] = []
