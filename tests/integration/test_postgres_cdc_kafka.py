"""Flink CDC pipelines as they are commonly written, on PostgreSQL 15 and a Kafka-protocol
broker (Tansu): a postgres-cdc table INSERTed INTO a kafka table with ``'format' =
'debezium-json'`` (Flink's ``DebeziumJsonSerializationSchema``: +I/+U as ``"op":"c"``,
-U/-D as ``"op":"d"``), and the DataStream form, ``PostgreSQLSource.builder()`` with
``JsonDebeziumDeserializationSchema`` into a ``KafkaSink``, whose records are Debezium's
change events (``r`` snapshot reads, ``c``, ``u`` with the old row, ``d``). Each topic,
replayed, is the table's final rows, each once."""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

import pytest

from millstream.common import WatermarkStrategy
from millstream.common.serialization import SimpleStringSchema
from millstream.datastream.connectors.kafka import (
    DeliveryGuarantee,
    KafkaRecordSerializationSchema,
    KafkaSink,
)
from millstream.datastream.connectors.postgres_cdc import JsonDebeziumDeserializationSchema, PostgreSQLSource
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.kafka_broker import KafkaBroker, read_partition
from millstream.testing.postgres_server import PostgresServer
from tests.conftest import make_env
from tests.integration.test_postgres_cdc import cdc_options, create_accounts, database_rows, new_slot, settled

pytestmark = pytest.mark.timeout(300)

CHANGES = (
    "UPDATE {t} SET balance = balance + 1 WHERE id <= 5",
    "DELETE FROM {t} WHERE id IN (6, 7)",
    "INSERT INTO {t} VALUES (50, 'new', 500)",
    "UPDATE {t} SET id = 51 WHERE id = 8",
)


def topic_messages(broker: KafkaBroker, topic: str) -> list[dict[str, Any]]:
    return [json.loads(m.value()) for m in read_partition(broker.bootstrap_servers, topic, 0, idle_s=0.5)]


def wait_for_replay(
    broker: KafkaBroker, topic: str, replay: Any, final: Counter[tuple[Any, ...]], client: Any
) -> Counter[tuple[Any, ...]]:
    deadline = time.monotonic() + 120
    while True:
        state = replay(topic_messages(broker, topic))
        if settled(state) == final:
            return state
        assert not client.get_job_status().is_globally_terminal_state(), "the job ended"
        assert time.monotonic() < deadline, f"the topic replays to {settled(state)}, not {final}"


def cancel(client: Any) -> None:
    """Cancel the unbounded job and wait until it ended (its cluster released)."""
    client.cancel()
    try:
        client.get_job_execution_result(60)
    except Exception as err:  # canceled: the result says so
        assert "cancel" in str(err).lower(), err


