"""Flink's VARIANT type (``PARSE_JSON`` / ``TRY_PARSE_JSON``): a JSON document kept as typed
values, as Flink's ``BinaryVariantBuilder`` builds it from Jackson's tokens and its ``toJson``
prints it.

* an integer is a long when it fits one, else a decimal of up to 38 digits, else a double
  (PyFlink 2.3.0 prints PARSE_JSON('12345678901234567890') as ``12345678901234567890`` and a
  42-digit integer as ``1.2345678901234568E41``);
* a number with a fraction is a decimal of up to 38 digits and scale (printed without its
  trailing zeros: ``1.50`` is ``1.5``, ``1.0`` is ``1``), else a double; one with an exponent
  is a double (``1e2`` is ``100.0``, ``1e400`` ``Infinity``);
* an object's fields print sorted by key as Java compares strings (``{"a":...,"b":...}``), no
  key twice (``VARIANT_DUPLICATE_KEY``) unless duplicates are allowed, the last one winning;
* Jackson reads the first value of the text and ignores what follows it (``[1,2] x`` is
  ``[1,2]``), but for a number or a keyword run into other characters (``1x``, ``truex``).

Two variants are equal when their values and their documents' keys (Flink's metadata
dictionary, in the order the text first names them) are: PyFlink 2.3.0 gives TRUE for
PARSE_JSON('{"a":1}') = PARSE_JSON('{ "a" : 1 }') and FALSE for PARSE_JSON('1') =
PARSE_JSON('1.0') and for {"a":1,"b":2} = {"b":2,"a":1}.
"""

from __future__ import annotations

import decimal
import json
import re
import struct
from typing import Any

from millstream.table.common.java_numbers import format_java_double
from millstream.table.common.types import DataType

__all__ = ["VARIANT", "Variant", "VariantError", "check_orderable", "parse_json"]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_MAX_DECIMAL = 38  # the most digits, and the largest scale, of a variant's decimal
_WHITESPACE = " \t\n\r"
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN = decimal.Context(prec=100)


class VariantError(ValueError):
    """A text PARSE_JSON cannot read, or a VARIANT accessed as what it is not."""


def VARIANT(nullable: bool = True) -> DataType:
    """The VARIANT type."""
    return DataType("VARIANT", nullable)


def check_orderable(data_type: DataType) -> None:
    """Refuses a VARIANT as a GROUP BY, DISTINCT or ORDER BY key, as Flink's planner: PyFlink
    2.3.0 fails such a query with "Type(VARIANT NOT NULL) is not an orderable data type, it is
    not supported as a ORDER_BY/GROUP_BY/JOIN_EQUAL field."."""
    if data_type.root == "VARIANT":
        shown = "VARIANT" if data_type.is_nullable() else "VARIANT NOT NULL"
        raise ValueError(
            f"Type({shown}) is not an orderable data type, "
            "it is not supported as a ORDER_BY/GROUP_BY/JOIN_EQUAL field."
        )


class _Fields(list[tuple[str, Any]]):
    """An object's fields as the text writes them (duplicates included), until built."""


class Variant:
    """A VARIANT value: ``value`` (None for JSON's null, a bool, an int (long), a Decimal, a
    float (double), a str, a list of values or a dict of values sorted by key) and ``keys``,
    its document's object keys in the order the text first names them."""

    __slots__ = ("keys", "value")

    def __init__(self, value: Any, keys: tuple[str, ...] = ()) -> None:
        self.value = value
        self.keys = keys

    def item(self, key: str | int) -> Variant | None:
        """``v['key']`` (an object's field) or ``v[i]`` (an array's i-th element, from 1); None
        (SQL's NULL) when there is no such field or element."""
        value = self.value
        if isinstance(key, str):
            if not isinstance(value, dict):
                raise VariantError(
                    "String key access on variant requires an object variant, "
                    "but a non-object variant was provided."
                )
            return Variant(value[key], self.keys) if key in value else None
        if not isinstance(value, list):
            raise VariantError(
                "Integer index access on variant requires an array variant, "
                "but a non-array variant was provided."
            )
        return Variant(value[key - 1], self.keys) if 1 <= key <= len(value) else None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Variant)
            and self.keys == other.keys
            and _canonical(self.value) == _canonical(other.value)
        )

    def __hash__(self) -> int:
        return hash(_canonical(self.value))

    def __str__(self) -> str:  # Flink's toJson: print()'s text
        return _json(self.value)

    def __repr__(self) -> str:
        return f"Variant({self})"


