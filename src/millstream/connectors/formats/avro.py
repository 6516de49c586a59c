"""Avro records (binary encoding, no container header), through fastavro: the table format
``'format' = 'avro'`` and PyFlink's ``AvroRowSerializationSchema`` /
``AvroRowDeserializationSchema`` (``pyflink.datastream.formats.avro``).

A table's Avro schema is derived from its row type as Flink's ``AvroSchemaConverter`` does: a
record of the columns in order, a nullable column a union ``["null", type]``; BIGINT long,
INT/SMALLINT/TINYINT int, FLOAT, DOUBLE, BOOLEAN, STRING string, BYTES bytes, DECIMAL(p, s)
bytes with the ``decimal`` logical type, DATE ``date``, TIME ``time-millis``, TIMESTAMP and
TIMESTAMP_LTZ (p <= 3) ``timestamp-millis`` (Flink's legacy mapping, its default), ARRAY,
MAP (string keys) and ROW as nested records. The row schemas take an Avro schema string and
read or write ``Row``s of its record's fields.
"""

from __future__ import annotations

import datetime
import io
import json
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import Types
from millstream.connectors.formats.common import _named_row
from millstream.table.common.factories import Decoder, Encoder, FormatFactory
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType, RowType

__all__ = [
    "AVRO",
    "AvroFileWriterFactory",
    "AvroRowDeserializationSchema",
    "AvroRowSerializationSchema",
    "AvroSchema",
    "read_avro_file",
]

_PRIMITIVES = {
    "BIGINT": "long",
    "INT": "int",
    "SMALLINT": "int",
    "TINYINT": "int",
    "FLOAT": "float",
    "DOUBLE": "double",
    "BOOLEAN": "boolean",
    "STRING": "string",
    "VARCHAR": "string",
    "CHAR": "string",
    "BYTES": "bytes",
    "BINARY": "bytes",
    "VARBINARY": "bytes",
    "NULL": "null",
}


_NAMESPACE = "org.apache.flink.avro.generated"


def avro_schema_of(data_type: DataType, name: str = "record", namespace: str = _NAMESPACE) -> Any:
    """The Avro schema of a table type (Flink's ``AvroSchemaConverter.convertToSchema``)."""
    schema = _avro_type(data_type, name, namespace)
    if data_type.is_nullable() and data_type.root != "NULL":
        return ["null", schema]
    return schema


def _avro_type(data_type: DataType, name: str, namespace: str) -> Any:
    root = data_type.root
    if isinstance(data_type, RowType):
        return {
            "type": "record",
            "name": name,
            "namespace": namespace,
            "fields": [
                {"name": n, "type": avro_schema_of(t, f"{name}_{n}", namespace)}
                for n, t in zip(data_type.field_names(), data_type.field_types(), strict=True)
            ],
        }
    if isinstance(data_type, ArrayType):
        return {"type": "array", "items": avro_schema_of(data_type.element_type, name, namespace)}
    if isinstance(data_type, MapType):
        return {"type": "map", "values": avro_schema_of(data_type.value_type, name, namespace)}
    if root in _PRIMITIVES:
        return _PRIMITIVES[root]
    if root == "DECIMAL":
        precision, scale = (int(p) for p in data_type.params)
        return {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale}
    if root == "DATE":
        return {"type": "int", "logicalType": "date"}
    if root == "TIME":
        return {"type": "int", "logicalType": "time-millis"}
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = int(data_type.params[0]) if data_type.params else 6
        return {"type": "long", "logicalType": "timestamp-millis" if precision <= 3 else "timestamp-micros"}
    raise ValueError(f"the avro format does not support the type {data_type!r}")


def _to_avro(data_type: DataType) -> Callable[[Any], Any]:
    """A column value -> what fastavro writes for it."""
    if data_type.root == "TIMESTAMP_LTZ":  # the session zone's wall clock -> an instant
        return lambda v: v.astimezone() if v.tzinfo is None else v
    if data_type.root == "TIMESTAMP":  # a wall clock in no zone: written as if UTC
        return lambda v: v.replace(tzinfo=datetime.UTC)
    return lambda v: v


