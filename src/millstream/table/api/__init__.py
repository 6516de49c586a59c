"""The Table API as users write it (Flink's flink-table-api-java, PyFlink's ``pyflink.table``):
``TableEnvironment``, ``Table``, ``TableResult``, ``StatementSet``, ``EnvironmentSettings``,
``TableConfig``, ``TableDescriptor``, ``Schema``, group and over windows, the expression
functions (``col``, ``lit`` ...) and the catalog methods.

The top layer of ``millstream.table``: it may import every package below it (sql, planner,
connectors, runtime, functions, expression, common); none of them imports it. PyFlink's
module paths (``millstream.table.table_environment`` ...) re-export these modules' names."""
