"""Java's view of Python values, where PyFlink hands them to Java: ``hashCode`` (how Flink
hashes a key into its key group), ``toString`` (how ``print`` and the file sink render
values: ``1.0E10``, ``true``, ``null``), and the narrowing conversions of Java's numeric
types (``(int)``, ``(float)``), each as the JDK computes it.
"""

from __future__ import annotations

import datetime
import struct
from array import array
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from typing import Any

from millstream.common.types import Row

__all__ = [
    "ARRAY_CODES",
    "BASIC_CONVERSIONS",
    "BASIC_HASHES",
    "EXACT_TYPES",
    "REAL_TYPES",
    "TUPLE_TYPES",
    "BatchCheck",
    "BatchConverter",
    "basic_batch_check",
    "basic_batch_converter",
    "deep_sequence_hash",
    "int32",
    "java_bytes_hash",
    "java_double_str",
    "java_float_str",
    "java_str",
    "java_string_hash",
    "per_value",
    "plainly_pickled",
    "types_of",
]


_PLAIN_PICKLE_TYPES = (str, int, float, bool, bytes, type(None))


def plainly_pickled(value: Any) -> bool:
    """Whether pickle and cloudpickle write the same bytes for ``value`` (no code by value)."""
    if type(value) is tuple:
        return all(plainly_pickled(v) for v in value)
    return type(value) in _PLAIN_PICKLE_TYPES


