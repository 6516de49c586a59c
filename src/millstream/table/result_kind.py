"""``pyflink.table.result_kind``'s name: ``ResultKind`` (defined in ``millstream.table.table_result``)."""

from millstream.table.table_result import ResultKind

__all__ = ["ResultKind"]
