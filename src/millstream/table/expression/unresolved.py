"""An expression that names what its input does not have: a field, or a function.

Resolving an expression against its input's columns is where a misspelt name shows: the
errors here say which name it is (and what the input has), so the SQL front end can say
where the statement writes it (``sql/errors.py``), as Flink's validator does, and the Table
API can say it as Flink's Table API does (``Cannot resolve field [nmae], input field
list:[name, age].``).
"""

from __future__ import annotations

from collections.abc import Sequence

from millstream.table.common.casts import cast_type_name
from millstream.table.common.types import DataType

__all__ = ["UnknownFunctionError", "UnresolvedFieldError", "type_family"]

# Calcite's SqlTypeFamily of each type: how its validator writes an argument of an unknown function
_FAMILIES = {
    "CHAR": "CHARACTER",
    "VARCHAR": "CHARACTER",
    "STRING": "CHARACTER",
    "BOOLEAN": "BOOLEAN",
    "TINYINT": "NUMERIC",
    "SMALLINT": "NUMERIC",
    "INT": "NUMERIC",
    "BIGINT": "NUMERIC",
    "DECIMAL": "NUMERIC",
    "FLOAT": "NUMERIC",
    "DOUBLE": "NUMERIC",
    "DATE": "DATE",
    "TIME": "TIME",
    "TIMESTAMP": "TIMESTAMP",
    "TIMESTAMP_LTZ": "TIMESTAMP",
    "BINARY": "BINARY",
    "VARBINARY": "BINARY",
    "BYTES": "BINARY",
    "INTERVAL_DAY_TIME": "INTERVAL_DAY_TIME",
    "INTERVAL_YEAR_MONTH": "INTERVAL_YEAR_MONTH",
    "NULL": "NULL",
}


def type_family(data_type: DataType) -> str:
    """``data_type`` as Calcite's ``No match found for function signature`` writes an argument:
    its type family (``CHARACTER``, ``NUMERIC``, ``TIMESTAMP`` ...); an array, a map or a row is
    its own family (``INTEGER ARRAY``, ``(CHAR(1), INTEGER) MAP``)."""
    family = _FAMILIES.get(data_type.root)
    if family is not None:
        return family
    key, value = getattr(data_type, "key_type", None), getattr(data_type, "value_type", None)
    if data_type.root == "MAP" and key is not None and value is not None:
        return f"({cast_type_name(key)}, {cast_type_name(value)}) MAP"
    fields = getattr(data_type, "fields", None)
    if data_type.root == "ROW" and fields is not None:
        listed = ", ".join(f"{cast_type_name(f.data_type)} {f.name}" for f in fields)
        return f"RecordType:peek_no_expand({listed})"
    return cast_type_name(data_type)


class UnresolvedFieldError(ValueError):
    """An expression reads a field its input does not have.

    Attributes:
        field: the name it reads.
        fields: the input's field names.
    """

    def __init__(self, field: str, fields: Sequence[str]) -> None:
        super().__init__(f"Cannot resolve field [{field}], input field list:[{', '.join(fields)}].")
        self.field, self.fields = field, tuple(fields)


class UnknownFunctionError(ValueError):
    """A call of a function no one registered (and no built-in has that name).

    Attributes:
        name: the function's name as the call writes it.
        argument_types: the types of its arguments; None when they are not known.
    """

    def __init__(self, name: str, argument_types: Sequence[DataType] | None = None) -> None:
        self.name = name
        self.argument_types = None if argument_types is None else tuple(argument_types)
        super().__init__(f"No match found for function signature {self.signature()}")

    def signature(self) -> str:
        """``UPPR(<CHARACTER>, <NUMERIC>)``, as Calcite's validator writes it."""
        families = ", ".join(f"<{type_family(t)}>" for t in self.argument_types or ())
        return f"{self.name}({families})"
