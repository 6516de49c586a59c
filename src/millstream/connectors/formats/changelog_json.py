"""Changelog formats: ``debezium-json`` and ``canal-json``, read into ``(kind, row)`` changes
and written from them, as Flink's ``flink-json`` formats.

- ``debezium-json``: ``{"before": ..., "after": ..., "op": "c" | "r" | "u" | "d"}`` (the
  payload of a Debezium envelope; with ``debezium-json.schema-include`` the message is
  ``{"schema": ..., "payload": {...}}``). ``c``/``r`` read as +I, ``u`` as -U before and +U
  after, ``d`` as -D. Written: +I/+U as ``{"before":null,"after":row,"op":"c"}``, -U/-D as
  ``{"before":row,"after":null,"op":"d"}`` (Flink's ``DebeziumJsonSerializationSchema``).
- ``canal-json``: ``{"data": [rows], "old": [changed fields], "type": "INSERT" | "UPDATE" |
  "DELETE", "database": ..., "table": ...}``; an UPDATE's before-row is its data row with the
  ``old`` fields put back. Other types (DDL such as ``CREATE``) are skipped, and so are records
  of other databases/tables when ``canal-json.database.include`` / ``canal-json.table.include``
  (regular expressions) are set. Written: ``{"data":[row],"type":"INSERT"}`` for +I/+U and
  ``"DELETE"`` for -U/-D, as Flink's ``CanalJsonSerializationSchema``.

Both take ``<format>.ignore-parse-errors``; a null message (a Kafka tombstone) is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from millstream.connectors.formats.json_converters import json_loads, json_row_converter
from millstream.connectors.formats.json_encoders import JsonWriteOptions, dumps, json_object_encoder
from millstream.connectors.formats.row_formats import FormatError
from millstream.table.common.factories import (
    DELETE,
    INSERT,
    UPDATE_AFTER,
    UPDATE_BEFORE,
    Decoder,
    Encoder,
    FormatFactory,
    format_option,
)
from millstream.table.common.types import DataType

__all__ = ["CANAL_JSON", "DEBEZIUM_JSON"]

Changes = list[tuple[str, tuple[Any, ...]]]


def _flag(options: dict[str, str], prefix: str, identifier: str, key: str) -> bool:
    return format_option(options, prefix, identifier, key, "false").lower() == "true"


class DebeziumJsonFormatFactory(FormatFactory):
    """``'format' = 'debezium-json'``."""

    identifier = "debezium-json"
    changelog = True

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        ignore = _flag(options, prefix, self.identifier, "ignore-parse-errors")
        schema_include = _flag(options, prefix, self.identifier, "schema-include")
        loads = json_loads
        to_row = _row_decoder(names, types, options, prefix, self.identifier, ignore)

        def changes(data: bytes) -> Changes:
            message = loads(data)
            if schema_include:
                if not isinstance(message, dict) or "payload" not in message:
                    raise FormatError(
                        "'debezium-json.schema-include' is true but the message has no 'payload'"
                    )
                message = message["payload"]
            return _debezium_changes(message, to_row, data)

        return _guarded(changes, ignore, "Debezium")

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        write = JsonWriteOptions.of(options, prefix, self.identifier)
        to_object = json_object_encoder(names, types, write)
        omit_null = write.ignore_null_fields  # the envelope is written with the same options

        def encode(change: tuple[str, tuple[Any, ...]]) -> bytes:
            row = to_object(change[1])
            if change[0] in (INSERT, UPDATE_AFTER):
                return dumps(
                    {"after": row, "op": "c"} if omit_null else {"before": None, "after": row, "op": "c"}
                )
            return dumps(
                {"before": row, "op": "d"} if omit_null else {"before": row, "after": None, "op": "d"}
            )

        return encode


class CanalJsonFormatFactory(FormatFactory):
    """``'format' = 'canal-json'``."""

    identifier = "canal-json"
    changelog = True

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        ignore = _flag(options, prefix, self.identifier, "ignore-parse-errors")
        database = format_option(options, prefix, self.identifier, "database.include", "")
        table = format_option(options, prefix, self.identifier, "table.include", "")
        database_re = re.compile(database) if database else None
        table_re = re.compile(table) if table else None
        loads = json_loads
        to_row = _row_decoder(names, types, options, prefix, self.identifier, ignore)

        def changes(data: bytes) -> Changes:
            message = loads(data)
            if not isinstance(message, dict):
                raise FormatError("not a JSON object")
            if database_re is not None and not database_re.fullmatch(str(message.get("database"))):
                return []
            if table_re is not None and not table_re.fullmatch(str(message.get("table"))):
                return []
            return _canal_changes(message, to_row, data)

        return _guarded(changes, ignore, "Canal")

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        to_object = json_object_encoder(names, types, JsonWriteOptions.of(options, prefix, self.identifier))

        def encode(change: tuple[str, tuple[Any, ...]]) -> bytes:
            kind = "INSERT" if change[0] in (INSERT, UPDATE_AFTER) else "DELETE"
            return dumps({"data": [to_object(change[1])], "type": kind})

        return encode


def _row_decoder(
    names: list[str],
    types: list[DataType],
    options: dict[str, str],
    prefix: str,
    identifier: str,
    ignore: bool,
) -> Callable[[Any], tuple[Any, ...]]:
    """The rows inside the envelope, read as the json format reads them, in the format's
    ``<format>.timestamp-format.standard``."""
    standard = format_option(options, prefix, identifier, "timestamp-format.standard", "SQL")
    return json_row_converter(names, types, False, ignore, standard)


def _guarded(changes: Callable[[bytes], Changes], ignore: bool, what: str) -> Decoder:
    """``changes`` of a message, none for a null one (a tombstone); a message that cannot be
    read fails naming it, or is skipped with ``<format>.ignore-parse-errors``."""

    def decode(data: bytes | None) -> Changes:
        if data is None:
            return []
        try:
            return changes(data)
        except ValueError as err:
            if ignore:
                return []
            raise FormatError(f"Corrupt {what} JSON message '{_text(data)}': {err}") from err

    return decode


def _debezium_changes(message: Any, to_row: Callable[[Any], tuple[Any, ...]], data: bytes) -> Changes:
    if not isinstance(message, dict):
        raise FormatError("not a JSON object")
    op = message.get("op")
    before, after = message.get("before"), message.get("after")
    if op in ("c", "r"):
        return [(INSERT, to_row(after))]
    if op == "u":
        if before is None:
            raise FormatError(
                'The "before" field of UPDATE message is null, if you are using Debezium '
                "Postgres Connector, please check the Postgres table has been set REPLICA "
                "IDENTITY to FULL level."
            )
        return [(UPDATE_BEFORE, to_row(before)), (UPDATE_AFTER, to_row(after))]
    if op == "d":
        if before is None:
            raise FormatError('The "before" field of DELETE message is null')
        return [(DELETE, to_row(before))]
    raise FormatError(f'Unknown "op" value "{op}". The Debezium JSON message is \'{_text(data)}\'')


def _canal_changes(message: dict[str, Any], to_row: Callable[[Any], tuple[Any, ...]], data: bytes) -> Changes:
    kind = message.get("type")
    rows = message.get("data") or []
    if kind == "INSERT":
        return [(INSERT, to_row(r)) for r in rows]
    if kind == "DELETE":
        return [(DELETE, to_row(r)) for r in rows]
    if kind == "UPDATE":
        old = message.get("old") or []
        if len(old) != len(rows):
            raise FormatError("the 'old' and 'data' arrays of an UPDATE differ in length")
        changes = []
        for after, changed in zip(rows, old, strict=True):
            changes.append((UPDATE_BEFORE, to_row({**after, **(changed or {})})))
            changes.append((UPDATE_AFTER, to_row(after)))
        return changes
    if kind == "CREATE" or message.get("isDdl"):
        return []  # a DDL statement: nothing to read
    raise FormatError(f'Unknown "type" value "{kind}". The Canal JSON message is \'{_text(data)}\'')


def _text(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= 120 else text[:117] + "..."


DEBEZIUM_JSON = DebeziumJsonFormatFactory()
CANAL_JSON = CanalJsonFormatFactory()