def replay_flink_debezium(messages: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
    state: Counter[tuple[Any, ...]] = Counter()
    for message in messages:
        row = message["after"] if message["op"] == "c" else message["before"]
        state[(row["id"], row["owner"], row["balance"])] += 1 if message["op"] == "c" else -1
    return state


def replay_debezium_events(messages: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
    state: Counter[tuple[Any, ...]] = Counter()
    for message in messages:
        before, after = message["before"], message["after"]
        if before is not None:
            state[(before["id"], before["owner"], before["balance"])] -= 1
        if after is not None:
            state[(after["id"], after["owner"], after["balance"])] += 1
    return state


def test_a_cdc_table_inserted_into_a_kafka_table_as_debezium_json(
    postgres: PostgresServer, broker: KafkaBroker
) -> None:
    create_accounts(postgres, "to_kafka", 20)
    broker.create_topic("accounts-cdc", 1)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE to_kafka (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ({cdc_options(postgres, 'to_kafka', new_slot('kafka'))})"
    )
    t_env.execute_sql(
        "CREATE TABLE accounts_topic (id INT, owner STRING, balance INT) WITH ('connector' = 'kafka', "
        f"'topic' = 'accounts-cdc', 'properties.bootstrap.servers' = '{broker.bootstrap_servers}', "
        "'format' = 'debezium-json')"
    )
    client = t_env.execute_sql("INSERT INTO accounts_topic SELECT * FROM to_kafka").get_job_client()
    try:
        wait_for_replay(
            broker, "accounts-cdc", replay_flink_debezium, database_rows(postgres, "to_kafka"), client
        )
        postgres.execute(*(c.format(t="to_kafka") for c in CHANGES))
        final = database_rows(postgres, "to_kafka")
        state = wait_for_replay(broker, "accounts-cdc", replay_flink_debezium, final, client)
    finally:
        cancel(client)
    assert all(n == 1 for n in settled(state).values())
    ops = Counter(m["op"] for m in topic_messages(broker, "accounts-cdc"))
    # 20 snapshot rows and an insert (c); 5 updates and a key change (d, c each); 2 deletes (d)
    assert ops == Counter({"c": 20 + 1 + 6, "d": 6 + 2})


def test_the_datastream_source_writes_debezium_change_events_to_kafka(
    postgres: PostgresServer, broker: KafkaBroker
) -> None:
    create_accounts(postgres, "events", 10)
    broker.create_topic("accounts-events", 1)
    source = (
        PostgreSQLSource.builder()
        .hostname(postgres.host)
        .port(postgres.port)
        .database(postgres.database)
        .schema_list("public")
        .table_list("public.events")
        .username(postgres.user)
        .password(postgres.password)
        .slot_name(new_slot("events"))
        .decoding_plugin_name("pgoutput")
        .deserializer(JsonDebeziumDeserializationSchema())
        .build()
    )
    sink = (
        KafkaSink.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic("accounts-events")
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .build()
    )
    env = make_env(1)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "PostgreSQL CDC").sink_to(sink)
    client = env.execute_async("postgres-cdc to kafka")
    try:
        wait_for_replay(
            broker, "accounts-events", replay_debezium_events, database_rows(postgres, "events"), client
        )
        postgres.execute(*(c.format(t="events") for c in CHANGES))
        final = database_rows(postgres, "events")
        state = wait_for_replay(broker, "accounts-events", replay_debezium_events, final, client)
    finally:
        cancel(client)
    assert all(n == 1 for n in settled(state).values())
    messages = topic_messages(broker, "accounts-events")
    # a primary key change is a delete of the old key and a create of the new one, as Debezium's
    assert Counter(m["op"] for m in messages) == Counter({"r": 10, "u": 5, "d": 2 + 1, "c": 1 + 1})
    first, (deleted, created) = messages[0], messages[-2:]
    assert first["source"]["snapshot"] == "true" and first["source"]["table"] == "events"
    assert (deleted["op"], deleted["before"]["id"], deleted["after"]) == ("d", 8, None)
    assert (created["op"], created["before"], created["after"]["id"]) == ("c", None, 51)
    assert created["source"]["lsn"] == deleted["source"]["lsn"] > 0
    assert created["source"]["txId"] > 0 and created["source"]["ts_ms"] > 0


def test_add_source_runs_the_source_as_flink_cdcs_source_function(postgres: PostgresServer) -> None:
    create_accounts(postgres, "legacy", 3)
    source = (
        PostgreSQLSource.builder()
        .hostname(postgres.host)
        .port(postgres.port)
        .database(postgres.database)
        .table_list("public.legacy")
        .username(postgres.user)
        .password(postgres.password)
        .slot_name(new_slot("legacy"))
        .deserializer(JsonDebeziumDeserializationSchema())
        .build()
    )
    env = make_env(2)  # a slot has one consumer: the second subtask reads nothing and ends
    with env.add_source(source).execute_and_collect() as events:
        read = [json.loads(next(events)) for _ in range(3)]
    assert sorted((e["op"], e["after"]["id"]) for e in read) == [("r", 1), ("r", 2), ("r", 3)]
