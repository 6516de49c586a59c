"""``pyflink.table.table_schema``'s name: ``TableSchema`` (defined in ``millstream.table.table``)."""

from millstream.table.table import TableSchema

__all__ = ["TableSchema"]
