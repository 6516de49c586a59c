"""What the schema'd formats share: rows with field names, formats configured by a schema object,
the fields of a record written in bulk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from millstream.common.types import Row
from millstream.connectors.file.source import StreamFormat

__all__ = []


def _named_row(names: list[str], values: list[Any]) -> Row:
    row = Row(*values)
    object.__setattr__(row, "_fields", names)  # shared, never mutated (set_field_names copies)
    return row


class _SchemaReaderFormat(StreamFormat):
    """A stream format configured by a schema object of ``schema_type``."""

    schema_type: type

    def __init__(self, schema: Any, charset: str = "UTF-8") -> None:
        super().__init__(charset)
        self.schema = schema

    @classmethod
    def for_schema(cls, schema: Any) -> Self:
        """The format reading records of ``schema``."""
        if not isinstance(schema, cls.schema_type):
            raise TypeError(
                f"{cls.__name__}.for_schema expects a {cls.schema_type.__name__}, got {type(schema).__name__}"
            )
        return cls(schema)


def _nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


def _fields_of(value: Any) -> list[Any]:
    """The fields of a record written by a bulk writer: a Row, tuple or list (by position)."""
    if isinstance(value, Row | tuple | list):
        return list(value)
    raise TypeError(f"a bulk-format file sink writes Rows or tuples, got {type(value).__name__}: {value!r}")
