"""``pyflink.table.explain_detail``'s name: ``ExplainDetail`` (defined in ``millstream.table.table``)."""

from millstream.table.table import ExplainDetail

__all__ = ["ExplainDetail"]
