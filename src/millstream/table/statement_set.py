"""``StatementSet``, at PyFlink's module path ``pyflink.table.statement_set``.

The names are defined in :mod:`millstream.table.api.statement_set`; millstream's own modules import
them from there, never from here.
"""

from millstream.table.api.statement_set import StatementSet

__all__ = ["StatementSet"]
