"""``TableSchema``, at PyFlink's module path ``pyflink.table.table_schema``.

The names are defined in :mod:`millstream.table.api.table_schema`; millstream's own modules import
them from there, never from here.
"""

from millstream.table.api.table_schema import TableSchema

__all__ = ["TableSchema"]
