"""Connectors: collection, number sequence, data generator (``datagen``), files (``file``:
FileSource and FileSink), Kafka (``kafka``: source, sink with transactions, the ``kafka`` and
``upsert-kafka`` tables, the legacy consumer and producer) and the formats of files and
records (``formats``: CSV, JSON, Parquet, Avro, raw, the changelog JSON formats). Their
PyFlink import paths are under ``millstream.datastream.connectors``."""

__all__: list[str] = []
