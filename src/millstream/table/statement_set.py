"""``pyflink.table.statement_set``'s name: ``StatementSet``
(defined in ``millstream.table.table_environment``)."""

from millstream.table.table_environment import StatementSet

__all__ = ["StatementSet"]
