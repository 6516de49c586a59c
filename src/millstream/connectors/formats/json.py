"""JSON Lines, configured by PyFlink's ``JsonRowDeserializationSchema``: ``JsonLinesReaderFormat``.

PyFlink has no JSON Lines file format; this one is millstream's. A field missing from an object
is None unless ``fail_on_missing_field``; values convert as Flink's JSON format converts them
(``json_converters``). A line that cannot be parsed fails the job, naming the file, the byte
offset and the field; with ``ignore_parse_errors`` a value that does not convert is None (the
rest of the record kept, as PyFlink's schema does) and a line that is not a JSON object is
skipped.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import (
    BasicTypeInfo,
    ListTypeInfo,
    MapTypeInfo,
    RowTypeInfo,
    TypeInformation,
)
from millstream.common.types import Row
from millstream.connectors.file.readers import LineDecoder, LineError
from millstream.connectors.formats.common import _named_row, _nullable, _SchemaReaderFormat
from millstream.connectors.formats.json_converters import json_loads, json_text, json_value_converter
from millstream.connectors.formats.json_encoders import dumps, json_object_encoder
from millstream.table.common.types import DataType, DataTypes, from_type_info

__all__ = ["JsonLinesReaderFormat", "JsonRowDeserializationSchema", "JsonRowSerializationSchema"]


class JsonRowDeserializationSchema:
    """Turns JSON text into a ``Row`` of a row type (``pyflink.datastream.formats.json``)."""

    def __init__(
        self, type_info: TypeInformation, fail_on_missing_field: bool, ignore_parse_errors: bool
    ) -> None:
        self.type_info = type_info
        self.fail_on_missing_field = fail_on_missing_field
        self.ignore_parse_errors = ignore_parse_errors

    @staticmethod
    def builder() -> JsonRowDeserializationSchemaBuilder:
        """A builder."""
        return JsonRowDeserializationSchemaBuilder()

    def converter(self) -> Callable[[Any], Any]:
        """Parsed JSON (``json_loads``) -> record; raises ValueError."""
        return _json_converter(self.type_info, self.fail_on_missing_field, self.ignore_parse_errors)

    def deserialize(self, message: bytes | str) -> Any:
        """The record of one JSON text (None if it cannot be parsed and errors are ignored)."""
        try:
            return self.converter()(json_loads(message))
        except ValueError:
            if self.ignore_parse_errors:
                return None
            raise


class JsonRowDeserializationSchemaBuilder:
    """Builds a ``JsonRowDeserializationSchema``."""

    def __init__(self) -> None:
        self._type_info: TypeInformation | None = None
        self._fail_on_missing_field = False
        self._ignore_parse_errors = False

    def type_info(self, type_info: TypeInformation) -> JsonRowDeserializationSchemaBuilder:
        """The row type of the records (``Types.ROW_NAMED(...)``)."""
        self._type_info = type_info
        return self

    def json_schema(self, json_schema: str) -> JsonRowDeserializationSchemaBuilder:
        """Not supported: give the type with ``type_info``."""
        raise NotImplementedError(
            "JSON schema strings are not supported; use type_info(Types.ROW_NAMED(...))"
        )

    def fail_on_missing_field(self) -> JsonRowDeserializationSchemaBuilder:
        """A field missing from an object fails instead of reading as None."""
        self._fail_on_missing_field = True
        return self

    def ignore_parse_errors(self) -> JsonRowDeserializationSchemaBuilder:
        """A value that does not convert is None, a record that is not a JSON object skipped,
        instead of failing."""
        self._ignore_parse_errors = True
        return self

    def build(self) -> JsonRowDeserializationSchema:
        """The schema."""
        if self._type_info is None:
            raise ValueError("JsonRowDeserializationSchema needs a type: builder().type_info(...)")
        return JsonRowDeserializationSchema(
            self._type_info, self._fail_on_missing_field, self._ignore_parse_errors
        )


class JsonLinesReaderFormat(_SchemaReaderFormat):
    """Reads JSON Lines (one JSON object per line) into records of a
    ``JsonRowDeserializationSchema``. Blank lines are skipped. The files are read in byte
    ranges like text lines."""

    kind = "json_lines"
    schema_type = JsonRowDeserializationSchema

    def get_produced_type(self) -> TypeInformation:
        """The schema's type."""
        return self.schema.type_info

    def line_decoder(self) -> LineDecoder:
        """Parses each line."""
        return _JsonLineDecoder(self.schema)