def _from_avro(data_type: DataType) -> Callable[[Any], Any]:
    """What fastavro read -> a column value."""
    root = data_type.root
    if root == "TIMESTAMP_LTZ":
        return lambda v: v.astimezone().replace(tzinfo=None) if isinstance(v, datetime.datetime) else v
    if root == "TIMESTAMP":
        return lambda v: (
            v.astimezone(datetime.UTC).replace(tzinfo=None) if isinstance(v, datetime.datetime) else v
        )
    if root == "DECIMAL":
        scale = int(data_type.params[1])
        return lambda v: v.quantize(type(v)(1).scaleb(-scale))
    return lambda v: v


def _nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else convert(v)


class AvroFormatFactory(FormatFactory):
    """``'format' = 'avro'``."""

    identifier = "avro"

    @staticmethod
    def _parsed(names: list[str], types: list[DataType]) -> Any:
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        import fastavro

        row = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types, strict=True)], False)
        return fastavro.parse_schema(_avro_type(row, "record", _NAMESPACE))

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        import fastavro

        schema = self._parsed(names, types)
        converts = [_nullable(_from_avro(t)) for t in types]
        read: Any = fastavro.schemaless_reader

        def decode(data: bytes) -> tuple[Any, ...]:
            try:
                record = read(io.BytesIO(data), schema, None)
            except Exception as err:  # fastavro raises EOFError, ValueError ... on bad bytes
                raise ValueError(f"Failed to deserialize Avro record: {type(err).__name__}: {err}") from err
            return tuple([c(record[n]) for c, n in zip(converts, names, strict=True)])

        return decode

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        import fastavro

        schema = self._parsed(names, types)
        converts = [_nullable(_to_avro(t)) for t in types]
        write = fastavro.schemaless_writer

        def encode(change: tuple[str, tuple[Any, ...]]) -> bytes:
            out = io.BytesIO()
            write(out, schema, {n: c(v) for n, c, v in zip(names, converts, change[1], strict=True)})
            return out.getvalue()

        return encode


AVRO = AvroFormatFactory()


class AvroSchema:
    """An Avro schema (``AvroSchema.parse_string(json)`` / ``parse_file(path)``)."""

    def __init__(self, definition: Any) -> None:
        self.definition = definition

    @staticmethod
    def parse_string(json_schema: str) -> AvroSchema:
        """The schema of this JSON text."""
        return AvroSchema(json.loads(json_schema))

    @staticmethod
    def parse_file(file_path: str) -> AvroSchema:
        """The schema in this file."""
        with open(file_path, encoding="utf-8") as file:
            return AvroSchema(json.load(file))

    def __str__(self) -> str:
        return json.dumps(self.definition)


def _record_schema(record_class: str | None, avro_schema_string: str | None, what: str) -> Any:
    # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
    import fastavro

    if record_class is not None:
        raise ValueError(f"{what}: Java record classes cannot be loaded here; give avro_schema_string")
    if avro_schema_string is None:
        raise TypeError("record_class or avro_schema_string should be specified.")
    schema: Any = fastavro.parse_schema(json.loads(avro_schema_string))
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise ValueError(f"{what}: the Avro schema must be a record, got {avro_schema_string[:80]!r}")
    return schema


class AvroRowDeserializationSchema:
    """Avro binary records -> ``Row``s of the record's fields."""

    def __init__(self, record_class: str | None = None, avro_schema_string: str | None = None) -> None:
        self.avro_schema_string = avro_schema_string
        self._schema = _record_schema(record_class, avro_schema_string, "AvroRowDeserializationSchema")
        self._names = [f["name"] for f in self._schema["fields"]]

    def __getstate__(self) -> dict[str, Any]:
        return {"avro_schema_string": self.avro_schema_string}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(None, state["avro_schema_string"])  # type: ignore[misc]

    def get_produced_type(self) -> Any:
        """The Row type of the record's fields (Flink's ``AvroSchemaConverter.convertToTypeInfo``)."""
        return _type_info_of(self._schema)

    def deserialize(self, message: bytes) -> Any:
        """The Row of one record."""
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        import fastavro

        record: Any = fastavro.schemaless_reader(io.BytesIO(message), self._schema, None)
        return _named_row(self._names, [record[n] for n in self._names])


