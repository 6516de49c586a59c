"""Row and RowKind, as in ``pyflink.common.types``.

A ``Row`` holds an ordered list of values, optionally with field names, and a
``RowKind`` (change flag). ``Row(total=140, number=2)`` keeps the keywords' order, as
PyFlink 2.3 does (its docstring still says the names are sorted; its code does not).
Rows with names are equal when they hold the same values under the same names, in
any order; a Row with names never equals one without.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

__all__ = ["Row", "RowKind"]


class RowKind(Enum):
    """The kind of change a row describes."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    def short_string(self) -> str:
        """Flink's short form: ``+I``, ``-U``, ``+U``, ``-D``."""
        return _SHORT[self]

    def __str__(self) -> str:
        return _SHORT[self]


_SHORT = {
    RowKind.INSERT: "+I",
    RowKind.UPDATE_BEFORE: "-U",
    RowKind.UPDATE_AFTER: "+U",
    RowKind.DELETE: "-D",
}


def _create_row(fields: list[str] | None, values: Any, row_kind: RowKind | None = None) -> Row:
    row = Row(*values)
    if fields is not None:
        row._fields = list(fields)
    if row_kind is not None:
        row._row_kind = row_kind
    return row


class Row:
    """A row of values; fields are reachable by index, by name (``row["f"]``) and as attributes.

    ``Row("name", "age")`` used as a class: calling it creates rows with those field names.
    """

    __slots__ = ("_fields", "_from_dict", "_row_kind", "_values")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            object.__setattr__(self, "_fields", list(kwargs))
            object.__setattr__(self, "_values", list(kwargs.values()))
            object.__setattr__(self, "_from_dict", True)
        else:
            object.__setattr__(self, "_values", list(args))
            object.__setattr__(self, "_from_dict", False)
        object.__setattr__(self, "_row_kind", RowKind.INSERT)

    @classmethod
    def of_kind(cls, row_kind: RowKind, *args: Any, **kwargs: Any) -> Row:
        """A row of ``args`` (or named ``kwargs``) with the change kind ``row_kind``."""
        row = cls(*args, **kwargs)
        row.set_row_kind(row_kind)
        return row

    def as_dict(self, recursive: bool = False) -> dict[str, Any]:
        """Return the row as a dict of field name to value (nested rows too if ``recursive``)."""
        fields = self._field_names()
        if fields is None:
            raise TypeError("Cannot convert a Row class into dict")
        if not recursive:
            return dict(zip(fields, self._values))

        def conv(obj: Any) -> Any:
            if isinstance(obj, Row):
                return obj.as_dict(True)
            if isinstance(obj, list):
                return [conv(o) for o in obj]
            if isinstance(obj, dict):
                return {k: conv(v) for k, v in obj.items()}
            return obj

        return {k: conv(v) for k, v in zip(fields, self._values)}

    def get_row_kind(self) -> RowKind:
        """The change flag of this row."""
        return self._row_kind

    def set_row_kind(self, row_kind: RowKind) -> None:
        """Set the change flag of this row."""
        object.__setattr__(self, "_row_kind", row_kind)

    def set_field_names(self, field_names: list[str]) -> None:
        """Name the fields of this row (the list is kept, not copied, as PyFlink does)."""
        object.__setattr__(self, "_fields", field_names)

    def get_fields_by_names(self, names: list[str]) -> list[Any]:
        """The values of the fields ``names``, in that order (all values if this row has no
        names or exactly these): how PyFlink hands a Row to a declared row type."""
        fields = self._field_names()
        if fields is None or names == fields:
            return self._values
        missing = [n for n in names if n not in fields]
        if missing:
            raise ValueError(f"Field names {missing} not exist in {fields}.")
        return [self._values[fields.index(n)] for n in names]

    def _is_retract_msg(self) -> bool:
        return self._row_kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE)

    def _is_accumulate_msg(self) -> bool:
        return self._row_kind in (RowKind.UPDATE_AFTER, RowKind.INSERT)

    def _field_names(self) -> list[str] | None:
        try:
            return self._fields
        except AttributeError:
            return None

    def __contains__(self, item: Any) -> bool:
        """A field name of a row with names, else a value."""
        fields = self._field_names()
        return item in (fields if fields is not None else self._values)

    def __call__(self, *args: Any) -> Row:
        if len(args) > len(self):
            raise ValueError(
                f"Can not create Row with fields {self}, expected {len(self)} values but got {args}"
            )
        return _create_row(self._values, args, self._row_kind)

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, slice)):
            return self._values[item]
        fields = self._field_names()
        if fields is None:
            raise KeyError(item)
        if item not in fields:
            raise ValueError(item)  # PyFlink's error for a name the row does not have
        return self._values[fields.index(item)]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, (int, slice)):
            self._values[key] = value
            return
        fields = self._field_names()
        if fields is None:
            raise KeyError(key)
        if key not in fields:
            raise ValueError(value)  # PyFlink's error (it names the value)
        self._values[fields.index(key)] = value

    def __getattr__(self, item: str) -> Any:
        if item.startswith("_"):
            raise AttributeError(item)
        fields = self._field_names()
        if fields is None or item not in fields:
            raise AttributeError(item)
        return self._values[fields.index(item)]

    def __setattr__(self, key: str, value: Any) -> None:
        if key not in ("_fields", "_from_dict", "_row_kind", "_values"):
            raise AttributeError(key)
        object.__setattr__(self, key, value)

    def __reduce__(self) -> tuple[Any, ...]:
        return _create_row, (self._field_names(), tuple(self._values), self._row_kind)

    def __repr__(self) -> str:
        fields = self._field_names()
        if fields is not None:
            return "Row({})".format(", ".join(f"{k}={v!r}" for k, v in zip(fields, self._values)))
        return "<Row({})>".format(", ".join(repr(v) for v in self._values))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Row) or type(self) is not type(other):
            return False
        if self._row_kind != other._row_kind:
            return False
        fields, other_fields = self._field_names(), other._field_names()
        if fields is None or other_fields is None:
            return fields is other_fields and self._values == other._values
        if fields == other_fields:
            return self._values == other._values
        if sorted(fields) != sorted(other_fields):
            return False
        # the same names in another order: compare by name, as PyFlink does
        return all(self._values[fields.index(n)] == other._values[other_fields.index(n)] for n in fields)

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
