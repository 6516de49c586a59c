"""Flink's array and map functions as Flink 2.3 computes and types them: the ARRAY[...] and
MAP[...] constructors, ``array[i]`` / ``map[k]`` (AT), CARDINALITY, ELEMENT, ARRAY_APPEND,
ARRAY_PREPEND, ARRAY_CONCAT, ARRAY_CONTAINS, ARRAY_DISTINCT, ARRAY_EXCEPT, ARRAY_INTERSECT,
ARRAY_UNION, ARRAY_JOIN, ARRAY_MAX, ARRAY_MIN, ARRAY_POSITION, ARRAY_REMOVE, ARRAY_REVERSE,
ARRAY_SLICE, ARRAY_SORT, MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS and MAP_UNION.

Types are Flink's type strategies': a constructor's element (key, value) type is the common
type of its arguments (``ARRAY[1, 2.5]`` is ``ARRAY<DECIMAL(11, 1) NOT NULL>``,
``ARRAY['a', 'bb']`` ``ARRAY<VARCHAR(2) NOT NULL>``, ``ARRAY[1, CAST(NULL AS INT)]``
``ARRAY<INT>``) and its values are cast to it; an element argument (ARRAY_APPEND's,
ARRAY_CONTAINS' ...) must cast implicitly to the array's element type (a BIGINT into an
``ARRAY<INT>`` is refused: "Invalid input arguments.") and is cast to it (``ARRAY_APPEND(ARRAY['a'],
'bcd')`` is ``[a, b]``); ARRAY_UNION / CONCAT / EXCEPT / INTERSECT and MAP_UNION take the
arguments' common type; a result is nullable where Flink's ``nullableIfArgs`` makes it so (only
the array's nullability for ARRAY_CONTAINS and ARRAY_REMOVE, which compare a NULL element as a
value: ``ARRAY_CONTAINS(ARRAY[1, NULL], NULL)`` is TRUE).

Values follow Flink's functions: EXCEPT, INTERSECT and UNION give distinct elements in their
first appearance's order; ARRAY_SORT puts NULLs first when ascending unless told; MAP_UNION's
later maps win, their entries first; ``array[i]`` past the end and ``map[k]`` of a missing key
give NULL, or, where the element type is NOT NULL, Flink's generated code's default value of it
(-1 for an integer, '' for a string, FALSE for a BOOLEAN; NULL for the others), as Flink 2.3
prints them (``ARRAY[1, 2, 3][4]`` is -1); an index below 1 fails the job.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from millstream.table.common.casts import converter
from millstream.table.common.printing import summary_string
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType
from millstream.table.expression.resolved import common_type
from millstream.table.functions.variants import variant_item, variant_item_type

__all__ = ["CollectionError", "common_collection_type"]

_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_TEXT = ("CHAR", "VARCHAR", "STRING")
_INVALID = "Invalid input arguments."
# LogicalTypeCasts' implicit casts: target root -> the other roots that cast to it implicitly
_IMPLICIT = {
    "SMALLINT": ("TINYINT",),
    "INT": ("TINYINT", "SMALLINT"),
    "BIGINT": ("TINYINT", "SMALLINT", "INT"),
    "DECIMAL": _INTEGERS,
    "FLOAT": (*_INTEGERS, "DECIMAL"),
    "DOUBLE": (*_INTEGERS, "DECIMAL", "FLOAT"),
    "VARCHAR": ("CHAR", "STRING"),
    "STRING": ("CHAR", "VARCHAR"),
    "VARBINARY": ("BINARY", "BYTES"),
    "BYTES": ("BINARY", "VARBINARY"),
}
_ORDERED: tuple[str, ...] = (*_INTEGERS, "DECIMAL", "FLOAT", "DOUBLE", *_TEXT, "BINARY", "VARBINARY", "BYTES")
_ORDERED += ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")


class CollectionError(ValueError):
    """A collection function failed the job (Flink's ``TableRuntimeException``)."""


# -- types --------------------------------------------------------------------------------------


def _nullable_if(result: DataType, args: list[DataType]) -> DataType:
    return result.nullable() if any(a.is_nullable() for a in args) else result.not_null()


def common_collection_type(types: list[DataType]) -> DataType | None:
    """Flink's common type of several types, arrays and maps element by element (nullable when
    any is; None when they have none)."""
    typed = [t for t in types if t.root != "NULL"]
    if typed and all(isinstance(t, ArrayType) for t in typed):
        element = common_collection_type([t.element_type for t in typed])  # type: ignore[attr-defined]
        return None if element is None else _nullable_if(DataTypes.ARRAY(element), types)
    if typed and all(isinstance(t, MapType) for t in typed):
        key = common_collection_type([t.key_type for t in typed])  # type: ignore[attr-defined]
        value = common_collection_type([t.value_type for t in typed])  # type: ignore[attr-defined]
        if key is None or value is None:
            return None
        return _nullable_if(DataTypes.MAP(key, value), types)
    if any(isinstance(t, (ArrayType, MapType)) for t in typed):
        return None
    return common_type(types)


def _common_or_refuse(args: list[DataType]) -> DataType:
    common = common_collection_type(args)
    if common is None:
        shown = ", ".join(summary_string(a) for a in args)
        raise ValueError(f"Could not find a common type for arguments: [{shown}]")
    return common


def _implicit(source: DataType, target: DataType) -> bool:
    """``LogicalTypeCasts.supportsImplicitCast`` (a NULL casts to any type)."""
    root, to = source.root, target.root
    return root == "NULL" or root == to or root in _IMPLICIT.get(to, ())


def _element_of(array: DataType) -> DataType:
    if not isinstance(array, ArrayType):
        raise ValueError(_INVALID)
    return array.element_type


def _needle_type(args: list[DataType]) -> DataType:
    """``ArrayElementArgumentTypeStrategy``: the element type the needle is cast to."""
    element = _element_of(args[0])
    if args[1].is_nullable():
        element = element.nullable()
    if not _implicit(args[1], element):
        raise ValueError(_INVALID)
    return element


def _cast(source: DataType, target: DataType) -> Callable[[Any], Any]:
    if source == target or source.root == "NULL":
        return lambda value: value
    convert = converter(source, target)
    return lambda value: None if value is None else convert(value)


def _cast_each(source: DataType, target: DataType) -> Callable[[Any], Any]:
    """An array of ``source`` as an array of ``target`` (element by element)."""
    if source == target or source.root == "NULL":
        return lambda values: values
    convert = _cast(_element_of(source), _element_of(target))
    return lambda values: None if values is None else [convert(v) for v in values]


# -- constructors and access --------------------------------------------------------------------


def _array_type(args: list[DataType]) -> DataType:
    if not args:
        raise ValueError("Require at least 1 argument")
    if all(a.root == "NULL" for a in args):
        raise ValueError("Parameters must be of the same type")
    return DataTypes.ARRAY(_common_or_refuse(args), False)


def _array(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    element = _common_or_refuse(args)
    casts = [_cast(a, element) for a in args]
    return lambda *values: [cast(v) for cast, v in zip(casts, values, strict=True)]


def _map_type(args: list[DataType]) -> DataType:
    if len(args) % 2:
        raise ValueError("Map requires an even number of arguments")
    if not args:
        raise ValueError("Require at least 1 argument")
    return DataTypes.MAP(_common_or_refuse(args[::2]), _common_or_refuse(args[1::2]), False)


def _map(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    key, value = _common_or_refuse(args[::2]), _common_or_refuse(args[1::2])
    keys = [_cast(a, key) for a in args[::2]]
    values = [_cast(a, value) for a in args[1::2]]

    def construct(*pairs: Any) -> dict[Any, Any]:
        return {
            cast_key(k): cast_value(v)
            for cast_key, cast_value, k, v in zip(keys, values, pairs[::2], pairs[1::2], strict=True)
        }

    return construct


def _default_value(data_type: DataType) -> Any:
    """What an element read past an array's end or a missing map key gives: NULL for a nullable
    element type, else Flink's generated code's default value of the type
    (``primitiveDefaultValue``), which it reads without a NULL check."""
    if data_type.is_nullable():
        return None
    root = data_type.root
    if root in _INTEGERS:
        return -1
    if root in ("FLOAT", "DOUBLE"):
        return -1.0
    if root == "BOOLEAN":
        return False
    if root == "CHAR":  # the empty text, which Flink prints padded to the CHAR's length
        return " " * int(data_type.params[0]) if data_type.params else " "
    if root in _TEXT:
        return ""
    if root == "DATE":
        return datetime.date(1969, 12, 31)
    if root == "TIME":
        return datetime.time(23, 59, 59, 999_000)
    return None


def _at_type(args: list[DataType]) -> DataType:
    container = args[0]
    if isinstance(container, ArrayType):
        if args[1].root not in (*_INTEGERS, "NULL"):
            raise ValueError(
                f"Cannot apply 'ITEM' to arguments of type 'ITEM({summary_string(container)}, ...)'"
            )
        return container.element_type.nullable()
    if isinstance(container, MapType):
        return container.value_type.nullable()
    if container.root == "VARIANT":
        return variant_item_type(args)
    raise ValueError(f"Cannot apply 'ITEM' to arguments of type 'ITEM({summary_string(container)}, ...)'")


def _at(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    container = args[0]
    if container.root == "VARIANT":
        return variant_item
    if isinstance(container, MapType):
        missing = _default_value(container.value_type)
        key = _cast(args[1], container.key_type)
        return lambda entries, k: entries.get(key(k), missing)
    missing = _default_value(container.element_type)  # type: ignore[attr-defined]

    def item(values: list[Any], index: int) -> Any:
        if index < 1:
            raise CollectionError(f"Array element access needs an index starting at 1 but was {index}.")
        return values[index - 1] if index <= len(values) else missing

    return item


def _element(values: list[Any]) -> Any:
    if len(values) > 1:
        raise CollectionError("Array has more than one element.")
    return values[0] if values else None


def _element_type(args: list[DataType]) -> DataType:
    element = _element_of(args[0])
    return element.nullable() if args[0].is_nullable() else element


def _cardinality_type(args: list[DataType]) -> DataType:
    if not isinstance(args[0], (ArrayType, MapType)) and args[0].root not in ("NULL", "MULTISET"):
        raise ValueError(f"Cannot apply 'CARDINALITY' to arguments of type 'CARDINALITY(<{args[0].root}>)'")
    return _nullable_if(DataTypes.INT(), args)
