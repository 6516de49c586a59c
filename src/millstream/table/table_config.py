"""``TableConfig``, at PyFlink's module path ``pyflink.table.table_config``.

The names are defined in :mod:`millstream.table.api.table_config`; millstream's own modules import
them from there, never from here.
"""

from millstream.table.api.table_config import TableConfig

__all__ = ["TableConfig"]
