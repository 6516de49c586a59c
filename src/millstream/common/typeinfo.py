"""Types and TypeInformation, as ``pyflink.common.typeinfo``.

Type declarations are optional in millstream: an untyped stream carries pickled Python
objects (``Types.PICKLED_BYTE_ARRAY()``), as in PyFlink. A declared type decides how a
value is rendered as text where PyFlink hands it to Java (``print``, the file sink's
string encoder), so output matches PyFlink's: ``(a,1)`` for a typed tuple, ``+I[a,1]`` for
a printed Row, ``true`` for a typed boolean.
"""

from __future__ import annotations

import datetime
import pickle
import struct
from array import array
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from operator import itemgetter
from typing import Any

import cloudpickle

from millstream.common.types import Row

__all__ = [
    "BasicArrayTypeInfo",
    "BasicTypeInfo",
    "ListTypeInfo",
    "MapTypeInfo",
    "PickledBytesTypeInfo",
    "PrimitiveArrayTypeInfo",
    "RowTypeInfo",
    "TupleTypeInfo",
    "TypeInformation",
    "Types",
    "flink_key_hash",
    "java_bytes_hash",
    "java_double_str",
    "java_string_hash",
]


class TypeInformation:
    """The declared type of a stream's elements."""

    def java_str(self, value: Any) -> str:
        """The text Java's ``toString`` gives for ``value`` converted to this type."""
        return java_str(value)

    def print_str(self, value: Any) -> str:
        """The text ``DataStream.print`` shows for ``value`` in PyFlink."""
        return self.java_str(value)

    def fast_java_formatter(self) -> Any:
        """A faster callable equal to ``java_str`` on well-typed values (may raise otherwise)."""
        return self.java_str

    def java_hash_code(self, value: Any) -> int:
        """Java's ``hashCode`` of ``value`` converted to this type (a signed 32-bit int).

        This is what Flink hashes to place a key in a key group (``key_by(..., key_type)``).
        """
        raise TypeError(f"values of type {self!r} cannot be keys (Flink hashes no such Java type)")

    def from_python(self, value: Any) -> Any:
        """``value`` as PyFlink hands it back after converting it to this Java type.

        Rows get their declared field names (a tuple or an unnamed Row becomes a named Row);
        containers convert their elements. Used where PyFlink converts: the elements of
        ``from_collection(..., type_info)`` and, through ``batch_converter``, records
        leaving a task.
        """
        return value

    def batch_check(self) -> BatchCheck | None:
        """A one-pass check that raises unless every value is already converted; None here."""
        return None

    def batch_converter(self) -> BatchConverter | None:
        """``values -> values`` converted as ``from_python`` converts each, for a whole batch.

        This is what happens to a stream's records where PyFlink hands them to Java and back
        (between tasks). None when nothing changes (pickled values). Batches that are
        already well typed are checked at C speed and come back as the same object.
        """
        return _per_value(self.from_python)

    def deep_hash_code(self, value: Any) -> int:
        """The hash of ``value`` as a field of a Flink ``Row`` (``RowUtils.deepHashCodeInternal``).

        A scalar field adds ``Arrays.deepHashCode(new Object[] {field})``, which is
        ``31 + field.hashCode()``; null adds 0; lists, maps and object arrays hash deeply.
        """
        return 0 if value is None else _int32(31 + self.java_hash_code(value))

    def fast_print_formatter(self) -> Any:
        """A faster callable equal to ``print_str`` on well-typed values (may raise otherwise)."""
        return self.print_str

    def batch_java_renderer(self) -> Any:
        """``values -> "\\n".join(java_str(v) ...)``, as fast as the type allows (may raise)."""
        fmt = self.fast_java_formatter()
        return lambda values: "\n".join(map(fmt, values))

    def batch_print_renderer(self) -> Any:
        """``values -> "\\n".join(print_str(v) ...)``, as fast as the type allows (may raise)."""
        fmt = self.fast_print_formatter()
        return lambda values: "\n".join(map(fmt, values))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return type(self).__name__


