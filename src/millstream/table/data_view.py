"""``ListView``, ``MapView``, at PyFlink's module path ``pyflink.table.data_view``.

The names are defined in :mod:`millstream.table.functions.data_view`; millstream's own modules
import them from there, never from here.
"""

from millstream.table.functions.data_view import DataView, ListView, MapView

__all__ = ["DataView", "ListView", "MapView"]
