"""``SqlDialect`` (``pyflink.table.sql_dialect``): millstream parses Flink's default dialect."""

from __future__ import annotations

__all__ = ["SqlDialect"]


class SqlDialect:
    """``DEFAULT`` (Flink SQL); ``HIVE`` is accepted by name but not parsed differently."""

    DEFAULT = 0
    HIVE = 1
