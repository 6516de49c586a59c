"""``TableEnvironment``, at PyFlink's module path ``pyflink.table.table_environment``.

The names are defined in :mod:`millstream.table.api.environment_settings`,
:mod:`millstream.table.api.statement_set`, :mod:`millstream.table.api.table_config`,
:mod:`millstream.table.api.table_environment`; millstream's own modules import them from there,
never from here.
"""

from millstream.table.api.environment_settings import EnvironmentSettings
from millstream.table.api.statement_set import StatementSet
from millstream.table.api.table_config import TableConfig
from millstream.table.api.table_environment import StreamTableEnvironment, TableEnvironment

__all__ = ["EnvironmentSettings", "StatementSet", "StreamTableEnvironment", "TableConfig", "TableEnvironment"]
