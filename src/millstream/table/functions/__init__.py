"""Functions of the Table API and SQL: one definition per built-in function (Flink's
``BuiltInFunctionDefinitions``, with its row, Arrow and type rules), the built-in aggregates,
and user-defined functions with their wrappers and data views (``pyflink.table.udf``,
``pyflink.table.data_view``; flink-table-runtime's functions)."""
