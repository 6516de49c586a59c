"""``SqlDialect``, at PyFlink's module path ``pyflink.table.sql_dialect``.

The names are defined in :mod:`millstream.table.api.sql_dialect`; millstream's own modules import
them from there, never from here.
"""

from millstream.table.api.sql_dialect import SqlDialect

__all__ = ["SqlDialect"]
