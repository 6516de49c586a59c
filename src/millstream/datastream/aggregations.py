"""Built-in rolling aggregations of ``KeyedStream`` (sum, min, max, min_by, max_by).

They follow Flink's ``SumAggregator`` / ``ComparableAggregator``: ``sum``, ``min`` and
``max`` update one field of the first element seen for the key (its other fields are
kept); ``min_by`` / ``max_by`` keep the whole element holding the extreme value, the
earlier one on ties. A field is a tuple/list index or a Row field name; plain numbers
are aggregated as themselves.
"""

from __future__ import annotations

from typing import Any

from millstream.common.typeinfo import TupleTypeInfo
from millstream.common.types import Row

__all__ = ["ComparableAggregator", "SumAggregator"]


def _get(value: Any, position: int | str) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return value[position]


def _with_field(value: Any, position: int | str, field_value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return field_value
    if isinstance(value, tuple):
        index = position if isinstance(position, int) else int(position)
        return value[:index] + (field_value,) + value[index + 1 :]
    if isinstance(value, Row):
        copy = Row(*value)
        fields = value._field_names()
        if fields is not None:
            copy.set_field_names(fields)
        copy.set_row_kind(value.get_row_kind())
        copy[position] = field_value
        return copy
    if isinstance(value, list):
        copy_list = list(value)
        copy_list[position] = field_value  # type: ignore[index]
        return copy_list
    if isinstance(value, dict):
        copy_dict = dict(value)
        copy_dict[position] = field_value
        return copy_dict
    raise TypeError(f"cannot aggregate field {position!r} of {type(value).__name__}")


class SumAggregator:
    """Rolling sum of one field; ``reduce`` is a plain closure (no method dispatch per element)."""

    def __init__(self, position: int | str, type_info: Any = None) -> None:
        self.position = position
        generic = _sum_function(position)
        self.reduce, self.rolling = _compiled(type_info, position, "({fields})", "a[{p}] + b[{p}]", generic)


def _sum_function(pos: int | str) -> Any:
    def reduce(value1: Any, value2: Any) -> Any:
        if type(value1) is tuple and type(pos) is int:
            fields = list(value1)
            fields[pos] += value2[pos]
            return tuple(fields)
        return _with_field(value1, pos, _get(value1, pos) + _get(value2, pos))

    return reduce


class ComparableAggregator:
    """Rolling min / max of one field (``by=False``) or of whole elements (``by=True``)."""

    def __init__(self, position: int | str, kind: str, by: bool, type_info: Any = None) -> None:
        self.position = position
        self.is_min = kind == "min"
        self.by = by
        generic = _comparable_function(position, kind == "min", by)
        op = "<" if self.is_min else ">"
        chosen = "b" if by else "({fields})"
        template = "(" + chosen + " if b[{p}] " + op + " a[{p}] else a)"
        self.reduce, self.rolling = _compiled(type_info, position, template, "b[{p}]", generic)


# The rolling update of a batch with the reduce written inline (no call per element); the
# keyed reduce operator runs it in STREAMING mode. ``field``: the key is ``b[field]`` (a key
# selector ``itemgetter(field)``), else ``key(b)``.
_ROLLING = """
def rolling(values, reduced, append, key, field):
    get = reduced.get
    if key is None:
        for b in values:
            k = b[field]
            a = get(k, missing)
            if a is not missing:
                b = {body} if len(a) == {arity} else generic(a, b)
            reduced[k] = b
            append(b)
    else:
        for b in values:
            k = key(b)
            a = get(k, missing)
            if a is not missing:
                b = {body} if len(a) == {arity} else generic(a, b)
            reduced[k] = b
            append(b)
"""


def _compiled(
    type_info: Any, position: int | str, template: str, field: str, generic: Any
) -> tuple[Any, Any]:
    """An arity-specific reduce for a declared tuple type, e.g. ``(a[0], a[1] + b[1])``, and
    the rolling update of a batch with it inline; ``(generic, None)`` for other types.

    Only the layout (arity and position) reaches the compiled source, never user data;
    values of another arity fall back to the generic function.
    """
    types = getattr(type_info, "types", None)
    if not isinstance(type_info, TupleTypeInfo) or not isinstance(position, int) or types is None:
        return generic, None
    arity = len(types)
    if not 0 <= position < arity:
        return generic, None
    fields = ", ".join(field.format(p=i) if i == position else f"a[{i}]" for i in range(arity))
    body = template.format(fields=fields + ("," if arity == 1 else ""), p=position)
    namespace = {"generic": generic, "missing": object()}
    exec(_ROLLING.format(body=body, arity=arity), namespace)
    reduce = eval(f"lambda a, b: {body} if len(a) == {arity} else generic(a, b)", namespace)
    return reduce, namespace["rolling"]


def _comparable_function(pos: int | str, is_min: bool, by: bool) -> Any:
    def reduce(value1: Any, value2: Any) -> Any:
        a, b = _get(value1, pos), _get(value2, pos)
        take_new = b < a if is_min else b > a
        if by:
            return value2 if take_new else value1
        return _with_field(value1, pos, b) if take_new else value1

    return reduce
