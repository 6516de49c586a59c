"""SQL data types with ``pyflink.table.types`` names, for the formats that need a schema.

millstream has no Table API; these types exist because PyFlink's file formats (CSV,
JSON, Parquet) describe their columns with them (``DataTypes.ROW([DataTypes.FIELD(...)])``).
Each type knows its DataStream ``TypeInformation`` (Flink's legacy type conversion) and
how to turn a text, JSON or Arrow value into the Python value PyFlink hands to functions
(``int``, ``float``, ``Decimal``, ``date``, ``datetime``, ``Row``, ``list``, ``dict``).
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import BasicTypeInfo, RowTypeInfo, TupleTypeInfo, TypeInformation, Types
from millstream.common.types import Row
from millstream.table.common.datetime_text import iso_timestamp

__all__ = ["ArrayType", "DataType", "DataTypes", "MapType", "RowField", "RowType"]


class DataType:
    """A logical SQL type; ``nullable`` unless built with ``not_null()``."""

    def __init__(self, root: str, nullable: bool = True, *params: int) -> None:
        self.root = root
        self._nullable = nullable
        self.params = params

    def not_null(self) -> DataType:
        """The same type without NULL."""
        return self._with_nullable(False)

    def nullable(self) -> DataType:
        """The same type with NULL."""
        return self._with_nullable(True)

    def _with_nullable(self, nullable: bool) -> DataType:
        return DataType(self.root, nullable, *self.params)

    def is_nullable(self) -> bool:
        """Whether NULL is a value of this type."""
        return self._nullable

    def to_type_info(self) -> TypeInformation:
        """The DataStream type of this column (Flink's legacy type conversion)."""
        return _TYPE_INFO[self.root]()

    def from_text(self) -> Callable[[str], Any]:
        """Parses a text field (CSV) into this type's Python value; raises ValueError."""
        if self.root == "DECIMAL":
            return _fixed_decimal(*self.params)
        return _FROM_TEXT[self.root]

    def from_json(self) -> Callable[[Any], Any]:
        """Converts a parsed JSON value into this type's Python value; raises ValueError."""
        text = _FROM_TEXT[self.root]
        root = self.root
        if root in ("STRING", "CHAR", "VARCHAR"):
            return lambda v: v if isinstance(v, str) else _json_text(v)
        if root in ("INT", "BIGINT", "TINYINT", "SMALLINT"):
            return lambda v: v if type(v) is int else text(str(v))
        if root in ("FLOAT", "DOUBLE"):
            return lambda v: float(v) if type(v) in (int, float) else text(str(v))
        if root == "BOOLEAN":
            return lambda v: v if type(v) is bool else text(str(v))
        return lambda v: text(v if isinstance(v, str) else _json_text(v))

    def from_arrow(self) -> Callable[[Any], Any]:
        """Converts a value from ``pyarrow``'s ``to_pylist`` into this type's Python value."""
        return _same

    def to_arrow(self) -> Any:
        """The ``pyarrow`` type of this column (Parquet)."""
        # pyarrow (60-110 ms of start-up): DataStream's row formats import this module, no Arrow
        import pyarrow as pa

        root, params = self.root, self.params
        if root == "DECIMAL":
            return pa.decimal128(*params)
        if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):  # the unit that holds the precision's digits
            precision = params[0] if params else 6
            unit = "ms" if precision <= 3 else "us" if precision <= 6 else "ns"
            return pa.timestamp(unit, tz="UTC" if root == "TIMESTAMP_LTZ" else None)
        if root == "TIME":
            return pa.time32("ms") if not params or params[0] <= 3 else pa.time64("us")
        return _ARROW[root](pa)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DataType)
            and type(other) is type(self)
            and (self.root, self._nullable, self.params) == (other.root, other._nullable, other.params)
        )

    def __hash__(self) -> int:
        return hash((self.root, self.params))

    def __repr__(self) -> str:
        args = f"({', '.join(map(str, self.params))})" if self.params else ""
        return f"{self.root}{args}{'' if self._nullable else ' NOT NULL'}"