class BasicTypeInfo(TypeInformation):
    """A Java basic type: STRING, INT, LONG, DOUBLE ... (``name`` is Flink's type name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def java_str(self, value: Any) -> str:
        """Java ``toString`` of the value as this basic type."""
        if value is None:
            return "null"
        if self.name == "FLOAT":
            return java_float_str(float(value))
        if self.name == "DOUBLE":
            return java_double_str(float(value))
        if self.name == "BOOLEAN":
            return "true" if value else "false"
        return java_str(value)

    def fast_java_formatter(self) -> Any:
        """``str`` where Java's text equals Python's."""
        return str if self.name in _PLAIN else self.java_str

    def from_python(self, value: Any) -> Any:
        """The value after PyFlink's conversion to this Java type and back.

        FLOAT is a 32-bit float (0.1 comes back as 0.10000000149011612), DOUBLE a float,
        the integer types truncate floats and reject values outside their range, as
        PyFlink's coders do; other basic types are left as they are.
        """
        if value is None:
            return None
        convert = _BASIC_CONVERSIONS.get(self.name)
        return value if convert is None else convert(self.name, value)

    def batch_check(self) -> BatchCheck | None:
        """A one-pass check that raises unless every value is already what ``from_python``
        makes of it (the integer types: an array of that width; DOUBLE: floats only); None
        for types without one."""
        code = _ARRAY_CODES.get(self.name)
        if code is not None:
            return partial(array, code)  # TypeError for non-integers, OverflowError out of range
        exact = _EXACT_TYPES.get(self.name)
        if exact is not None:

            def check_types(values: Sequence[Any]) -> None:
                if not _types(values) <= exact:
                    raise TypeError(f"not all of type {self.name}")

            return check_types
        return None

    def batch_converter(self) -> BatchConverter | None:
        """Well-typed batches pass one C-level check (FLOAT: one float32 array pass)."""
        slow = _per_value(self.from_python)
        check = self.batch_check()
        if check is not None:

            def checked(values: Sequence[Any]) -> Sequence[Any]:
                try:
                    check(values)
                except (TypeError, ValueError, OverflowError):
                    return slow(values)
                return values

            return checked
        if self.name == "FLOAT":

            def floats(values: Sequence[Any]) -> Sequence[Any]:
                if _types(values) <= _REAL:
                    return array("f", values).tolist()
                return slow(values)

            return floats
        return slow if self.name in _BASIC_CONVERSIONS else None

    def java_hash_code(self, value: Any) -> int:
        """``String.hashCode``, ``Integer.hashCode``, ``Long.hashCode`` ... of the value."""
        if value is None:
            return 0
        hasher = _BASIC_HASHES.get(self.name)
        if hasher is None:
            return super().java_hash_code(value)
        return hasher(value)

    def __repr__(self) -> str:
        return self.name


# Basic types whose Java toString equals Python's str of the value.
_PLAIN = frozenset({"STRING", "INT", "LONG", "SHORT", "BYTE", "BIG_INT", "CHAR"})


class PickledBytesTypeInfo(TypeInformation):
    """Any Python object, pickled between operators (the default for untyped streams)."""

    def java_str(self, value: Any) -> str:
        """Python's ``str`` (strings and bytes unchanged), as PyFlink's print does."""
        return value if isinstance(value, str) else str(value)

    def fast_java_formatter(self) -> Any:
        """``str`` (returns a str unchanged)."""
        return str

    def fast_print_formatter(self) -> Any:
        """``str`` (returns a str unchanged)."""
        return str

    def batch_converter(self) -> BatchConverter | None:
        """Pickled values pass as they are."""
        return None

    def java_hash_code(self, value: Any) -> int:
        """``Arrays.hashCode`` of the pickled bytes: PyFlink hands Java an undeclared key as
        ``cloudpickle.dumps(key)`` (protocol 5) in a ``byte[]``.

        For built-in scalars and tuples of them ``pickle.dumps`` writes the same bytes about
        eight times faster (a key's first occurrence in a task pays this).
        """
        if _plainly_pickled(value):
            return java_bytes_hash(pickle.dumps(value, 5))
        return java_bytes_hash(cloudpickle.dumps(value, protocol=5))

    def __repr__(self) -> str:
        return "PICKLED_BYTE_ARRAY"


class TupleTypeInfo(TypeInformation):
    """A Python tuple mapped to a Java ``TupleN``: prints ``(f0,f1)``."""

    def __init__(self, types: list[TypeInformation]) -> None:
        self.types = list(types)

    def get_field_types(self) -> list[TypeInformation]:
        """The field types."""
        return self.types

    def java_str(self, value: Any) -> str:
        """Java ``TupleN.toString``."""
        return "(" + ",".join(t.java_str(v) for t, v in zip(self.types, value)) + ")"

    def _plain_fields(self) -> bool:
        return all(isinstance(t, BasicTypeInfo) and t.name in _PLAIN for t in self.types)

    def from_python(self, value: Any) -> Any:
        """A tuple of the converted fields."""
        if value is None:
            return None
        return tuple(t.from_python(v) for t, v in zip(self.types, value))

    def batch_converter(self) -> BatchConverter | None:
        """Column by column: fields with a check (integers ...) are checked in one pass per
        column; fields whose values always change (FLOAT ...) are converted per column and
        the tuples rebuilt; anything else falls back to converting value by value."""
        checks: list[tuple[Any, BatchCheck]] = []
        changing: list[tuple[int, BatchConverter]] = []
        for i, field in enumerate(self.types):
            check = field.batch_check()
            if check is not None:
                checks.append((itemgetter(i), check))
            else:
                convert = field.batch_converter()
                if convert is not None:
                    changing.append((i, convert))
        if not checks and not changing:
            return None
        arity = len(self.types)
        slow = _per_value(self.from_python)

        def tuples(values: Sequence[Any]) -> Sequence[Any]:
            try:
                for field, check in checks:
                    check(list(map(field, values)))
            except (TypeError, ValueError, OverflowError, IndexError, KeyError):
                return slow(values)
            if not changing or not values:
                return values
            if _types(values) != _TUPLE or set(map(len, values)) != {arity}:
                return slow(values)
            columns: list[Any] = list(zip(*values, strict=True))
            for i, convert in changing:
                columns[i] = convert(columns[i])
            return list(zip(*columns, strict=True))

        return tuples

    def java_hash_code(self, value: Any) -> int:
        """Flink's ``TupleN.hashCode``: ``31 * h + field.hashCode()`` from the first field's hash."""
        result = 0
        for t, v in zip(self.types, value):
            result = _int32(31 * result + t.java_hash_code(v))
        return result

    def fast_java_formatter(self) -> Any:
        """``"(%s,%s)" % value`` when every field prints as in Python."""
        if self._plain_fields():
            return ("(" + ",".join(["%s"] * len(self.types)) + ")").__mod__
        return self.java_str

    def batch_java_renderer(self) -> Any:
        """A compiled comprehension ``f"({v[0]},{v[1]})"`` when every field prints as in Python."""
        if not self._plain_fields():
            return super().batch_java_renderer()
        fields = ",".join(f"{{v[{i}]}}" for i in range(len(self.types)))
        # The template depends only on the arity: no user input reaches the compiled code.
        source = f'lambda values: "\\n".join([f"({fields})" for v in values])'
        return eval(source)

    def __repr__(self) -> str:
        return f"TupleTypeInfo({', '.join(map(repr, self.types))})"


class RowTypeInfo(TypeInformation):
    """A ``Row`` with typed (optionally named) fields."""

    def __init__(self, types: list[TypeInformation], names: list[str] | None = None) -> None:
        self.types = list(types)
        self.names = list(names) if names is not None else [f"f{i}" for i in range(len(types))]

    def get_field_names(self) -> list[str]:
        """The field names."""
        return self.names

    def get_field_types(self) -> list[TypeInformation]:
        """The field types."""
        return self.types

    def get_field_index(self, name: str) -> int:
        """Index of the field ``name``, or -1."""
        return self.names.index(name) if name in self.names else -1

    def java_str(self, value: Any) -> str:
        """Java ``Row.toString``: ``+I[a, 1]``."""
        kind = value.get_row_kind() if isinstance(value, Row) else "+I"
        body = ", ".join(t.java_str(v) for t, v in zip(self.types, value))
        return f"{kind}[{body}]"

    def from_python(self, value: Any) -> Any:
        """A Row named with the declared field names, its kind kept (tuples become Rows)."""
        if value is None:
            return None
        row = Row(*(t.from_python(v) for t, v in zip(self.types, value)))
        row.set_field_names(self.names)
        if isinstance(value, Row):
            row.set_row_kind(value.get_row_kind())
        return row

    def java_hash_code(self, value: Any) -> int:
        """Flink's ``Row.hashCode`` (``RowUtils.deepHashCodeRow``): ``31 * kind + deep(fields)``."""
        kind = value.get_row_kind().value if isinstance(value, Row) else 0
        return _int32(31 * kind + _deep_sequence_hash(self.types, value))

    def print_str(self, value: Any) -> str:
        """PyFlink prints rows with Python's ``str`` of each field: ``+I[a,1]``."""
        kind = value.get_row_kind() if isinstance(value, Row) else "+I"
        return "{}[{}]".format(kind, ",".join(str(v) for v in value))

    def __repr__(self) -> str:
        return f"RowTypeInfo({', '.join(f'{n}: {t!r}' for n, t in zip(self.names, self.types))})"


class ListTypeInfo(TypeInformation):
    """A Python list mapped to a Java ``List``: prints ``[a, b]``."""

    def __init__(self, element_type: TypeInformation) -> None:
        self.element_type = element_type

    def java_str(self, value: Any) -> str:
        """Java ``List.toString``."""
        return "[" + ", ".join(self.element_type.java_str(v) for v in value) + "]"

    def from_python(self, value: Any) -> Any:
        """A list of the converted elements."""
        return None if value is None else [self.element_type.from_python(v) for v in value]

    def java_hash_code(self, value: Any) -> int:
        """Java's ``List.hashCode`` (``Arrays.hashCode`` for a primitive array)."""
        result = 1
        for v in value:
            result = _int32(31 * result + self.element_type.java_hash_code(v))
        return result

    def deep_hash_code(self, value: Any) -> int:
        """``RowUtils.deepHashCodeList``: element by element, each hashed deeply."""
        return 0 if value is None else _deep_sequence_hash([self.element_type] * len(value), value)


class BasicArrayTypeInfo(ListTypeInfo):
    """An array of a basic type."""

    def java_hash_code(self, value: Any) -> int:
        """Java arrays hash by identity: no deterministic ``hashCode`` (inside a tuple)."""
        return TypeInformation.java_hash_code(self, value)


class PrimitiveArrayTypeInfo(ListTypeInfo):
    """An array of a primitive type."""

    def java_hash_code(self, value: Any) -> int:
        """Java arrays hash by identity: no deterministic ``hashCode`` (inside a tuple)."""
        return TypeInformation.java_hash_code(self, value)

    def deep_hash_code(self, value: Any) -> int:
        """``31 + Arrays.hashCode(array)``: a primitive array is not an ``Object[]``."""
        return 0 if value is None else _int32(31 + ListTypeInfo.java_hash_code(self, value))


class MapTypeInfo(TypeInformation):
    """A Python dict mapped to a Java ``Map``: prints ``{k=v, k2=v2}``."""

    def __init__(self, key_type: TypeInformation, value_type: TypeInformation) -> None:
        self.key_type = key_type
        self.value_type = value_type

    def from_python(self, value: Any) -> Any:
        """A dict of the converted keys and values."""
        if value is None:
            return None
        return {self.key_type.from_python(k): self.value_type.from_python(v) for k, v in value.items()}

    def java_hash_code(self, value: Any) -> int:
        """Java's ``Map.hashCode``: the sum of ``key.hashCode() ^ value.hashCode()``."""
        total = 0
        for k, v in value.items():
            total += self.key_type.java_hash_code(k) ^ self.value_type.java_hash_code(v)
        return _int32(total)

    def deep_hash_code(self, value: Any) -> int:
        """``RowUtils.deepHashCodeMap``: ``1 + sum(deep(key) ^ deep(value))``."""
        if value is None:
            return 0
        total = 1
        for k, v in value.items():
            total += self.key_type.deep_hash_code(k) ^ self.value_type.deep_hash_code(v)
        return _int32(total)

    def java_str(self, value: Any) -> str:
        """Java ``Map.toString``."""
        parts = (f"{self.key_type.java_str(k)}={self.value_type.java_str(v)}" for k, v in value.items())
        return "{" + ", ".join(parts) + "}"


class Types:
    """Factory of type declarations, with PyFlink's names."""

    @staticmethod
    def STRING() -> TypeInformation:
        """A string."""
        return BasicTypeInfo("STRING")

    @staticmethod
    def BYTE() -> TypeInformation:
        """An 8-bit integer."""
        return BasicTypeInfo("BYTE")

    @staticmethod
    def BOOLEAN() -> TypeInformation:
        """A boolean."""
        return BasicTypeInfo("BOOLEAN")

    @staticmethod
    def SHORT() -> TypeInformation:
        """A 16-bit integer."""
        return BasicTypeInfo("SHORT")

    @staticmethod
    def INT() -> TypeInformation:
        """A 32-bit integer."""
        return BasicTypeInfo("INT")

    @staticmethod
    def LONG() -> TypeInformation:
        """A 64-bit integer."""
        return BasicTypeInfo("LONG")

    @staticmethod
    def FLOAT() -> TypeInformation:
        """A 32-bit float."""
        return BasicTypeInfo("FLOAT")

    @staticmethod
    def DOUBLE() -> TypeInformation:
        """A 64-bit float."""
        return BasicTypeInfo("DOUBLE")

    @staticmethod
    def CHAR() -> TypeInformation:
        """A character."""
        return BasicTypeInfo("CHAR")

    @staticmethod
    def BIG_INT() -> TypeInformation:
        """An arbitrary-precision integer."""
        return BasicTypeInfo("BIG_INT")

    @staticmethod
    def BIG_DEC() -> TypeInformation:
        """An arbitrary-precision decimal."""
        return BasicTypeInfo("BIG_DEC")

    @staticmethod
    def INSTANT() -> TypeInformation:
        """A point in time."""
        return BasicTypeInfo("INSTANT")

    @staticmethod
    def SQL_DATE() -> TypeInformation:
        """A date."""
        return BasicTypeInfo("SQL_DATE")

    @staticmethod
    def SQL_TIME() -> TypeInformation:
        """A time of day."""
        return BasicTypeInfo("SQL_TIME")

    @staticmethod
    def SQL_TIMESTAMP() -> TypeInformation:
        """A timestamp."""
        return BasicTypeInfo("SQL_TIMESTAMP")

    @staticmethod
    def PICKLED_BYTE_ARRAY() -> TypeInformation:
        """Any picklable Python object (the default)."""
        return PickledBytesTypeInfo()

    @staticmethod
    def TUPLE(types: list[TypeInformation]) -> TypeInformation:
        """A tuple with the given field types."""
        return TupleTypeInfo(types)

    @staticmethod
    def ROW(types: list[TypeInformation]) -> TypeInformation:
        """A Row with the given field types (fields named f0, f1, ...)."""
        return RowTypeInfo(types)

    @staticmethod
    def ROW_NAMED(names: list[str], types: list[TypeInformation]) -> TypeInformation:
        """A Row with named, typed fields."""
        return RowTypeInfo(types, names)

    @staticmethod
    def PRIMITIVE_ARRAY(element_type: TypeInformation) -> TypeInformation:
        """An array of primitives."""
        return PrimitiveArrayTypeInfo(element_type)

    @staticmethod
    def BASIC_ARRAY(element_type: TypeInformation) -> TypeInformation:
        """An array of a basic type."""
        return BasicArrayTypeInfo(element_type)

    @staticmethod
    def OBJECT_ARRAY(element_type: TypeInformation) -> TypeInformation:
        """An array of objects."""
        return BasicArrayTypeInfo(element_type)

    @staticmethod
    def LIST(element_type: TypeInformation) -> TypeInformation:
        """A list."""
        return ListTypeInfo(element_type)

    @staticmethod
    def MAP(key_type: TypeInformation, value_type: TypeInformation) -> TypeInformation:
        """A map."""
        return MapTypeInfo(key_type, value_type)


_PLAIN_PICKLE_TYPES = (str, int, float, bool, bytes, type(None))


def _plainly_pickled(value: Any) -> bool:
    """Whether pickle and cloudpickle write the same bytes for ``value`` (no code by value)."""
    if type(value) is tuple:
        return all(_plainly_pickled(v) for v in value)
    return type(value) in _PLAIN_PICKLE_TYPES


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def java_bytes_hash(data: bytes) -> int:
    """Java's ``Arrays.hashCode(byte[])`` (bytes are signed in Java)."""
    result = 1
    for b in data:
        result = (31 * result + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return _int32(result)


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units."""
    units = text.encode("utf-16-be", "surrogatepass")
    result = 0
    for i in range(0, len(units), 2):
        result = (31 * result + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return _int32(result)


def _long_hash(value: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    return _int32(value ^ (value >> 32))


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
    return _int32(_int32(result) * (1 if value > 0 else -1 if value < 0 else 0))


def _big_decimal_hash(value: Any) -> int:
    """Java's ``BigDecimal.hashCode``: ``31 * unscaledValue.hashCode() + scale``."""
    sign, digits, exponent = Decimal(value).as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    return _int32(31 * _big_integer_hash(unscaled) + (-int(exponent)))


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


_BASIC_CONVERSIONS: dict[str, Any] = {
    "SQL_TIMESTAMP": _to_millis,
    **dict.fromkeys(_INTEGER_BITS, _to_integer),
    "FLOAT": _to_float32,
    "DOUBLE": lambda name, value: float(value),
    "BOOLEAN": lambda name, value: bool(value),
    "BIG_DEC": lambda name, value: value if isinstance(value, Decimal) else Decimal(str(value)),
}

_BASIC_HASHES: dict[str, Any] = {
    "STRING": java_string_hash,
    "BOOLEAN": lambda v: 1231 if v else 1237,
    "BYTE": lambda v: _int32(int(v)),
    "SHORT": lambda v: _int32(int(v)),
    "INT": lambda v: _int32(int(v)),
    "LONG": lambda v: _long_hash(int(v)),
    "FLOAT": _float_hash,
    "DOUBLE": _double_hash,
    "CHAR": lambda v: ord(v) if isinstance(v, str) else int(v),
    "BIG_INT": _big_integer_hash,
    "BIG_DEC": _big_decimal_hash,
}


def _deep_sequence_hash(types: Any, values: Any) -> int:
    """``RowUtils.deepHashCodeArray``: ``31 * h + deep(element)`` from 1."""
    result = 1
    for t, v in zip(types, values):
        result = (31 * result + t.deep_hash_code(v)) & 0xFFFFFFFF
    return _int32(result)


def flink_key_hash(key: Any, key_type: TypeInformation | None) -> int:
    """The ``hashCode`` Flink computes for a key of PyFlink's ``key_by``.

    PyFlink's Java side keys by ``KeyByKeySelector``, which wraps the key in a one-field
    ``Row``: its hash is ``31 + deep(key)``. An undeclared key (``key_type=None``) reaches
    Java as its pickled bytes (``Types.PICKLED_BYTE_ARRAY()``).
    """
    kind = key_type if key_type is not None else _PICKLED
    return _int32(31 + kind.deep_hash_code(key))


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


_PICKLED = PickledBytesTypeInfo()


BatchConverter = Callable[[Sequence[Any]], Sequence[Any]]
BatchCheck = Callable[[Sequence[Any]], Any]
_REAL = {int, float}
_TUPLE = {tuple}
_ARRAY_CODES = {"BYTE": "b", "SHORT": "h", "INT": "i", "LONG": "q"}
_EXACT_TYPES: dict[str, set[type]] = {
    "DOUBLE": {float},
    "BOOLEAN": {bool},
    "BIG_DEC": {Decimal},
}


def _types(values: Sequence[Any]) -> set[type]:
    """The exact types in ``values`` (one C-level pass)."""
    return set(map(type, values))


def _per_value(convert: Callable[[Any], Any]) -> BatchConverter:
    """The converter applying ``convert`` to every value."""
    return lambda values: [convert(v) for v in values]