def _type_info_of(schema: Any) -> Any:
    if isinstance(schema, list):  # a union: ["null", T] is a nullable T
        others = [s for s in schema if s != "null"]
        return _type_info_of(others[0]) if len(others) == 1 else Types.PICKLED_BYTE_ARRAY()
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "record":
            fields = schema["fields"]
            return Types.ROW_NAMED([f["name"] for f in fields], [_type_info_of(f["type"]) for f in fields])
        if kind == "array":
            return Types.OBJECT_ARRAY(_type_info_of(schema["items"]))
        if kind == "map":
            return Types.MAP(Types.STRING(), _type_info_of(schema["values"]))
        if kind == "enum":
            return Types.STRING()
        if schema.get("logicalType") == "decimal":
            return Types.BIG_DEC()
        if schema.get("logicalType") in ("timestamp-millis", "timestamp-micros"):
            return Types.SQL_TIMESTAMP()
        if schema.get("logicalType") == "date":
            return Types.SQL_DATE()
        return _type_info_of(kind)
    simple = {
        "int": Types.INT,
        "long": Types.LONG,
        "string": Types.STRING,
        "boolean": Types.BOOLEAN,
        "float": Types.FLOAT,
        "double": Types.DOUBLE,
    }
    if schema in simple:
        return simple[schema]()
    if schema in ("bytes", "fixed"):
        return Types.PRIMITIVE_ARRAY(Types.BYTE())
    return Types.PICKLED_BYTE_ARRAY()


class AvroRowSerializationSchema:
    """``Row``s (by field position) -> Avro binary records of the schema."""

    def __init__(self, record_class: str | None = None, avro_schema_string: str | None = None) -> None:
        self.avro_schema_string = avro_schema_string
        self._schema = _record_schema(record_class, avro_schema_string, "AvroRowSerializationSchema")
        self._names = [f["name"] for f in self._schema["fields"]]

    def __getstate__(self) -> dict[str, Any]:
        return {"avro_schema_string": self.avro_schema_string}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(None, state["avro_schema_string"])  # type: ignore[misc]

    def serialize(self, element: Any) -> bytes:
        """The record of ``element`` (a Row, tuple or list in field order)."""
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        import fastavro

        out = io.BytesIO()
        fastavro.schemaless_writer(out, self._schema, dict(zip(self._names, element, strict=True)))
        return out.getvalue()


# -- Avro container files (the filesystem connector's 'avro' format) --------------------------------------


def read_avro_file(path: str, names: list[str], types: list[DataType]) -> list[tuple[Any, ...]]:
    """The rows of an Avro container file (its own schema; fields by the columns' names)."""
    # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
    import fastavro

    converts = [_nullable(_from_avro(t)) for t in types]
    with open(path, "rb") as file:
        records: list[Any] = list(fastavro.reader(file))
    return [tuple([c(record.get(n)) for c, n in zip(converts, names, strict=True)]) for record in records]


class AvroFileWriterFactory:
    """Bulk writer factory of Avro container files of a table's rows (a FileSink bulk format:
    ``create(path)`` -> ``add_batch`` / ``finish``), the schema derived as the 'avro' format's."""

    def __init__(self, names: list[str], types: list[DataType]) -> None:
        self.names, self.types = list(names), list(types)

    def create(self, path: str) -> _AvroFileWriter:
        return _AvroFileWriter(path, self.names, self.types)


class _AvroFileWriter:
    def __init__(self, path: str, names: list[str], types: list[DataType]) -> None:
        # fastavro (~7 ms of every TableEnvironment's start-up): imported when an Avro format runs
        from fastavro.write import Writer

        self._file = open(path, "wb")  # noqa: SIM115 - closed by finish/close
        self._names = names
        self._converts = [_nullable(_to_avro(t)) for t in types]
        self._writer = Writer(self._file, AvroFormatFactory._parsed(names, types))

    def add_batch(self, values: list[Any]) -> None:
        names, converts, write = self._names, self._converts, self._writer.write
        for row in values:
            write({n: c(v) for n, c, v in zip(names, converts, row, strict=True)})

    def finish(self) -> None:
        self._writer.flush()
        self._file.close()

    def close(self) -> None:
        self._file.close()
