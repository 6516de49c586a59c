"""``pyflink.table.expression``'s name: ``Expression`` (defined in ``millstream.table.expressions``)."""

from millstream.table.expressions import Expression

__all__ = ["Expression"]