def int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def java_bytes_hash(data: bytes) -> int:
    """Java's ``Arrays.hashCode(byte[])`` (bytes are signed in Java)."""
    result = 1
    for b in data:
        result = (31 * result + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return int32(result)


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units."""
    units = text.encode("utf-16-be", "surrogatepass")
    result = 0
    for i in range(0, len(units), 2):
        result = (31 * result + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return int32(result)


def _long_hash(value: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    return int32(value ^ (value >> 32))


def _double_hash(value: float) -> int:
    if value != value:
        bits = 0x7FF8000000000000  # Double.doubleToLongBits folds every NaN into this one
    else:
        bits = struct.unpack(">q", struct.pack(">d", float(value)))[0]
    return _long_hash(bits)


def _float_hash(value: float) -> int:
    if value != value:
        return 0x7FC00000
    return struct.unpack(">i", struct.pack(">f", float(value)))[0]


def _big_integer_hash(value: int) -> int:
    """Java's ``BigInteger.hashCode``: over the magnitude's 32-bit words, times the sign."""
    magnitude = abs(int(value))
    words = []
    while magnitude:
        words.append(magnitude & 0xFFFFFFFF)
        magnitude >>= 32
    result = 0
    for word in reversed(words):
        result = (31 * result + word) & 0xFFFFFFFF
    return int32(int32(result) * (1 if value > 0 else -1 if value < 0 else 0))


def _big_decimal_hash(value: Any) -> int:
    """Java's ``BigDecimal.hashCode``: ``31 * unscaledValue.hashCode() + scale``."""
    sign, digits, exponent = Decimal(value).as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    return int32(31 * _big_integer_hash(unscaled) + (-int(exponent)))


_INTEGER_BITS = {"BYTE": 8, "SHORT": 16, "INT": 32, "LONG": 64}


def _to_integer(name: str, value: Any) -> int:
    number = int(value)
    bits = _INTEGER_BITS[name]
    if not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
        raise ValueError(
            f"{value!r} is out of range for Types.{name}() ({bits}-bit: "
            f"{-(1 << (bits - 1))}..{(1 << (bits - 1)) - 1})"
        )
    return number


def _to_float32(name: str, value: Any) -> float:
    """Java's ``(float)`` cast: rounded to 32 bits, beyond the range infinite (as the batch path)."""
    result: float = array("f", [float(value)])[0]
    return result


def _to_millis(name: str, value: Any) -> Any:
    """A Java ``Timestamp`` from PyFlink keeps milliseconds: microseconds are cut."""
    if isinstance(value, datetime.datetime | datetime.time) and value.microsecond % 1000:
        return value.replace(microsecond=value.microsecond - value.microsecond % 1000)
    return value


BASIC_CONVERSIONS: dict[str, Any] = {
    "SQL_TIMESTAMP": _to_millis,
    **dict.fromkeys(_INTEGER_BITS, _to_integer),
    "FLOAT": _to_float32,
    "DOUBLE": lambda name, value: float(value),
    "BOOLEAN": lambda name, value: bool(value),
    "BIG_DEC": lambda name, value: value if isinstance(value, Decimal) else Decimal(str(value)),
}


BASIC_HASHES: dict[str, Any] = {
    "STRING": java_string_hash,
    "BOOLEAN": lambda v: 1231 if v else 1237,
    "BYTE": lambda v: int32(int(v)),
    "SHORT": lambda v: int32(int(v)),
    "INT": lambda v: int32(int(v)),
    "LONG": lambda v: _long_hash(int(v)),
    "FLOAT": _float_hash,
    "DOUBLE": _double_hash,
    "CHAR": lambda v: ord(v) if isinstance(v, str) else int(v),
    "BIG_INT": _big_integer_hash,
    "BIG_DEC": _big_decimal_hash,
}


def deep_sequence_hash(types: Any, values: Any) -> int:
    """``RowUtils.deepHashCodeArray``: ``31 * h + deep(element)`` from 1."""
    result = 1
    for t, v in zip(types, values):
        result = (31 * result + t.deep_hash_code(v)) & 0xFFFFFFFF
    return int32(result)


def java_double_str(value: float) -> str:
    """Java's ``Double.toString``: ``1.0``, ``1.0E10``, ``1.0E-4``, ``NaN``, ``Infinity``."""
    return _java_decimal_str(value, repr(value))


def java_float_str(value: float) -> str:
    """Java's ``Float.toString``: the shortest text that round-trips as a 32-bit float."""
    as_float32 = _to_float32("FLOAT", value)
    for digits in range(1, 10):
        text = f"{as_float32:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == as_float32:
            return _java_decimal_str(float(text), repr(float(text)))
    return _java_decimal_str(as_float32, repr(as_float32))


def _java_decimal_str(value: float, shortest: str) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    magnitude = abs(value)
    if magnitude == 0 or 1e-3 <= magnitude < 1e7:
        text = f"{Decimal(shortest):f}"
        return text if "." in text else text + ".0"
    mantissa, _, exponent = f"{Decimal(shortest):E}".partition("E")
    digits = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    if "." not in digits:
        digits += ".0"
    return f"{digits}E{int(exponent)}"


def java_str(value: Any) -> str:
    """Java ``toString`` of a Python value converted to its natural Java type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, Row):
        return "{}[{}]".format(value.get_row_kind(), ", ".join(java_str(v) for v in value))
    if isinstance(value, tuple):
        return "(" + ",".join(java_str(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(java_str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{java_str(k)}={java_str(v)}" for k, v in value.items()) + "}"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    return str(value)


# -- conversions of whole batches (declared types at task boundaries) ----------------------

BatchConverter = Callable[[Sequence[Any]], Sequence[Any]]
BatchCheck = Callable[[Sequence[Any]], Any]
REAL_TYPES = {int, float}
TUPLE_TYPES = {tuple}
ARRAY_CODES = {"BYTE": "b", "SHORT": "h", "INT": "i", "LONG": "q"}
EXACT_TYPES: dict[str, set[type]] = {
    "DOUBLE": {float},
    "BOOLEAN": {bool},
    "BIG_DEC": {Decimal},
}


def types_of(values: Sequence[Any]) -> set[type]:
    """The exact types in ``values`` (one C-level pass)."""
    return set(map(type, values))


def per_value(convert: Callable[[Any], Any]) -> BatchConverter:
    """The converter applying ``convert`` to every value."""
    return lambda values: [convert(v) for v in values]


def basic_batch_check(name: str) -> BatchCheck | None:
    """A one-pass check of a batch for the basic type ``name`` that raises unless every value
    is already what the conversion to it makes of it (the integer types: an array of that
    width; DOUBLE: floats only); None for types without one."""
    code = ARRAY_CODES.get(name)
    if code is not None:
        return partial(array, code)  # TypeError for non-integers, OverflowError out of range
    exact = EXACT_TYPES.get(name)
    if exact is not None:

        def check_types(values: Sequence[Any]) -> None:
            if not types_of(values) <= exact:
                raise TypeError(f"not all of type {name}")

        return check_types
    return None


def basic_batch_converter(name: str, from_python: Callable[[Any], Any]) -> BatchConverter | None:
    """The batch conversion to the basic type ``name``: a well-typed batch passes one
    C-level check (FLOAT: one float32 array pass); others convert value by value."""
    slow = per_value(from_python)
    check = basic_batch_check(name)
    if check is not None:

        def checked(values: Sequence[Any]) -> Sequence[Any]:
            try:
                check(values)
            except (TypeError, ValueError, OverflowError):
                return slow(values)
            return values

        return checked
    if name == "FLOAT":

        def floats(values: Sequence[Any]) -> Sequence[Any]:
            if types_of(values) <= REAL_TYPES:
                return array("f", values).tolist()
            return slow(values)

        return floats
    return slow if name in BASIC_CONVERSIONS else None
