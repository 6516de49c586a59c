"""``Table`` and its grouped and windowed forms, at PyFlink's module path ``pyflink.table.table``.

The names are defined in :mod:`millstream.table.api.table`,
:mod:`millstream.table.api.table_schema`; millstream's own modules import them from there, never
from here.
"""

from millstream.table.api.table import (
    ExplainDetail,
    GroupedTable,
    GroupWindowedTable,
    OverWindowedTable,
    Table,
    WindowGroupedTable,
)
from millstream.table.api.table_schema import TableSchema

__all__ = [
    "ExplainDetail",
    "GroupWindowedTable",
    "GroupedTable",
    "OverWindowedTable",
    "Table",
    "TableSchema",
    "WindowGroupedTable",
]