class _JsonLineDecoder(LineDecoder):
    def __init__(self, schema: JsonRowDeserializationSchema) -> None:
        self._convert = schema.converter()
        self._ignore = schema.ignore_parse_errors

    def decode(self, lines: list[str]) -> list[Any]:
        out = []
        convert, loads = self._convert, json_loads
        for index, line in enumerate(lines):
            if not line or line.isspace():
                continue
            try:
                out.append(convert(loads(line)))
            except ValueError as err:  # json.JSONDecodeError is a ValueError
                if not self._ignore:
                    raise LineError(index, str(err)) from err
        return out


def _json_converter(type_info: TypeInformation, fail_on_missing: bool, ignore: bool) -> Callable[[Any], Any]:
    """Parsed JSON -> the Python value of ``type_info`` (None stays None); with ``ignore`` a
    value inside a record that does not convert is None."""
    if isinstance(type_info, RowTypeInfo):
        return _json_row(type_info, fail_on_missing, ignore)
    if isinstance(type_info, ListTypeInfo):
        element = _field(_json_converter(type_info.element_type, fail_on_missing, ignore), ignore)
        return lambda value: [element(v) for v in _expect(list, value, "array")]
    if isinstance(type_info, MapTypeInfo):
        key = _json_converter(type_info.key_type, fail_on_missing, ignore)
        item = _field(_json_converter(type_info.value_type, fail_on_missing, ignore), ignore)
        return lambda value: {key(k): item(v) for k, v in _expect(dict, value, "object").items()}
    if isinstance(type_info, BasicTypeInfo):
        return _json_basic(type_info.name)
    return lambda value: value  # PICKLED_BYTE_ARRAY and others: the parsed JSON value


def _field(convert: Callable[[Any], Any], ignore: bool) -> Callable[[Any], Any]:
    """A value inside a record: None stays None; with ``ignore`` one that fails is None."""
    if not ignore:
        return _nullable(convert)

    def lenient(value: Any) -> Any:
        if value is None:
            return None
        try:
            return convert(value)
        except (ValueError, TypeError, ArithmeticError):
            return None

    return lenient


def _expect(kind: type, value: Any, name: str) -> Any:
    if not isinstance(value, kind):
        raise ValueError(f"expected a JSON {name}, got {json.dumps(value)}")
    return value


def _json_row(type_info: RowTypeInfo, fail_on_missing: bool, ignore: bool) -> Callable[[Any], Any]:
    names = type_info.get_field_names()
    types = type_info.get_field_types()
    fields = [_field(_json_converter(t, fail_on_missing, ignore), ignore) for t in types]
    missing = object()

    def row(obj: Any) -> Row:
        _expect(dict, obj, "object")
        values = []
        for name, convert in zip(names, fields):
            value = obj.get(name, missing)
            if value is missing:
                if fail_on_missing:
                    raise ValueError(f"Could not find field with name '{name}'.")
                value = None
            try:
                values.append(convert(value))
            except ValueError as err:
                raise ValueError(f"field '{name}': {err}") from err
        return _named_row(names, values)

    return row


def _json_basic(name: str) -> Callable[[Any], Any]:
    data_type = _BASIC_SQL.get(name)
    if data_type is not None:
        if name in _TEMPORAL:  # the legacy schema's RFC 3339 text (``2019-01-01T12:00:00Z``) too
            return data_type().from_json()
        return json_value_converter(data_type(), False)
    if name == "BIG_INT":
        return lambda v: v if type(v) is int else int(json_text(v).strip())
    if name == "BIG_DEC":
        return lambda v: decimal.Decimal(json_text(v).strip())
    return lambda value: value


