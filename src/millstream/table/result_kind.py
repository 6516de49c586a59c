"""``pyflink.table.result_kind``'s name: ``ResultKind`` (defined in ``millstream.table.api.table_result``)."""

from millstream.table.api.table_result import ResultKind

__all__ = ["ResultKind"]
