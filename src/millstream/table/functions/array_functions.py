"""Flink's ARRAY_* and MAP_* functions as Flink 2.3 computes and types them (the types, casts
and constructors: ``functions/collections.py``), and the definitions of every collection
function (``COLLECTIONS``).

ARRAY_EXCEPT, ARRAY_INTERSECT and ARRAY_UNION give distinct elements in their first
appearance's order (``ARRAY_EXCEPT(ARRAY[1, 1], ARRAY[2])`` is ``[1]``); ARRAY_CONTAINS,
ARRAY_REMOVE and ARRAY_POSITION compare a NULL as a value; ARRAY_SORT(a [, ascending [,
nulls_first]]) puts the NULLs first when ascending unless told (a NULL flag gives NULL) and
orders texts as Java's ``compareTo``; ARRAY_SLICE(a, from [, to]) counts from 1, a negative
position from the end, 0 as 1; ARRAY_JOIN(a, sep [, null_text]) leaves NULLs out unless given a
text for them; MAP_UNION's later maps win, their entries first (``MAP_UNION(MAP['a', 1],
MAP['b', 2])`` is ``{b=2, a=1}``); MAP_FROM_ARRAYS of arrays of different lengths fails the job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.common.printing import summary_string
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType
from millstream.table.functions.collections import (
    _INVALID,
    _ORDERED,
    CollectionError,
    _array,
    _array_type,
    _at,
    _at_type,
    _cardinality_type,
    _cast,
    _cast_each,
    _common_or_refuse,
    _element,
    _element_of,
    _element_type,
    _map,
    _map_type,
    _needle_type,
    _nullable_if,
)
from millstream.table.functions.definition import FunctionDefinition

__all__ = ["COLLECTIONS"]


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def _sort_key(value: Any) -> Any:
    """Java's order: a text by its UTF-16 code units."""
    return value.encode("utf-16-be", "surrogatepass") if isinstance(value, str) else value


# -- types ----------------------------------------------------------------------------------------


def _same_array(args: list[DataType]) -> DataType:
    """``nullableIfArgs(argument(0))``."""
    _element_of(args[0])
    return _nullable_if(args[0], args)


def _first_array(args: list[DataType]) -> DataType:
    """``nullableIfArgs(ConstantArgumentCount.of(0), argument(0))``: the array's nullability only."""
    _element_of(args[0])
    return args[0]


def _append_type(args: list[DataType]) -> DataType:
    """``ArrayAppendPrependTypeStrategy``: an array of NOT NULL elements takes a nullable one."""
    element = _needle_type(args)
    return _nullable_if(DataTypes.ARRAY(element), args)


def _common_arrays(args: list[DataType]) -> DataType:
    for arg in args:
        if not isinstance(arg, ArrayType) and arg.root != "NULL":
            raise ValueError(_INVALID)
    return _nullable_if(_common_or_refuse(args), args)


def _contains_type(args: list[DataType]) -> DataType:
    _needle_type(args)
    return DataTypes.BOOLEAN(args[0].is_nullable())


def _position_type(args: list[DataType]) -> DataType:
    _needle_type(args)
    return _nullable_if(DataTypes.INT(), args)


def _remove_type(args: list[DataType]) -> DataType:
    _needle_type(args)
    return args[0]


def _comparable(args: list[DataType], name: str) -> DataType:
    element = _element_of(args[0])
    if element.root not in _ORDERED and element.root != "NULL":
        if name == "ARRAY_SORT":
            raise ValueError(_INVALID)
        raise ValueError(
            f"Type '{summary_string(element)}' should support both 'EQUALS' and 'ORDER' comparison with "
            "itself."
        )
    return element


def _sort_type(args: list[DataType]) -> DataType:
    _comparable(args, "ARRAY_SORT")
    return _nullable_if(args[0], args)


def _extreme_type(args: list[DataType]) -> DataType:
    return _comparable(args, "ARRAY_MAX").nullable()


def _join_type(args: list[DataType]) -> DataType:
    element = _element_of(args[0])
    if element.root not in ("CHAR", "VARCHAR", "STRING", "NULL"):
        raise ValueError(_INVALID)
    return _nullable_if(DataTypes.STRING(), args)


def _map_of(arg: DataType) -> MapType:
    if not isinstance(arg, MapType):
        raise ValueError(_INVALID)
    return arg


def _keys_type(args: list[DataType]) -> DataType:
    return _nullable_if(DataTypes.ARRAY(_map_of(args[0]).key_type), args)


def _values_type(args: list[DataType]) -> DataType:
    return _nullable_if(DataTypes.ARRAY(_map_of(args[0]).value_type), args)


def _entries_type(args: list[DataType]) -> DataType:
    map_type = _map_of(args[0])
    row = DataTypes.ROW(
        [DataTypes.FIELD("key", map_type.key_type), DataTypes.FIELD("value", map_type.value_type)]
    )
    return _nullable_if(DataTypes.ARRAY(row), args)


def _from_arrays_type(args: list[DataType]) -> DataType:
    return _nullable_if(DataTypes.MAP(_element_of(args[0]), _element_of(args[1])), args)


def _union_maps_type(args: list[DataType]) -> DataType:
    for arg in args:
        if arg.root != "NULL":
            _map_of(arg)
    return _nullable_if(_common_or_refuse(args), args)


# -- implementations over the arguments' types ------------------------------------------------------


