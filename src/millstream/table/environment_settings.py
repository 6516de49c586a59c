"""``pyflink.table.environment_settings``'s name: ``EnvironmentSettings``
(defined in ``millstream.table.table_environment``)."""

from millstream.table.table_environment import EnvironmentSettings

__all__ = ["EnvironmentSettings"]
