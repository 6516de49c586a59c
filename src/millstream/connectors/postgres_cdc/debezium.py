"""Deserializers of change events (Flink CDC's ``DebeziumDeserializationSchema``) and the
Debezium JSON one: each change as the JSON string Debezium's PostgreSQL connector would
write (``JsonDebeziumDeserializationSchema``), as Flink CDC pipelines hand to Kafka.

    {"before": null, "after": {"id": 1, "name": "a"}, "source": {"version": ..., "connector":
     "postgresql", "name": "postgres_cdc_source", "ts_ms": 0, "snapshot": "true", "db": "shop",
     "sequence": null, "schema": "public", "table": "orders", "txId": null, "lsn": null,
     "xmin": null}, "op": "r", "ts_ms": 1700000000000, "transaction": null}

Values as Debezium's defaults write them: integers, floats, booleans and text as they are;
``numeric`` by ``decimal.handling.mode`` (``precise``: Kafka Connect's Decimal, the unscaled
value's big-endian bytes in base64; ``double``; ``string``); ``date`` as days since the epoch;
``time`` / ``timestamp`` (``time.precision.mode`` adaptive) as milli- or microseconds by
their precision; ``timestamptz`` as an ISO-8601 UTC string; ``bytea`` in base64; ``json``,
``uuid`` and other types as text; arrays as JSON arrays.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import Types
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema

__all__ = ["DebeziumDeserializationSchema", "JsonDebeziumDeserializationSchema", "debezium_value"]

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)
_SOURCE_VERSION = "1.9.8.Final"  # the Debezium version of Flink CDC 3's PostgreSQL connector
# type OIDs of the columns whose JSON is not the Python value itself
_DATE, _TIME, _TIMESTAMP, _TIMESTAMPTZ, _TIMETZ, _NUMERIC, _BYTEA, _INTERVAL = (
    1082,
    1083,
    1114,
    1184,
    1266,
    1700,
    17,
    1186,
)


class DebeziumDeserializationSchema:
    """Turns a ``ChangeEvent`` into records: ``deserialize(record, out)`` calls
    ``out.collect(value)`` for each (Flink CDC's interface); ``get_produced_type()`` is
    their type."""

    def deserialize(self, record: ChangeEvent, out: Any) -> None:
        """Emit the records of ``record``."""
        raise NotImplementedError

    def get_produced_type(self) -> Any:
        """The records' type (None: pickled Python objects)."""
        return None


def _precision(modifier: int, default: int = 6) -> int:
    return default if modifier < 0 else modifier


def _micros(delta: datetime.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _decimal(mode: str) -> Callable[[Any], Any]:
    if mode == "double":
        return float
    if mode == "string":
        return lambda v: format(v, "f")

    def precise(value: decimal.Decimal) -> Any:
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            return str(value)  # NaN / Infinity: no Decimal holds them
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        size = max(1, (unscaled.bit_length() + 8) // 8)
        return base64.b64encode(unscaled.to_bytes(size, "big", signed=True)).decode("ascii")

    return precise


def debezium_value(type_oid: int, modifier: int, decimal_mode: str = "precise") -> Callable[[Any], Any]:
    """The function writing a column's Python value as Debezium's JSON value."""
    if type_oid == _NUMERIC:
        return _decimal(decimal_mode)
    if type_oid == _DATE:
        return lambda v: (v - _EPOCH_DATE).days
    if type_oid == _TIME:
        millis = _precision(modifier) <= 3
        return lambda v: (
            (v.hour * 3600 + v.minute * 60 + v.second) * (1000 if millis else 1_000_000)
            + (v.microsecond // 1000 if millis else v.microsecond)
        )
    if type_oid == _TIMESTAMP:
        if _precision(modifier) <= 3:
            return lambda v: _micros(v - _EPOCH) // 1000
        return lambda v: _micros(v - _EPOCH)
    if type_oid == _TIMESTAMPTZ:
        return lambda v: v.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ").replace(".000000Z", "Z")
    if type_oid == _TIMETZ:
        return lambda v: v.isoformat()
    if type_oid == _BYTEA:
        return lambda v: base64.b64encode(bytes(v)).decode("ascii")
    if type_oid == _INTERVAL:
        return lambda v: _micros(v) if isinstance(v, datetime.timedelta) else str(v)
    return _plain


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [None if v is None else _plain(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (uuid.UUID, datetime.date, datetime.time, datetime.datetime)):
        return str(value)
    return str(value)


class JsonDebeziumDeserializationSchema(DebeziumDeserializationSchema):
    """Each change event as a Debezium JSON string (Flink CDC's ``JsonDebeziumDeserializationSchema``);
    ``include_schema``: wrapped as ``{"schema": ..., "payload": ...}``, as Kafka Connect's
    JsonConverter writes it with schemas on."""

    def __init__(self, include_schema: bool = False, decimal_handling_mode: str | None = None) -> None:
        self.include_schema = include_schema
        # None: the source's Debezium property decimal.handling.mode (precise by default)
        self.decimal_handling_mode = decimal_handling_mode
        self._writers: dict[int, tuple[TableSchema, list[Callable[[Any], Any]]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"include_schema": self.include_schema, "decimal_handling_mode": self.decimal_handling_mode}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def for_source(self, decimal_handling_mode: str) -> JsonDebeziumDeserializationSchema:
        """This schema with the source's ``decimal.handling.mode`` unless one was given."""
        mode = self.decimal_handling_mode or decimal_handling_mode
        return JsonDebeziumDeserializationSchema(self.include_schema, mode)

    def get_produced_type(self) -> Any:
        """STRING."""
        return Types.STRING()

    def _row_writers(self, table: TableSchema) -> list[Callable[[Any], Any]]:
        cached = self._writers.get(id(table))
        if cached is not None and cached[0] is table:
            return cached[1]
        modifiers = table.type_modifiers or (-1,) * len(table.columns)
        mode = self.decimal_handling_mode or "precise"
        writers = [debezium_value(o, m, mode) for o, m in zip(table.type_oids, modifiers, strict=True)]
        if len(self._writers) > 256:  # a Relation message makes a new schema: keep the recent ones
            self._writers.clear()
        self._writers[id(table)] = (table, writers)
        return writers

    def _row(self, table: TableSchema, row: tuple[Any, ...] | None) -> dict[str, Any] | None:
        if row is None:
            return None
        writers = self._row_writers(table)
        return {
            name: None if value is None else write(value)
            for name, value, write in zip(table.columns, row, writers, strict=True)
        }

    def envelope(self, record: ChangeEvent) -> dict[str, Any]:
        """The event's Debezium envelope (the payload)."""
        table = record.table
        return {
            "before": self._row(table, record.before),
            "after": self._row(table, record.after),
            "source": {
                "version": _SOURCE_VERSION,
                "connector": "postgresql",
                "name": "postgres_cdc_source",
                "ts_ms": record.ts_ms,
                "snapshot": "true" if record.snapshot else "false",
                "db": table.database,
                "sequence": None,
                "schema": table.schema,
                "table": table.name,
                "txId": record.txid,
                "lsn": record.lsn,
                "xmin": None,
            },
            "op": record.op,
            "ts_ms": time.time_ns() // 1_000_000,
            "transaction": None,
        }

    def deserialize(self, record: ChangeEvent, out: Any) -> None:
        """Emit the event's JSON string."""
        payload = self.envelope(record)
        message: Any = (
            {"schema": _schema(record.table), "payload": payload} if self.include_schema else payload
        )
        out.collect(json.dumps(message, separators=(",", ":"), ensure_ascii=False))


_CONNECT_TYPES = {
    16: "boolean",
    21: "int16",
    23: "int32",
    20: "int64",
    700: "float",
    701: "double",
    1082: "int32",
}


def _schema(table: TableSchema) -> dict[str, Any]:
    """Kafka Connect's schema of the envelope (the row's fields typed coarsely)."""
    fields = [
        {"type": _CONNECT_TYPES.get(oid, "string"), "optional": True, "field": name}
        for name, oid in zip(table.columns, table.type_oids, strict=True)
    ]
    row = {"type": "struct", "fields": fields, "optional": True}
    name = f"postgres_cdc_source.{table.schema}.{table.name}"
    return {
        "type": "struct",
        "fields": [
            {**row, "name": f"{name}.Value", "field": "before"},
            {**row, "name": f"{name}.Value", "field": "after"},
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
        ],
        "optional": False,
        "name": f"{name}.Envelope",
    }
