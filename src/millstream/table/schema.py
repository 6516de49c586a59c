"""``Schema``, at PyFlink's module path ``pyflink.table.schema``.

The names are defined in :mod:`millstream.table.api.schema`; millstream's own modules import them
from there, never from here.
"""

from millstream.table.api.schema import Schema

__all__ = ["Schema"]