def parse_json(text: str, allow_duplicate_keys: bool = False) -> Variant:
    """PARSE_JSON(text[, allow_duplicate_keys]): the VARIANT of the JSON document ``text``.

    Raises:
        VariantError: the text holds no JSON value, or an object names a key twice.
    """
    start = len(text) - len(text.lstrip(_WHITESPACE))
    if start == len(text):
        raise VariantError("Unexpected null token")
    decoder = json.JSONDecoder(
        parse_int=_integer,
        parse_float=_fraction,
        parse_constant=_no_constant,
        object_pairs_hook=_Fields,
    )
    try:
        raw, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as err:
        raise VariantError(
            f"Cannot parse the JSON text: {err.msg} (line {err.lineno}, column {err.colno})"
        ) from err
    except VariantError:
        raise
    except ValueError as err:  # a number beyond Python's conversion limits
        raise VariantError(f"Cannot parse the JSON text: {err}") from err
    _check_end(text, start, end)
    keys: dict[str, None] = {}
    value = _build(raw, keys, allow_duplicate_keys)
    return Variant(value, tuple(keys))


def _check_end(text: str, start: int, end: int) -> None:
    """Jackson's check of a root value's end: a number is followed by whitespace, a keyword
    by no letter or digit (``1x`` and ``truex`` are no JSON)."""
    if end >= len(text):
        return
    first, following = text[start], text[end]
    if first in "-0123456789" and following not in _WHITESPACE:
        raise VariantError(
            f"Unexpected character ({following!r}): expected space separating root-level values"
        )
    if first in "tfn" and (following.isalnum() or following in "_$"):
        raise VariantError(f"Unrecognized token '{text[start:end]}{following}'")


def _integer(text: str) -> Any:
    value = int(text)
    if _LONG_MIN <= value <= _LONG_MAX:
        return value
    return decimal.Decimal(value) if len(text.lstrip("-")) <= _MAX_DECIMAL else float(text)


def _fraction(text: str) -> Any:
    if "e" in text or "E" in text:
        return float(text)
    number = decimal.Decimal(text)
    digits, exponent = number.as_tuple()[1:]
    if len(digits) <= _MAX_DECIMAL and -int(exponent) <= _MAX_DECIMAL:
        return number
    return float(text)


def _no_constant(text: str) -> Any:
    raise VariantError(f"Non-standard token '{text}': not a JSON value")


def _build(raw: Any, keys: dict[str, None], allow_duplicate_keys: bool) -> Any:
    """The variant's value of a decoded JSON value: objects' fields sorted by key (Java's
    order of strings: UTF-16 code units), keys gathered in document order, unpaired
    surrogates written ``?`` (Java's UTF-8 encoder)."""
    if isinstance(raw, str):
        return _SURROGATE.sub("?", raw)
    if isinstance(raw, _Fields):
        fields: dict[str, Any] = {}
        for name, item in raw:
            key = _SURROGATE.sub("?", name)
            keys.setdefault(key, None)
            value = _build(item, keys, allow_duplicate_keys)
            if key in fields and not allow_duplicate_keys:
                raise VariantError("VARIANT_DUPLICATE_KEY")
            fields[key] = value
        return {k: fields[k] for k in sorted(fields, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(raw, list):
        return [_build(v, keys, allow_duplicate_keys) for v in raw]
    return raw


def _canonical(value: Any) -> Any:
    """What tells two values apart as Flink's binary variants: the kind of a number and a
    decimal's scale (1 is not 1.0, 1.5 not 1.50), a double's bits (-0.0 is not 0.0)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return ("long", value)
    if isinstance(value, decimal.Decimal):  # BigDecimal's unscaled value and scale: no -0
        sign, digits, exponent = value.as_tuple()
        unscaled = int("".join(map(str, digits)))
        return ("decimal", -unscaled if sign else unscaled, exponent)
    if isinstance(value, float):
        return ("double", struct.pack("<d", value))
    if isinstance(value, list):
        return tuple(_canonical(v) for v in value)
    return ("object", tuple((k, _canonical(v)) for k, v in value.items()))


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, decimal.Decimal):  # BigDecimal's stripTrailingZeros().toPlainString()
        return "0" if value.is_zero() else format(value.normalize(_PLAIN), "f")
    if isinstance(value, float):
        return format_java_double(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_json(v) for v in value) + "]"
    return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{_json(v)}" for k, v in value.items()) + "}"
