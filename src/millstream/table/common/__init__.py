"""Types and values of tables (Flink's flink-table-common): ``DataTypes`` and logical types,
timestamps, ``BinaryRowData`` hashing, changelog modes, table options, printing values and
schemas, window definitions, and the factory SPI that table connectors and formats implement
(``factories``). The bottom layer: it imports nothing else of ``millstream.table``, and it is
all that ``millstream.connectors`` imports of it."""