class ArrayType(DataType):
    """ARRAY<element>; Python ``list``."""

    def __init__(self, element_type: DataType, nullable: bool = True) -> None:
        super().__init__("ARRAY", nullable)
        self.element_type = element_type

    def _with_nullable(self, nullable: bool) -> DataType:
        return ArrayType(self.element_type, nullable)

    def to_type_info(self) -> TypeInformation:
        return Types.LIST(self.element_type.to_type_info())

    def from_json(self) -> Callable[[Any], Any]:
        element = _nullable(self.element_type.from_json())

        def convert(value: Any) -> list[Any]:
            if not isinstance(value, list):
                raise ValueError(f"expected a JSON array, got {_json_text(value)}")
            return [element(v) for v in value]

        return convert

    def from_arrow(self) -> Callable[[Any], Any]:
        element = _nullable(self.element_type.from_arrow())
        return lambda value: [element(v) for v in value]

    def to_arrow(self) -> Any:
        # pyarrow (60-110 ms of start-up): DataStream's row formats import this module, no Arrow
        import pyarrow as pa

        return pa.list_(self.element_type.to_arrow())

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.element_type == other.element_type  # type: ignore[attr-defined]

    __hash__ = DataType.__hash__

    def __repr__(self) -> str:
        return f"ARRAY<{self.element_type!r}>"


class MapType(DataType):
    """MAP<key, value>; Python ``dict``."""

    def __init__(self, key_type: DataType, value_type: DataType, nullable: bool = True) -> None:
        super().__init__("MAP", nullable)
        self.key_type = key_type
        self.value_type = value_type

    def _with_nullable(self, nullable: bool) -> DataType:
        return MapType(self.key_type, self.value_type, nullable)

    def to_type_info(self) -> TypeInformation:
        return Types.MAP(self.key_type.to_type_info(), self.value_type.to_type_info())

    def from_json(self) -> Callable[[Any], Any]:
        key = self.key_type.from_json()
        value = _nullable(self.value_type.from_json())

        def convert(obj: Any) -> dict[Any, Any]:
            if not isinstance(obj, dict):
                raise ValueError(f"expected a JSON object, got {_json_text(obj)}")
            return {key(k): value(v) for k, v in obj.items()}

        return convert

    def from_arrow(self) -> Callable[[Any], Any]:
        key = self.key_type.from_arrow()
        value = _nullable(self.value_type.from_arrow())
        return lambda pairs: {key(k): value(v) for k, v in pairs}

    def to_arrow(self) -> Any:
        # pyarrow (60-110 ms of start-up): DataStream's row formats import this module, no Arrow
        import pyarrow as pa

        return pa.map_(self.key_type.to_arrow(), self.value_type.to_arrow())

    def __repr__(self) -> str:
        return f"MAP<{self.key_type!r}, {self.value_type!r}>"


class RowField:
    """One named field of a ROW."""

    def __init__(self, name: str, data_type: DataType, description: str | None = None) -> None:
        self.name = name
        self.data_type = data_type
        self.description = description

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RowField) and (self.name, self.data_type) == (other.name, other.data_type)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"{self.name} {self.data_type!r}"


class RowType(DataType):
    """ROW<name type, ...>; Python ``Row`` with the field names."""

    def __init__(self, fields: list[RowField] | None = None, nullable: bool = True) -> None:
        super().__init__("ROW", nullable)
        self.fields = list(fields or [])

    def _with_nullable(self, nullable: bool) -> DataType:
        return RowType(self.fields, nullable)

    def field_names(self) -> list[str]:
        """The names of the fields, in order."""
        return [f.name for f in self.fields]

    def field_types(self) -> list[DataType]:
        """The types of the fields, in order."""
        return [f.data_type for f in self.fields]

    def __iter__(self) -> Any:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def to_type_info(self) -> TypeInformation:
        return Types.ROW_NAMED(self.field_names(), [t.to_type_info() for t in self.field_types()])

    def from_json(self) -> Callable[[Any], Any]:
        names = self.field_names()
        converters = [_nullable(t.from_json()) for t in self.field_types()]

        def convert(obj: Any) -> Row:
            if not isinstance(obj, dict):
                raise ValueError(f"expected a JSON object, got {_json_text(obj)}")
            row = Row(*[c(obj.get(n)) for n, c in zip(names, converters)])
            row.set_field_names(names)
            return row

        return convert

    def from_arrow(self) -> Callable[[Any], Any]:
        names = self.field_names()
        converters = [_nullable(t.from_arrow()) for t in self.field_types()]

        def convert(obj: dict[str, Any]) -> Row:
            row = Row(*[c(obj.get(n)) for n, c in zip(names, converters)])
            row.set_field_names(names)
            return row

        return convert

    def to_arrow(self) -> Any:
        # pyarrow (60-110 ms of start-up): DataStream's row formats import this module, no Arrow
        import pyarrow as pa

        return pa.struct(
            [pa.field(f.name, f.data_type.to_arrow(), f.data_type.is_nullable()) for f in self.fields]
        )

    def to_arrow_schema(self) -> Any:
        """The ``pyarrow`` schema of a file of these rows."""
        # pyarrow (60-110 ms of start-up): DataStream's row formats import this module, no Arrow
        import pyarrow as pa

        return pa.schema(
            [pa.field(f.name, f.data_type.to_arrow(), f.data_type.is_nullable()) for f in self.fields]
        )

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.fields == other.fields  # type: ignore[attr-defined]

    __hash__ = DataType.__hash__

    def __repr__(self) -> str:
        return f"ROW<{', '.join(map(repr, self.fields))}>"


