"""Group and over windows, at PyFlink's module path ``pyflink.table.window``.

The names are defined in :mod:`millstream.table.api.window`; millstream's own modules import them
from there, never from here.
"""

from millstream.table.api.window import GroupWindow, Over, OverWindow, Session, Slide, Tumble

__all__ = ["GroupWindow", "Over", "OverWindow", "Session", "Slide", "Tumble"]
