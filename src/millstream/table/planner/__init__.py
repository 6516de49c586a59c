"""The planner (Flink's flink-table-planner): logical plan nodes (``nodes``), a job's planning
phase by phase (``planning``), rewrite rules (``rules``), sub-plan reuse, physical exec nodes
(``exec_nodes``), ``explain``, select-list resolution, set operations and the columns a
columnar chain reads."""
