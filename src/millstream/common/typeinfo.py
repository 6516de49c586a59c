"""Types and TypeInformation, as ``pyflink.common.typeinfo``.

Type declarations are optional in millstream: an untyped stream carries pickled Python
objects (``Types.PICKLED_BYTE_ARRAY()``), as in PyFlink. A declared type decides how a
value is rendered as text where PyFlink hands it to Java (``print``, the file sink's
string encoder), so output matches PyFlink's: ``(a,1)`` for a typed tuple, ``+I[a,1]`` for
a printed Row, ``true`` for a typed boolean.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import cloudpickle

from millstream.common.hashable_keys import HashableKey
from millstream.common.java_values import (
    BASIC_CONVERSIONS,
    BASIC_HASHES,
    TUPLE_TYPES,
    BatchCheck,
    BatchConverter,
    basic_batch_check,
    basic_batch_converter,
    deep_sequence_hash,
    int32,
    java_bytes_hash,
    java_double_str,
    java_float_str,
    java_str,
    java_string_hash,
    per_value,
    plainly_pickled,
    types_of,
)
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
        return per_value(self.from_python)

    def deep_hash_code(self, value: Any) -> int:
        """The hash of ``value`` as a field of a Flink ``Row`` (``RowUtils.deepHashCodeInternal``).

        A scalar field adds ``Arrays.deepHashCode(new Object[] {field})``, which is
        ``31 + field.hashCode()``; null adds 0; lists, maps and object arrays hash deeply.
        """
        return 0 if value is None else int32(31 + self.java_hash_code(value))

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

    def __init__(self, basic_type: str) -> None:
        self.name = basic_type

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
        convert = BASIC_CONVERSIONS.get(self.name)
        return value if convert is None else convert(self.name, value)

    def batch_check(self) -> BatchCheck | None:
        """A one-pass check that raises unless every value is already what ``from_python``
        makes of it; None for types without one (``java_values.basic_batch_check``)."""
        return basic_batch_check(self.name)

    def batch_converter(self) -> BatchConverter | None:
        """Well-typed batches pass one C-level check (``java_values.basic_batch_converter``)."""
        return basic_batch_converter(self.name, self.from_python)

    def java_hash_code(self, value: Any) -> int:
        """``String.hashCode``, ``Integer.hashCode``, ``Long.hashCode`` ... of the value."""
        if value is None:
            return 0
        hasher = BASIC_HASHES.get(self.name)
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
        if plainly_pickled(value):
            return java_bytes_hash(pickle.dumps(value, 5))
        if isinstance(value, HashableKey):  # a list key's hashable form: the list's bytes
            return java_bytes_hash(value.pickled())
        return java_bytes_hash(cloudpickle.dumps(value, protocol=5))

    def __repr__(self) -> str:
        return "PICKLED_BYTE_ARRAY"


class TupleTypeInfo(TypeInformation):
    """A Python tuple mapped to a Java ``TupleN``: prints ``(f0,f1)``."""

    def __init__(self, field_types: list[TypeInformation]) -> None:
        self.types = list(field_types)

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
        slow = per_value(self.from_python)

        def tuples(values: Sequence[Any]) -> Sequence[Any]:
            try:
                for field, check in checks:
                    check(list(map(field, values)))
            except (TypeError, ValueError, OverflowError, IndexError, KeyError):
                return slow(values)
            if not changing or not values:
                return values
            if types_of(values) != TUPLE_TYPES or set(map(len, values)) != {arity}:
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
            result = int32(31 * result + t.java_hash_code(v))
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

    def __init__(self, field_types: list[TypeInformation], field_names: list[str] | None = None) -> None:
        self.types = list(field_types)
        self.names = (
            list(field_names) if field_names is not None else [f"f{i}" for i in range(len(field_types))]
        )

    def get_field_names(self) -> list[str]:
        """The field names."""
        return self.names

    def get_field_types(self) -> list[TypeInformation]:
        """The field types."""
        return self.types

    def get_field_index(self, field_name: str) -> int:
        """Index of the field ``field_name``, or -1."""
        return self.names.index(field_name) if field_name in self.names else -1

    def java_str(self, value: Any) -> str:
        """Java ``Row.toString``: ``+I[a, 1]``."""
        kind = value.get_row_kind() if isinstance(value, Row) else "+I"
        body = ", ".join(t.java_str(v) for t, v in zip(self.types, value))
        return f"{kind}[{body}]"

    def from_python(self, value: Any) -> Any:
        """A Row named with the declared field names, its kind kept (tuples become Rows).

        A Row with field names gives its values by name, as PyFlink's row coder takes them
        (``Row.get_fields_by_names``): ``Row(number=2, total=140)`` of
        ``ROW_NAMED(['total', 'number'], ...)`` becomes ``Row(total=140, number=2)``, and a
        declared name the Row lacks is an error. A Row without names gives them by position;
        a dict by name (None for a missing one), as PyFlink's ``from_collection`` takes it.
        """
        if value is None:
            return None
        if isinstance(value, Row):
            row = Row(*(t.from_python(v) for t, v in zip(self.types, value.get_fields_by_names(self.names))))
            row.set_row_kind(value.get_row_kind())
        elif isinstance(value, dict):
            row = Row(*(t.from_python(value.get(n)) for t, n in zip(self.types, self.names)))
        else:
            row = Row(*(t.from_python(v) for t, v in zip(self.types, value)))
        row.set_field_names(self.names)
        return row

    def java_hash_code(self, value: Any) -> int:
        """Flink's ``Row.hashCode`` (``RowUtils.deepHashCodeRow``): ``31 * kind + deep(fields)``."""
        kind = value.get_row_kind().value if isinstance(value, Row) else 0
        return int32(31 * kind + deep_sequence_hash(self.types, value))

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
            result = int32(31 * result + self.element_type.java_hash_code(v))
        return result

    def deep_hash_code(self, value: Any) -> int:
        """``RowUtils.deepHashCodeList``: element by element, each hashed deeply."""
        return 0 if value is None else deep_sequence_hash([self.element_type] * len(value), value)


