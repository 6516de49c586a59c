"""``ChangelogMode``, at PyFlink's module path ``pyflink.table.changelog_mode``.

The names are defined in :mod:`millstream.table.common.changelog_mode`; millstream's own modules
import them from there, never from here.
"""

from millstream.table.common.changelog_mode import ChangelogMode

__all__ = ["ChangelogMode"]