class DataTypes:
    """Factories of SQL data types (``pyflink.table.DataTypes``)."""

    @staticmethod
    def NULL() -> DataType:
        """The type of NULL."""
        return DataType("NULL")

    @staticmethod
    def CHAR(length: int = 1, nullable: bool = True) -> DataType:
        """Fixed-length text; Python ``str``."""
        return DataType("CHAR", nullable, length)

    @staticmethod
    def VARCHAR(length: int = 2**31 - 1, nullable: bool = True) -> DataType:
        """Variable-length text; Python ``str``."""
        return DataType("VARCHAR", nullable, length)

    @staticmethod
    def STRING(nullable: bool = True) -> DataType:
        """Text; Python ``str``."""
        return DataType("STRING", nullable)

    @staticmethod
    def BOOLEAN(nullable: bool = True) -> DataType:
        """``bool``."""
        return DataType("BOOLEAN", nullable)

    @staticmethod
    def BYTES(nullable: bool = True) -> DataType:
        """Bytes (base64 in CSV and JSON); Python ``bytes``."""
        return DataType("BYTES", nullable)

    @staticmethod
    def BINARY(length: int = 1, nullable: bool = True) -> DataType:
        """Fixed-length bytes."""
        return DataType("BINARY", nullable, length)

    @staticmethod
    def VARBINARY(length: int = 2**31 - 1, nullable: bool = True) -> DataType:
        """Variable-length bytes."""
        return DataType("VARBINARY", nullable, length)

    @staticmethod
    def DECIMAL(precision: int = 10, scale: int = 0, nullable: bool = True) -> DataType:
        """Exact decimal; Python ``decimal.Decimal`` rounded to ``scale`` places."""
        return DataType("DECIMAL", nullable, precision, scale)

    @staticmethod
    def TINYINT(nullable: bool = True) -> DataType:
        """1-byte integer."""
        return DataType("TINYINT", nullable)

    @staticmethod
    def SMALLINT(nullable: bool = True) -> DataType:
        """2-byte integer."""
        return DataType("SMALLINT", nullable)

    @staticmethod
    def INT(nullable: bool = True) -> DataType:
        """4-byte integer."""
        return DataType("INT", nullable)

    @staticmethod
    def BIGINT(nullable: bool = True) -> DataType:
        """8-byte integer."""
        return DataType("BIGINT", nullable)

    @staticmethod
    def FLOAT(nullable: bool = True) -> DataType:
        """4-byte float; Python ``float``."""
        return DataType("FLOAT", nullable)

    @staticmethod
    def DOUBLE(nullable: bool = True) -> DataType:
        """8-byte float; Python ``float``."""
        return DataType("DOUBLE", nullable)

    @staticmethod
    def DATE(nullable: bool = True) -> DataType:
        """``datetime.date`` (text ``yyyy-MM-dd``)."""
        return DataType("DATE", nullable)

    @staticmethod
    def TIME(precision: int = 0, nullable: bool = True) -> DataType:
        """``datetime.time`` (text ``HH:mm:ss[.fff]``)."""
        return DataType("TIME", nullable, precision)

    @staticmethod
    def TIMESTAMP(precision: int = 6, nullable: bool = True) -> DataType:
        """``datetime.datetime`` without time zone (text ``yyyy-MM-dd HH:mm:ss[.f...]``)."""
        return DataType("TIMESTAMP", nullable, precision)

    @staticmethod
    def TIMESTAMP_LTZ(precision: int = 6, nullable: bool = True) -> DataType:
        """An instant (``datetime.datetime``)."""
        return DataType("TIMESTAMP_LTZ", nullable, precision)

    @staticmethod
    def ARRAY(element_type: DataType, nullable: bool = True) -> ArrayType:
        """A list of ``element_type``."""
        return ArrayType(element_type, nullable)

    @staticmethod
    def MAP(key_type: DataType, value_type: DataType, nullable: bool = True) -> MapType:
        """A dict from ``key_type`` to ``value_type``."""
        return MapType(key_type, value_type, nullable)

    @staticmethod
    def LIST_VIEW(element_type: DataType) -> DataType:
        """An accumulator field holding a ``ListView`` (``get_accumulator_type``)."""
        return ArrayType(element_type)

    @staticmethod
    def MAP_VIEW(key_type: DataType, value_type: DataType) -> DataType:
        """An accumulator field holding a ``MapView`` (``get_accumulator_type``)."""
        return MapType(key_type, value_type)

    @staticmethod
    def ROW(row_fields: list[RowField] | None = None, nullable: bool = True) -> RowType:
        """A row of named fields (``DataTypes.FIELD(name, type)``)."""
        return RowType(row_fields or [], nullable)

    @staticmethod
    def FIELD(name: str, data_type: DataType, description: str | None = None) -> RowField:
        """One named field of a ROW."""
        return RowField(name, data_type, description)


