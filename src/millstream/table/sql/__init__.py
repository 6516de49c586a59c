"""The SQL front end (Flink's flink-sql-parser and ``SqlToOperationConverter``): SQL text in
Flink's dialect parsed (``parser``), its special forms and expressions (``forms``,
``expressions``), statements (``statements``) and queries with their ORDER BY, subqueries and
Top-N (``query``, ``order``, ``subqueries``, ``top_n``) turned into plans."""