_TEMPORAL = frozenset({"SQL_DATE", "SQL_TIME", "SQL_TIMESTAMP", "INSTANT"})


_BASIC_SQL: dict[str, Callable[[], DataType]] = {
    "STRING": DataTypes.STRING,
    "CHAR": DataTypes.STRING,
    "BOOLEAN": DataTypes.BOOLEAN,
    "BYTE": DataTypes.TINYINT,
    "SHORT": DataTypes.SMALLINT,
    "INT": DataTypes.INT,
    "LONG": DataTypes.BIGINT,
    "FLOAT": DataTypes.FLOAT,
    "DOUBLE": DataTypes.DOUBLE,
    "SQL_DATE": DataTypes.DATE,
    "SQL_TIME": DataTypes.TIME,
    "SQL_TIMESTAMP": DataTypes.TIMESTAMP,
    "INSTANT": DataTypes.TIMESTAMP_LTZ,
}


JsonRowDeserializationSchema.Builder = JsonRowDeserializationSchemaBuilder  # type: ignore[attr-defined]


class JsonRowSerializationSchema:
    """Turns a ``Row`` of a row type into JSON bytes (``pyflink.datastream.formats.json``):
    an object of the row's field names, values as Flink's JSON format writes them. A row
    with more fields than the type gives its first ones (as PyFlink 2.3.0: a key schema of
    ``id`` writes ``{"id":1}`` of the row ``(1, 'a', 2)``); one with fewer fails, naming the
    schema and both arities."""

    def __init__(self, type_info: TypeInformation) -> None:
        self.type_info = type_info
        self._encode: Callable[[Any], bytes] | None = None

    @staticmethod
    def builder() -> JsonRowSerializationSchemaBuilder:
        """A builder."""
        return JsonRowSerializationSchemaBuilder()

    def __getstate__(self) -> dict[str, Any]:
        return {"type_info": self.type_info, "_encode": None}

    def serialize(self, element: Any) -> bytes:
        """The JSON of ``element`` (a Row, tuple or list in field order)."""
        encode = self._encode
        if encode is None:
            encode = self._encode = _row_encoder(self.type_info)
        return encode(element)


def _row_encoder(type_info: TypeInformation) -> Callable[[Any], bytes]:
    if not isinstance(type_info, RowTypeInfo):
        raise TypeError(f"JsonRowSerializationSchema needs a row type (Types.ROW_NAMED), got {type_info}")
    names = type_info.get_field_names()
    to_object = json_object_encoder(names, [from_type_info(t) for t in type_info.get_field_types()])
    arity = len(names)

    def encode(element: Any) -> bytes:
        # Flink's schema writes the first fields of a longer row (a key schema of a whole row)
        values = tuple(element)
        if len(values) < arity:
            raise ValueError(
                f"Could not serialize row {element!r} with JsonRowSerializationSchema of {type_info}: "
                f"the row has {len(values)} fields, the schema {arity}. Make sure that the schema "
                "matches the input."
            )
        return dumps(to_object(values[:arity]))

    return encode


class JsonRowSerializationSchemaBuilder:
    """Builds a ``JsonRowSerializationSchema``."""

    def __init__(self) -> None:
        self._type_info: TypeInformation | None = None

    def with_type_info(self, type_info: TypeInformation) -> JsonRowSerializationSchemaBuilder:
        """The row type of the elements (its field names name the JSON properties)."""
        self._type_info = type_info
        return self

    def build(self) -> JsonRowSerializationSchema:
        """The schema."""
        if self._type_info is None:
            raise TypeError("Typeinfo should be set.")
        return JsonRowSerializationSchema(self._type_info)


JsonRowSerializationSchema.Builder = JsonRowSerializationSchemaBuilder  # type: ignore[attr-defined]
