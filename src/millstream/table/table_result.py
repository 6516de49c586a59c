"""``TableResult``, at PyFlink's module path ``pyflink.table.table_result``.

The names are defined in :mod:`millstream.table.api.table_result`; millstream's own modules import
them from there, never from here.
"""

from millstream.table.api.table_result import CloseableIterator, ResultKind, TableResult

__all__ = ["CloseableIterator", "ResultKind", "TableResult"]
