"""The built-in table connectors: ``filesystem`` (Flink's flink-connector-files table factory)
and ``datagen`` / ``print`` / ``blackhole`` (flink-table-api-java-bridge's), found by
identifier through the factory SPI of :mod:`millstream.table.common.factories`."""
