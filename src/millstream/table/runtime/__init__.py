"""The operators a table job runs, on rows and on Arrow batches (Flink's flink-table-runtime):
calc (generated code, vectorized, batch, pandas, async), group, window and over aggregation,
regular, interval and null-aware anti joins, the columnar scan and its change batches."""
