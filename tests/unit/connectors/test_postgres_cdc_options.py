"""The postgres-cdc table options as Flink CDC's ``PostgreSQLTableFactory`` checks them, each
refusal in one line naming the option; the builder of the DataStream source; and what the
table's deserializer and Debezium JSON make of change events."""

from __future__ import annotations

import datetime
import decimal
import json
import logging
from typing import Any

import pytest

from millstream.connectors.postgres_cdc.config import PostgresCdcError, PostgresSourceConfig, StartupMode
from millstream.connectors.postgres_cdc.debezium import JsonDebeziumDeserializationSchema, debezium_value
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.table import POSTGRES_CDC, _TableDeserializer, config_of
from millstream.datastream.connectors.postgres_cdc import (
    PostgreSQLSource,
    PostgresSourceBuilder,
    StartupOptions,
)
from millstream.table import DataTypes
from millstream.table.common.factories import MetadataColumn, TableContext, find_table_factory
from millstream.table.common.schema import Schema

OPTIONS = {
    "connector": "postgres-cdc",
    "hostname": "localhost",
    "username": "flink",
    "password": "secret",
    "database-name": "shop",
    "schema-name": "public",
    "table-name": "orders.*",
    "slot.name": "orders_slot",
}


def context(
    options: dict[str, str] | None = None, key: bool = True, metadata: tuple[str, ...] = ()
) -> TableContext:
    columns = [
        ("id", DataTypes.INT()),
        ("customer", DataTypes.STRING()),
        ("amount", DataTypes.DECIMAL(10, 2)),
    ]
    meta = [MetadataColumn(k, DataTypes.STRING(), k, virtual=True) for k in metadata]
    schema = Schema(columns, [], None, ["id"] if key else [], metadata=meta)
    given = {k: v for k, v in {**OPTIONS, **(options or {})}.items() if v is not None}
    return TableContext("orders", schema, {k: v for k, v in given.items() if k != "connector"})


def validate(options: dict[str, str] | None = None, key: bool = True, metadata: tuple[str, ...] = ()) -> None:
    POSTGRES_CDC.validate(context(options, key, metadata), [])


