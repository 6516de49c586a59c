"""``pyflink.table.table_config``'s name: ``TableConfig``
(defined in ``millstream.table.table_environment``)."""

from millstream.table.table_environment import TableConfig

__all__ = ["TableConfig"]
