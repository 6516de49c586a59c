"""``EnvironmentSettings``, at PyFlink's module path ``pyflink.table.environment_settings``.

The names are defined in :mod:`millstream.table.api.environment_settings`; millstream's own modules
import them from there, never from here.
"""

from millstream.table.api.environment_settings import EnvironmentSettings

__all__ = ["EnvironmentSettings"]