class BasicArrayTypeInfo(ListTypeInfo):
    """An array of a basic type."""

    def java_hash_code(self, value: Any) -> int:
        """Java arrays hash by identity: no deterministic ``hashCode`` (inside a tuple)."""
        return TypeInformation.java_hash_code(self, value)


class PrimitiveArrayTypeInfo(ListTypeInfo):
    """An array of a primitive type (a ``byte[]`` is Python ``bytes``, as PyFlink hands it)."""

    def from_python(self, value: Any) -> Any:
        """bytes for a byte array; a list of the converted elements otherwise."""
        if value is None:
            return None
        if isinstance(self.element_type, BasicTypeInfo) and self.element_type.name == "BYTE":
            return bytes(value) if isinstance(value, bytes | bytearray) else bytes(v & 0xFF for v in value)
        return ListTypeInfo.from_python(self, value)

    def java_hash_code(self, value: Any) -> int:
        """Java arrays hash by identity: no deterministic ``hashCode`` (inside a tuple)."""
        return TypeInformation.java_hash_code(self, value)

    def deep_hash_code(self, value: Any) -> int:
        """``31 + Arrays.hashCode(array)``: a primitive array is not an ``Object[]``."""
        return 0 if value is None else int32(31 + ListTypeInfo.java_hash_code(self, value))


class MapTypeInfo(TypeInformation):
    """A Python dict mapped to a Java ``Map``: prints ``{k=v, k2=v2}``."""

    def __init__(self, key_type_info: TypeInformation, value_type_info: TypeInformation) -> None:
        self.key_type = key_type_info
        self.value_type = value_type_info

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
        return int32(total)

    def deep_hash_code(self, value: Any) -> int:
        """``RowUtils.deepHashCodeMap``: ``1 + sum(deep(key) ^ deep(value))``."""
        if value is None:
            return 0
        total = 1
        for k, v in value.items():
            total += self.key_type.deep_hash_code(k) ^ self.value_type.deep_hash_code(v)
        return int32(total)

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
    def TUPLE(field_types: list[TypeInformation]) -> TypeInformation:
        """A tuple with the given field types."""
        return TupleTypeInfo(field_types)

    @staticmethod
    def ROW(field_types: list[TypeInformation]) -> TypeInformation:
        """A Row with the given field types (fields named f0, f1, ...)."""
        return RowTypeInfo(field_types)

    @staticmethod
    def ROW_NAMED(field_names: list[str], field_types: list[TypeInformation]) -> TypeInformation:
        """A Row with named, typed fields."""
        return RowTypeInfo(field_types, field_names)

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
    def LIST(element_type_info: TypeInformation) -> TypeInformation:
        """A list."""
        return ListTypeInfo(element_type_info)

    @staticmethod
    def MAP(key_type_info: TypeInformation, value_type_info: TypeInformation) -> TypeInformation:
        """A map."""
        return MapTypeInfo(key_type_info, value_type_info)
