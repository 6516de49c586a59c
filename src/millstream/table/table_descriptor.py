"""``TableDescriptor``, ``FormatDescriptor``, at PyFlink's module path ``pyflink.table.table_descriptor``.

The names are defined in :mod:`millstream.table.api.table_descriptor`; millstream's own modules
import them from there, never from here.
"""

from millstream.table.api.table_descriptor import FormatDescriptor, TableDescriptor

__all__ = ["FormatDescriptor", "TableDescriptor"]