def test_the_factory_is_found_by_its_identifier_and_takes_flink_cdcs_options() -> None:
    assert find_table_factory("postgres-cdc") is POSTGRES_CDC
    validate({"port": "5433", "decoding.plugin.name": "pgoutput", "changelog-mode": "upsert"})
    validate({"scan.startup.mode": "latest-offset", "scan.incremental.snapshot.enabled": "false"})
    validate(metadata=("database_name", "schema_name", "table_name", "op_ts", "row_kind"))
    config = config_of(
        context({"port": "5433", "debezium.publication.name": "pub", "connect.timeout": "5 s"})
    )
    assert (config.port, config.publication, config.connect_timeout_s) == (5433, "pub", 5)
    assert config.table_list == ("public.orders.*",)  # Flink CDC's schema-name + "." + table-name
    assert config.captures("public", "orders_2024") and not config.captures("other", "orders")
    assert config.startup.startup_mode is StartupMode.INITIAL


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"slot.name": None}, r"missing the required option\(s\) slot.name"),
        ({"hostname": None, "password": None}, r"missing the required option\(s\) hostname, password"),
        (
            {"scan.startup.timestamp-millis": "1"},
            "Unsupported options found for 'postgres-cdc' in table 'orders': scan",
        ),
        (
            {"decoding.plugin.name": "decoderbufs"},
            "'decoding.plugin.name' 'decoderbufs' is not supported: millstream decodes 'pgoutput'",
        ),
        (
            {"scan.startup.mode": "snapshot"},
            r"Supported values are \[initial, latest-offset\], but was: snapshot",
        ),
        ({"scan.startup.mode": "timestamp"}, "but was: timestamp"),
        ({"changelog-mode": "retract"}, "'changelog-mode' must be 'all' or 'upsert', got 'retract'"),
        ({"slot.name": "Orders-Slot"}, "'slot.name' 'Orders-Slot' is not a replication slot name"),
        ({"table-name": "orders("}, "is not a regular expression"),
        ({"debezium.publication.autocreate.mode": "sometimes"}, "autocreate.mode' must be one of all_tables"),
        ({"scan.incremental.snapshot.enabled": "yes"}, "must be 'true' or 'false'"),
        ({"port": "fifty"}, "option 'port' must be a positive integer, got 'fifty'"),
        ({"scan.snapshot.fetch.size": "0"}, "'snapshot.fetch.size' must be a positive integer, got '0'"),
        ({"debezium.status.update.interval.ms": "soon"}, "'status.update.interval.ms' must be a positive"),
    ],
)
def test_bad_options_fail_in_one_line_naming_the_option(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as failure:
        validate(options)
    assert "\n" not in str(failure.value)


def test_upsert_mode_needs_a_primary_key_and_metadata_keys_are_checked() -> None:
    with pytest.raises(ValueError, match="Primary key must be present when upsert mode is selected"):
        validate({"changelog-mode": "upsert"}, key=False)
    validate(key=False)  # all: no key needed
    with pytest.raises(
        ValueError, match=r"Invalid metadata key 'offset'.*supported keys are database_name, op_ts"
    ):
        validate(metadata=("offset",))


def test_unknown_debezium_properties_are_accepted_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        validate({"debezium.snapshot.mode": "never", "debezium.publication.name": "p"})
    assert "'snapshot.mode' has no effect in millstream" in caplog.text
    assert "publication.name" not in caplog.text


def test_the_builder_needs_the_server_and_a_deserializer() -> None:
    builder = PostgreSQLSource.builder().hostname("h").database("d").username("u").password("p")
    with pytest.raises(ValueError, match="a deserializer is required"):
        builder.build()
    with pytest.raises(ValueError, match="hostname, database must be set"):
        PostgreSQLSource.builder().username("u").password("p").build()
    source = (
        PostgresSourceBuilder.PostgresIncrementalSource.builder()
        .hostname("h")
        .port(5433)
        .database("d")
        .schema_list("public")
        .table_list("public.orders")
        .username("u")
        .password("p")
        .slot_name("s1")
        .decoding_plugin_name("pgoutput")
        .startup_options(StartupOptions.latest())
        .debezium_properties({"publication.name": "pub"})
        .deserializer(JsonDebeziumDeserializationSchema())
        .build()
    )
    assert isinstance(source.config, PostgresSourceConfig) and source.config.publication == "pub"
    assert not source.is_bounded() and str(source.get_produced_type()) == str(
        JsonDebeziumDeserializationSchema().get_produced_type()
    )
    assert source.rescale_reader_states(
        [{"version": 1, "split": None}, {"version": 1, "split": {"phase": "stream"}}], 3
    ) == [
        {"version": 1, "split": {"phase": "stream"}},
        {"version": 1, "split": None},
        {"version": 1, "split": None},
    ]
    with pytest.raises(ValueError, match=r"'decoding.plugin.name' 'wal2json' is not supported"):
        builder.decoding_plugin_name("wal2json").deserializer(object()).build()


ORDERS = TableSchema(
    "shop", "public", "orders", ("id", "customer", "amount", "note"), (23, 25, 1700, 25), key=("id",)
)


class Collect:
    def __init__(self) -> None:
        self.records: list[Any] = []
        self.collect = self.records.append


def changes(deserializer: Any, *events: ChangeEvent) -> list[Any]:
    out = Collect()
    for event in events:
        deserializer.deserialize(event, out)
    return out.records


def test_the_table_deserializer_emits_the_changelog_by_column_name_with_metadata() -> None:
    d = _TableDeserializer(context(metadata=("table_name", "row_kind")), upsert=False)
    row = (1, "alice", decimal.Decimal("10.50"), "n")
    new = (1, "alice", decimal.Decimal("12.00"), "n")
    assert changes(
        d,
        ChangeEvent("r", ORDERS, None, row),
        ChangeEvent("u", ORDERS, row, new, True, 5, 0x10, 7),
        ChangeEvent("d", ORDERS, new, None, True, 6, 0x20, 8),
    ) == [
        ("+I", (1, "alice", decimal.Decimal("10.50"), "orders", "+I")),
        ("-U", (1, "alice", decimal.Decimal("10.50"), "orders", "-U")),
        ("+U", (1, "alice", decimal.Decimal("12.00"), "orders", "+U")),
        ("-D", (1, "alice", decimal.Decimal("12.00"), "orders", "-D")),
    ]


def test_without_the_old_row_all_mode_fails_as_flink_cdc_and_upsert_mode_goes_on() -> None:
    key_only = (1, None, None, None)
    update = ChangeEvent("u", ORDERS, None, (1, "b", decimal.Decimal(1), None), False, 5, 0x10, 7)
    delete = ChangeEvent("d", ORDERS, key_only, None, False, 5, 0x10, 7)
    with pytest.raises(
        PostgresCdcError, match=r"REPLICA IDENTITY to FULL.*ALTER TABLE public.orders REPLICA IDENTITY FULL"
    ):
        changes(_TableDeserializer(context(), upsert=False), update)
    with pytest.raises(PostgresCdcError, match="REPLICA IDENTITY to FULL"):
        changes(_TableDeserializer(context(), upsert=False), delete)
    upsert = _TableDeserializer(context({"changelog-mode": "upsert"}), upsert=True)
    assert changes(upsert, update, delete) == [("+U", (1, "b", decimal.Decimal(1))), ("-D", (1, None, None))]


def test_a_table_column_missing_in_the_database_is_named() -> None:
    other = TableSchema("shop", "public", "orders", ("id", "amount"), (23, 1700), key=("id",))
    with pytest.raises(
        PostgresCdcError, match=r"column\(s\) customer of table 'orders' are not columns of public.orders"
    ):
        changes(
            _TableDeserializer(context(), upsert=False),
            ChangeEvent("r", other, None, (1, decimal.Decimal(1))),
        )


def test_debezium_json_of_a_snapshot_read_and_an_update() -> None:
    table = TableSchema(
        "shop",
        "public",
        "t",
        ("id", "price", "day", "at", "at_tz", "data", "doc"),
        (23, 1700, 1082, 1114, 1184, 17, 3802),
        (-1, -1, -1, -1, -1, -1, -1),
        ("id",),
    )
    row = (
        1,
        decimal.Decimal("12.34"),
        datetime.date(1970, 1, 11),
        datetime.datetime(1970, 1, 1, 0, 0, 1, 500),
        datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.UTC),
        b"\x01\x02",
        '{"a": 1}',
    )
    schema = JsonDebeziumDeserializationSchema()
    read, changed = (
        json.loads(s)
        for s in changes(
            schema, ChangeEvent("r", table, None, row), ChangeEvent("u", table, row, row, True, 99, 0x20, 5)
        )
    )
    # Debezium's JSON: DECIMAL as Kafka Connect's Decimal (unscaled 1234 in base64), DATE as
    # days, TIMESTAMP as microseconds, TIMESTAMPTZ as an ISO string in UTC, bytes in base64
    assert read["after"] == {
        "id": 1,
        "price": "BNI=",
        "day": 10,
        "at": 1_000_500,
        "at_tz": "2024-01-01T12:00:00Z",
        "data": "AQI=",
        "doc": '{"a": 1}',
    }
    assert read["before"] is None and read["op"] == "r" and read["source"]["snapshot"] == "true"
    assert (read["source"]["db"], read["source"]["schema"], read["source"]["table"]) == (
        "shop",
        "public",
        "t",
    )
    assert changed["op"] == "u" and changed["before"] == read["after"] and changed["source"]["lsn"] == 0x20
    assert (changed["source"]["txId"], changed["source"]["ts_ms"]) == (5, 99)
    wrapped = json.loads(
        changes(JsonDebeziumDeserializationSchema(include_schema=True), ChangeEvent("r", table, None, row))[0]
    )
    assert set(wrapped) == {"schema", "payload"} and wrapped["payload"]["after"]["id"] == 1
    source = (
        PostgreSQLSource.builder()
        .hostname("h")
        .database("d")
        .username("u")
        .password("p")
        .debezium_properties({"decimal.handling.mode": "string"})
        .deserializer(JsonDebeziumDeserializationSchema())
        .build()
    )
    as_text = json.loads(changes(source.deserializer, ChangeEvent("r", table, None, row))[0])
    assert as_text["after"]["price"] == "12.34"  # the source's decimal.handling.mode
    assert debezium_value(1700, -1, "string")(decimal.Decimal("-1.50")) == "-1.50"
    assert debezium_value(1700, -1, "double")(decimal.Decimal("-1.50")) == -1.5
    assert debezium_value(1700, -1)(decimal.Decimal("-1.50")) == "/2o="  # -150: 0xff6a