def _with_needle(action: Callable[[list[Any], Any], Any]) -> Callable[[list[DataType], list[Any]], Any]:
    """A function of an array and an element cast to the array's element type (a NULL element
    too: the definition is NULL-aware; a NULL array gives NULL)."""

    def bind(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
        cast = _cast(args[1], _needle_type(args))
        return lambda values, needle: None if values is None else action(values, cast(needle))

    return bind


def _with_common(action: Callable[..., Any]) -> Callable[[list[DataType], list[Any]], Any]:
    """A function of arrays (or maps) cast to their common type."""

    def bind(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
        common = _common_or_refuse(args)
        casts = [_cast_each(a, common) if isinstance(common, ArrayType) else _cast(a, common) for a in args]
        return lambda *values: action(*(cast(v) for cast, v in zip(casts, values, strict=True)))

    return bind


def _contains(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    """ARRAY_CONTAINS: a NULL needle is looked for as a value (NULL only for a NULL array)."""
    cast = _cast(args[1], _needle_type(args))
    return lambda values, needle: None if values is None else cast(needle) in values


def _remove(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    """ARRAY_REMOVE: a NULL needle removes the NULLs (NULL only for a NULL array)."""
    cast = _cast(args[1], _needle_type(args))

    def remove(values: list[Any] | None, needle: Any) -> list[Any] | None:
        if values is None:
            return None
        removed = cast(needle)
        return [x for x in values if x != removed]

    return remove


def _array_slice(values: list[Any], start: int, end: int | None = None) -> list[Any]:
    size = len(values)
    first = start if start > 0 else size + start + 1 if start < 0 else 1
    last = size if end is None else end if end >= 0 else size + end + 1
    return values[max(first, 1) - 1 : max(last, 0)]


def _array_sort(values: list[Any], ascending: bool = True, nulls_first: bool | None = None) -> list[Any]:
    present = sorted((v for v in values if v is not None), key=_sort_key, reverse=not ascending)
    nulls = [None] * (len(values) - len(present))
    first = ascending if nulls_first is None else nulls_first
    return nulls + present if first else present + nulls


def _array_join(values: list[Any], separator: str, null_text: str | None = None) -> str:
    shown = [v if v is not None else null_text for v in values]
    return separator.join(v for v in shown if v is not None)


def _extreme(pick: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    def apply(values: list[Any]) -> Any:
        present = [v for v in values if v is not None]
        return pick(present, key=_sort_key) if present else None

    return apply


def _map_from_arrays(keys: list[Any], values: list[Any]) -> dict[Any, Any]:
    if len(keys) != len(values):
        raise CollectionError(
            "Invalid function MAP_FROM_ARRAYS call: the key array and the value array have different "
            f"lengths ({len(keys)} and {len(values)})"
        )
    return dict(zip(keys, values, strict=True))


def _map_union(*maps: dict[Any, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for entries in reversed(maps):  # the later maps' entries first, and their values
        for key, value in entries.items():
            if key not in out:
                out[key] = value
    return out


def _unused(*args: Any) -> Any:  # the bound implementation runs instead
    raise AssertionError("a collection function runs its bound implementation")


def _bound(name: str, rule: Callable[[list[DataType]], DataType], bind: Any, null_aware: bool = False) -> Any:
    return FunctionDefinition(name, _unused, rule, null_aware=null_aware, bind=bind)


COLLECTIONS: list[FunctionDefinition] = [
    _bound("ARRAY", _array_type, _array, null_aware=True),
    _bound("MAP", _map_type, _map, null_aware=True),
    _bound("AT", _at_type, _at),
    FunctionDefinition("CARDINALITY", len, _cardinality_type),
    FunctionDefinition("ELEMENT", _element, _element_type),
    _bound("ARRAY_APPEND", _append_type, _with_needle(lambda values, v: [*values, v]), null_aware=True),
    _bound("ARRAY_PREPEND", _append_type, _with_needle(lambda values, v: [v, *values]), null_aware=True),
    _bound("ARRAY_CONCAT", _common_arrays, _with_common(lambda *arrays: [v for a in arrays for v in a])),
    FunctionDefinition("ARRAY_CONTAINS", _unused, _contains_type, null_aware=True, bind=_contains),
    FunctionDefinition("ARRAY_DISTINCT", _distinct, _same_array),
    _bound(
        "ARRAY_EXCEPT", _common_arrays, _with_common(lambda a, b: _distinct([v for v in a if v not in b]))
    ),
    _bound("ARRAY_INTERSECT", _common_arrays, _with_common(lambda a, b: _distinct([v for v in a if v in b]))),
    _bound("ARRAY_UNION", _common_arrays, _with_common(lambda a, b: _distinct([*a, *b]))),
    FunctionDefinition("ARRAY_JOIN", _array_join, _join_type),
    FunctionDefinition("ARRAY_MAX", _extreme(max), _extreme_type),
    FunctionDefinition("ARRAY_MIN", _extreme(min), _extreme_type),
    _bound(
        "ARRAY_POSITION",
        _position_type,
        _with_needle(lambda values, v: values.index(v) + 1 if v in values else 0),
    ),
    FunctionDefinition("ARRAY_REMOVE", _unused, _remove_type, null_aware=True, bind=_remove),
    FunctionDefinition("ARRAY_REVERSE", lambda values: values[::-1], _same_array),
    FunctionDefinition("ARRAY_SLICE", _array_slice, _same_array),
    FunctionDefinition("ARRAY_SORT", _array_sort, _sort_type),
    FunctionDefinition("MAP_KEYS", lambda entries: list(entries.keys()), _keys_type),
    FunctionDefinition("MAP_VALUES", lambda entries: list(entries.values()), _values_type),
    FunctionDefinition("MAP_ENTRIES", lambda entries: [(k, v) for k, v in entries.items()], _entries_type),
    FunctionDefinition("MAP_FROM_ARRAYS", _map_from_arrays, _from_arrays_type),
    _bound("MAP_UNION", _union_maps_type, _with_common(_map_union)),
]
