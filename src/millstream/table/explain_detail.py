"""``pyflink.table.explain_detail``'s name: ``ExplainDetail`` (defined in ``millstream.table.api.table``)."""

from millstream.table.api.table import ExplainDetail

__all__ = ["ExplainDetail"]
