"""The kinds of change a table row travels with, as Flink's ``RowKind`` short strings: ``+I``
(insert), ``-U`` (update before), ``+U`` (update after), ``-D`` (delete). A changelog
stream's elements are ``(kind, values)`` pairs."""

from __future__ import annotations

__all__ = ["DELETE", "INSERT", "UPDATE_AFTER", "UPDATE_BEFORE"]

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"