# -- conversions --------------------------------------------------------------------------


def _same(value: Any) -> Any:
    return value


def _nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


def _json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _integer(bits: int) -> Callable[[str], int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def parse(text: str) -> int:
        value = int(text.strip())
        if not lo <= value <= hi:
            raise ValueError(f"{value} is out of range for a {bits}-bit integer")
        return value

    return parse


def _boolean(text: str) -> bool:
    # Java's Boolean.parseBoolean, as Flink's CSV converter uses
    return text.strip().lower() == "true"


def _float(text: str) -> float:
    return float(text.strip())


def _decimal(text: str) -> decimal.Decimal:
    try:
        return decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise ValueError(f"invalid decimal {text!r}") from None


def _fixed_decimal(precision: int, scale: int) -> Callable[[str], decimal.Decimal | None]:
    exponent = decimal.Decimal(1).scaleb(-scale)

    def parse(text: str) -> decimal.Decimal | None:
        wide = decimal.Context(prec=80)  # DECIMAL(38, s): more digits than the default context's 28
        value = _decimal(text).quantize(exponent, rounding=decimal.ROUND_HALF_UP, context=wide)
        # Flink's DecimalData.fromBigDecimal: a value wider than the precision is NULL
        return None if len(value.as_tuple().digits) > precision and value != 0 else value

    return parse


def _date(text: str) -> datetime.date:
    return datetime.date.fromisoformat(text.strip())


def _time(text: str) -> datetime.time:
    return datetime.time.fromisoformat(text.strip())


def _timestamp(text: str) -> datetime.datetime:
    return iso_timestamp(text.strip())


def _bytes(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def _unsupported(root: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        raise ValueError(f"a {root} column cannot be read from text")

    return parse


_FROM_TEXT: dict[str, Callable[[str], Any]] = {
    "NULL": lambda text: None,
    "CHAR": _same,
    "VARCHAR": _same,
    "STRING": _same,
    "BOOLEAN": _boolean,
    "BYTES": _bytes,
    "BINARY": _bytes,
    "VARBINARY": _bytes,
    "DECIMAL": _decimal,
    "TINYINT": _integer(8),
    "SMALLINT": _integer(16),
    "INT": _integer(32),
    "BIGINT": _integer(64),
    "FLOAT": _float,
    "DOUBLE": _float,
    "DATE": _date,
    "TIME": _time,
    "TIMESTAMP": _timestamp,
    "TIMESTAMP_LTZ": _timestamp,
    "ARRAY": _unsupported("ARRAY"),
    "MAP": _unsupported("MAP"),
    "ROW": _unsupported("ROW"),
}

_ARROW: dict[str, Callable[[Any], Any]] = {
    "NULL": lambda pa: pa.null(),
    "CHAR": lambda pa: pa.string(),
    "VARCHAR": lambda pa: pa.string(),
    "STRING": lambda pa: pa.string(),
    "BOOLEAN": lambda pa: pa.bool_(),
    "BYTES": lambda pa: pa.binary(),
    "BINARY": lambda pa: pa.binary(),
    "VARBINARY": lambda pa: pa.binary(),
    "TINYINT": lambda pa: pa.int8(),
    "SMALLINT": lambda pa: pa.int16(),
    "INT": lambda pa: pa.int32(),
    "BIGINT": lambda pa: pa.int64(),
    "FLOAT": lambda pa: pa.float32(),
    "DOUBLE": lambda pa: pa.float64(),
    "DATE": lambda pa: pa.date32(),
}

_TYPE_INFO: dict[str, Callable[[], TypeInformation]] = {
    "NULL": Types.PICKLED_BYTE_ARRAY,
    "CHAR": Types.STRING,
    "VARCHAR": Types.STRING,
    "STRING": Types.STRING,
    "BOOLEAN": Types.BOOLEAN,
    "BYTES": lambda: Types.PRIMITIVE_ARRAY(Types.BYTE()),
    "BINARY": lambda: Types.PRIMITIVE_ARRAY(Types.BYTE()),
    "VARBINARY": lambda: Types.PRIMITIVE_ARRAY(Types.BYTE()),
    "DECIMAL": Types.BIG_DEC,
    "TINYINT": Types.BYTE,
    "SMALLINT": Types.SHORT,
    "INT": Types.INT,
    "BIGINT": Types.LONG,
    "FLOAT": Types.FLOAT,
    "DOUBLE": Types.DOUBLE,
    "DATE": Types.SQL_DATE,
    "TIME": Types.SQL_TIME,
    "TIMESTAMP": Types.SQL_TIMESTAMP,
    "TIMESTAMP_LTZ": Types.INSTANT,
}


_FROM_BASIC: dict[str, Callable[[], DataType]] = {
    "STRING": lambda: DataTypes.STRING(),
    "INT": lambda: DataTypes.INT(),
    "LONG": lambda: DataTypes.BIGINT(),
    "SHORT": lambda: DataTypes.SMALLINT(),
    "BYTE": lambda: DataTypes.TINYINT(),
    "BOOLEAN": lambda: DataTypes.BOOLEAN(),
    "FLOAT": lambda: DataTypes.FLOAT(),
    "DOUBLE": lambda: DataTypes.DOUBLE(),
    "BIG_DEC": lambda: DataTypes.DECIMAL(38, 18),
    "BIG_INT": lambda: DataTypes.DECIMAL(38, 0),
    "CHAR": lambda: DataTypes.STRING(),
    # Flink's legacy conversion: java.time.Instant and java.sql.Timestamp keep nanoseconds
    "INSTANT": lambda: DataTypes.TIMESTAMP_LTZ(9),
    "SQL_TIMESTAMP": lambda: DataTypes.TIMESTAMP(9),
    "LOCAL_DATE_TIME": lambda: DataTypes.TIMESTAMP(9),
    "SQL_DATE": lambda: DataTypes.DATE(),
    "LOCAL_DATE": lambda: DataTypes.DATE(),
    "SQL_TIME": lambda: DataTypes.TIME(),
    "LOCAL_TIME": lambda: DataTypes.TIME(),
}


def from_type_info(type_info: Any) -> DataType:
    """The SQL type of a DataStream type (Flink's type conversion for ``from_data_stream``);
    types SQL cannot name become NULL-typed (RAW) columns."""
    if isinstance(type_info, BasicTypeInfo) and type_info.name in _FROM_BASIC:
        return _FROM_BASIC[type_info.name]()
    if isinstance(type_info, RowTypeInfo):
        return DataTypes.ROW(
            [
                DataTypes.FIELD(n, from_type_info(t))
                for n, t in zip(type_info.get_field_names(), type_info.get_field_types(), strict=True)
            ]
        )
    if isinstance(type_info, TupleTypeInfo):
        return DataTypes.ROW(
            [DataTypes.FIELD(f"f{i}", from_type_info(t)) for i, t in enumerate(type_info.get_field_types())]
        )
    return DataTypes.NULL()
