"""``pyflink.table.expressions``' JSON constructors: ``json_object``, ``json_array``, their
aggregates ``json_object_agg`` / ``json_array_agg``, and ``json`` (pre-formatted JSON text
inside them). Each builds the call SQL's form builds (``sql/forms.py``: ``JSON_OBJECT(KEY k
VALUE v ABSENT ON NULL)``, ``JSON_ARRAYAGG(x NULL ON NULL)`` ...), so the values are the SQL
functions' (``functions/json_values.py``, ``functions/aggregates_more.py``).

A value that is itself a JSON constructor's call (``json_object``, ``json_array``, ``json``)
goes into the enclosing JSON as JSON, not as a string, as Flink decides it by the call
(``JsonGenerateUtils``): ``json_object(JsonOnNull.NULL, 'K1', json_object(JsonOnNull.NULL,
'K2', 'V'))`` is ``{"K1":{"K2":"V"}}``.
"""

from __future__ import annotations

import json as _json
from typing import Any

from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.calls import _Tuple
from millstream.table.expression.enums import JsonOnNull
from millstream.table.expression.expression import AggregateCall, Compiled, Expression, _Literal, _wrap, lit
from millstream.table.functions.aggregates_more import JSON_ARRAYAGG, JSON_OBJECTAGG
from millstream.table.functions.builtins import call_builtin

__all__ = ["is_json_constructor", "json", "json_array", "json_array_agg", "json_object", "json_object_agg"]

_CONSTRUCTORS = ("JSON_OBJECT", "JSON_ARRAY")


class _Json(Expression):
    """``json(value)``: JSON text written into an enclosing ``json_object`` / ``json_array``
    as JSON (blank text: NULL). On its own it is refused, as Flink's."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def aggregates(self) -> list[Any]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        example = """JSON_OBJECT('a', JSON('{"key": "value"}')) or JSON_ARRAY(JSON('{"key": "value"}'))"""
        raise ValueError(
            "The JSON() function is currently only supported inside JSON_ARRAY() or as the VALUE param of "
            f"JSON_OBJECT(). Example: {example}."
        )

    def __repr__(self) -> str:
        return f"JSON({self.operand!r})"


def is_json_constructor(value: Any) -> bool:
    """Whether ``value`` is written as JSON into an enclosing JSON value: a ``json_object``,
    ``json_array`` or ``json`` call."""
    return isinstance(value, _Json) or getattr(value, "name_", None) in _CONSTRUCTORS


def _value(value: Any) -> Expression:
    """A JSON value or array element: ``json(s)`` there is the call ``$JSON`` (its text parsed)."""
    if isinstance(value, _Json):
        return call_builtin("$JSON", value.operand)
    return _wrap(value)


def _raw_flags(values: list[Any]) -> str:
    return "".join("1" if is_json_constructor(v) else "0" for v in values)


def _on_null(on_null: Any) -> str:
    """``JsonOnNull.NULL`` / ``.ABSENT`` as the SQL form's ``NULL`` / ``ABSENT`` (ON NULL)."""
    name = on_null.name if isinstance(on_null, JsonOnNull) else str(on_null).upper()
    if name not in ("NULL", "ABSENT"):
        raise ValueError(f"on_null must be JsonOnNull.NULL or JsonOnNull.ABSENT, got {on_null!r}")
    return name


def json(value: Any) -> Expression:
    """``value``, pre-formatted JSON text, written as it is (not as a string) into the
    ``json_object`` or ``json_array`` it is a value of; NULL or blank text is NULL. It can only
    be used there: ``json_object(JsonOnNull.NULL, 'nested', json('{"value": 42}'))`` is
    ``{"nested":{"value":42}}``."""
    return _Json(_wrap(value))


def json_object(on_null: JsonOnNull = JsonOnNull.NULL, *args: Any) -> Expression:
    """A JSON object (STRING NOT NULL) of alternating keys and values: keys non-NULL strings,
    values any expression; a NULL value is ``null`` with ``JsonOnNull.NULL`` and left out with
    ``JsonOnNull.ABSENT``. ``json_object(JsonOnNull.NULL, 'K1', 'V1', 'K2', 'V2')`` is
    ``{"K1":"V1","K2":"V2"}``, ``json_object()`` is ``{}``."""
    if len(args) % 2:
        raise ValueError(
            f"json_object takes pairs of keys and values after on_null, got {len(args)} arguments"
        )
    keys, values = args[0::2], args[1::2]
    for position, key in enumerate(keys, 1):  # Flink's: [<CHARACTER_STRING> & <LITERAL NOT NULL>]
        value = key.value if isinstance(key, _Literal) else key
        if not isinstance(value, str):
            found = "Literal expected." if isinstance(key, Expression) else f"got {key!r}"
            raise ValueError(f"json_object's key {position} must be a string literal: {found}")
    pairs = [part for key, value in zip(keys, values, strict=True) for part in (_wrap(key), _value(value))]
    return call_builtin("JSON_OBJECT", lit(_on_null(on_null)), lit(_raw_flags(list(values))), *pairs)


def json_array(on_null: JsonOnNull = JsonOnNull.ABSENT, *args: Any) -> Expression:
    """A JSON array (STRING NOT NULL) of the values; a NULL value is ``null`` with
    ``JsonOnNull.NULL`` and left out with ``JsonOnNull.ABSENT`` (the default).
    ``json_array(JsonOnNull.NULL, 1, '2')`` is ``[1,"2"]``, ``json_array()`` is ``[]``."""
    items = [_value(a) for a in args]
    return call_builtin("JSON_ARRAY", lit(_on_null(on_null)), lit(_raw_flags(list(args))), *items)


# the JSON aggregates' type in the Table API (SQL's, Calcite's, is VARCHAR(2000) NOT NULL)
_AGGREGATE_TYPE = DataTypes.STRING(False)


def json_array_agg(on_null: JsonOnNull, item_expr: Any) -> Expression:
    """An aggregate: the group's values as a JSON array (STRING NOT NULL), in arrival order;
    a NULL value is ``null`` with ``JsonOnNull.NULL``, left out with ``JsonOnNull.ABSENT``
    (``json(...)`` is refused here, as Flink's)."""
    spec = {"null": _on_null(on_null), "raw": is_json_constructor(item_expr)}
    return AggregateCall(JSON_ARRAYAGG + _json.dumps(spec), _wrap(item_expr)).cast(_AGGREGATE_TYPE)


def json_object_agg(on_null: JsonOnNull, key_expr: Any, value_expr: Any) -> Expression:
    """An aggregate: the group's key-value pairs as a JSON object (STRING NOT NULL); a key
    twice fails the job; a NULL value is ``null`` with ``JsonOnNull.NULL``, left out with
    ``JsonOnNull.ABSENT``."""
    spec = {"null": _on_null(on_null), "raw": is_json_constructor(value_expr)}
    pair = _Tuple([_wrap(key_expr), _wrap(value_expr)])
    return AggregateCall(JSON_OBJECTAGG + _json.dumps(spec), pair).cast(_AGGREGATE_TYPE)
