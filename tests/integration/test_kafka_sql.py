"""``kafka`` and ``upsert-kafka`` tables against a real Kafka-protocol broker (Tansu).

Expected values follow Flink's semantics: a tumbling window counts the rows whose event time
falls in it; an upsert-kafka sink writes each key's latest value and a tombstone for a delete,
and reading it back yields the normalized changelog (+I, then -U/+U per change of a key);
debezium-json writes -U/-D as ``"op":"d"`` records and +I/+U as ``"op":"c"`` (Flink's
``DebeziumJsonSerializationSchema``), so reading the topic back replays the same changelog.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.testing.kafka_broker import KafkaBroker, produce_records, read_partition

pytestmark = pytest.mark.timeout(300)


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    return t_env


def _changes(t_env: TableEnvironment, query: str, count: int) -> list[tuple[str, tuple[Any, ...]]]:
    """The first ``count`` changes of an unbounded query (its job is cancelled after them)."""
    changes = []
    with t_env.execute_sql(query).collect() as rows:
        for row in rows:
            changes.append((str(row.get_row_kind()), tuple(row)))
            if len(changes) == count:
                break
    return changes


def _bounded(servers: str, topic: str) -> str:
    return (
        f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"
    )


def test_kafka_to_kafka_window_aggregate_with_a_watermark_in_the_ddl(broker: KafkaBroker):
    servers = broker.bootstrap_servers
    broker.create_topic("clicks", 2)
    broker.create_topic("click_counts", 1)
    clicks = [("alice", 1_000), ("bob", 2_500), ("alice", 3_000), ("alice", 4_999), ("bob", 5_000),
              ("carol", 9_000), ("bob", 12_000)]  # fmt: skip
    produce_records(
        servers,
        "clicks",
        [(i % 2, None, json.dumps({"user": u, "ts": ms}).encode(), ms) for i, (u, ms) in enumerate(clicks)],
    )
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE clicks (`user` STRING, ts BIGINT, rt AS TO_TIMESTAMP_LTZ(ts, 3), "
        "WATERMARK FOR rt AS rt - INTERVAL '1' SECOND) "
        f"WITH ({_bounded(servers, 'clicks')}, 'format' = 'json')"
    )
    t_env.execute_sql(
        "CREATE TABLE click_counts (window_start TIMESTAMP(3), `user` STRING, n BIGINT) WITH ("
        f"'connector' = 'kafka', 'topic' = 'click_counts', 'properties.bootstrap.servers' = '{servers}', "
        "'format' = 'json')"
    )
    t_env.execute_sql(
        "INSERT INTO click_counts SELECT window_start, `user`, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, "
        "DESCRIPTOR(rt), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, `user`"
    ).wait()
    written = [json.loads(m.value()) for m in read_partition(servers, "click_counts", 0)]
    assert sorted((r["window_start"], r["user"], r["n"]) for r in written) == [
        ("1970-01-01 00:00:00", "alice", 3),
        ("1970-01-01 00:00:00", "bob", 1),
        ("1970-01-01 00:00:05", "bob", 1),
        ("1970-01-01 00:00:05", "carol", 1),
        ("1970-01-01 00:00:10", "bob", 1),
    ]


def test_an_upsert_kafka_sink_reads_back_as_a_changelog(broker: KafkaBroker):
    servers = broker.bootstrap_servers
    broker.create_topic("words", 1)
    broker.create_topic("word_counts", 1)
    produce_records(servers, "words", [(0, None, w.encode(), None) for w in ["a", "b", "a", "c", "b", "a"]])
    t_env = _t_env()
    t_env.execute_sql(
        f"CREATE TABLE words (word STRING) WITH ({_bounded(servers, 'words')}, 'format' = 'raw')"
    )
    upsert = (
        "(word STRING, n BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', "
        f"'topic' = 'word_counts', 'properties.bootstrap.servers' = '{servers}', 'key.format' = 'raw', "
        "'value.format' = 'json')"
    )
    t_env.execute_sql(f"CREATE TABLE word_counts {upsert}")
    t_env.execute_sql("INSERT INTO word_counts SELECT word, COUNT(*) FROM words GROUP BY word").wait()
    # each key's value after each change: the -U of an update is not written (the +U replaces it)
    assert [(m.key(), json.loads(m.value())) for m in read_partition(servers, "word_counts", 0)] == [
        (b"a", {"word": "a", "n": 1}),
        (b"b", {"word": "b", "n": 1}),
        (b"a", {"word": "a", "n": 2}),
        (b"c", {"word": "c", "n": 1}),
        (b"b", {"word": "b", "n": 2}),
        (b"a", {"word": "a", "n": 3}),
    ]
    produce_records(servers, "word_counts", [(0, b"c", None, None), (0, b"b", b'{"word":"b","n":2}', None)])
    t_env.execute_sql(f"CREATE TABLE counts_back {upsert}")
    assert _changes(t_env, "SELECT * FROM counts_back", 9) == [
        ("+I", ("a", 1)),
        ("+I", ("b", 1)),
        ("-U", ("a", 1)),
        ("+U", ("a", 2)),
        ("+I", ("c", 1)),
        ("-U", ("b", 1)),
        ("+U", ("b", 2)),
        ("-U", ("a", 2)),
        ("+U", ("a", 3)),
    ]
    # the tombstone deletes c; b's repeated value changes nothing (ChangelogNormalize)
    assert _changes(t_env, "SELECT word, n FROM counts_back WHERE word <> 'a'", 5)[-1] == ("-D", ("c", 1))


@pytest.mark.parametrize("fmt", ["debezium-json", "canal-json"])
def test_changelog_formats_round_trip_through_a_topic(broker: KafkaBroker, fmt: str):
    servers = broker.bootstrap_servers
    topic = f"cdc-{fmt}"
    broker.create_topic(f"src-{fmt}", 1)
    broker.create_topic(topic, 1)
    produce_records(servers, f"src-{fmt}", [(0, None, w.encode(), None) for w in ["x", "y", "x"]])
    t_env = _t_env()
    t_env.execute_sql(
        f"CREATE TABLE src (w STRING) WITH ({_bounded(servers, f'src-{fmt}')}, 'format' = 'raw')"
    )
    t_env.execute_sql(
        f"CREATE TABLE cdc (w STRING, n BIGINT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
        f"'properties.bootstrap.servers' = '{servers}', 'format' = '{fmt}', "
        "'scan.startup.mode' = 'earliest-offset')"
    )
    t_env.execute_sql("INSERT INTO cdc SELECT w, COUNT(*) FROM src GROUP BY w").wait()
    values = [json.loads(m.value()) for m in read_partition(servers, topic, 0)]
    if fmt == "debezium-json":
        assert values[2] == {"before": {"w": "x", "n": 1}, "after": None, "op": "d"}
        assert values[3] == {"before": None, "after": {"w": "x", "n": 2}, "op": "c"}
    else:
        assert values[2] == {"data": [{"w": "x", "n": 1}], "type": "DELETE"}
        assert values[3] == {"data": [{"w": "x", "n": 2}], "type": "INSERT"}
    # read back: a -U is written as a delete, so it reads back as -D (Flink's formats do the same)
    assert _changes(t_env, "SELECT * FROM cdc", 4) == [
        ("+I", ("x", 1)),
        ("+I", ("y", 1)),
        ("-D", ("x", 1)),
        ("+I", ("x", 2)),
    ]


def test_metadata_columns_are_read_and_written(broker: KafkaBroker):
    servers = broker.bootstrap_servers
    broker.create_topic("meta", 2)
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE meta (id INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
        "hs MAP<STRING, BYTES> METADATA FROM 'headers', "
        "`partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL, topic STRING METADATA VIRTUAL) "
        f"WITH ('connector' = 'kafka', 'topic' = 'meta', 'properties.bootstrap.servers' = '{servers}', "
        "'scan.startup.mode' = 'earliest-offset', 'format' = 'json', 'sink.partitioner' = 'fixed')"
    )
    row_type = DataTypes.ROW(
        [
            DataTypes.FIELD("id", DataTypes.INT()),
            DataTypes.FIELD("hs", DataTypes.MAP(DataTypes.STRING(), DataTypes.BYTES())),
        ]
    )
    t_env.create_temporary_view("ids", t_env.from_elements([(1, {"k": b"v"}), (2, {"k": b"v"})], row_type))
    t_env.execute_sql("INSERT INTO meta SELECT id, TO_TIMESTAMP_LTZ(id * 1000, 3), hs FROM ids").wait()
    written = read_partition(servers, "meta", 0)  # 'fixed': subtask 0 writes partition 0
    assert [(m.timestamp()[1], m.headers(), json.loads(m.value())) for m in written] == [
        (1000, [("k", b"v")], {"id": 1}),
        (2000, [("k", b"v")], {"id": 2}),
    ]
    produce_records(servers, "meta", [(1, None, b'{"id": 3}', 3000)])
    rows = _changes(t_env, "SELECT id, ts, hs, `partition`, `offset`, topic FROM meta", 3)
    assert sorted((r[0], r[3], r[4], r[5], r[2] or {}) for _, r in rows) == [
        (1, 0, 0, "meta", {"k": b"v"}),
        (2, 0, 1, "meta", {"k": b"v"}),
        (3, 1, 0, "meta", {}),
    ]
    assert sorted(int(r[1].timestamp() * 1000) for _, r in rows) == [1000, 2000, 3000]


def test_a_malformed_record_names_the_table_topic_partition_and_offset(broker: KafkaBroker):
    servers = broker.bootstrap_servers
    broker.create_topic("bad", 1)
    produce_records(servers, "bad", [(0, None, b'{"id": 1}', None), (0, None, b"{not json", None),
                                     (0, None, b'{"id": 3}', None)])  # fmt: skip
    t_env = _t_env()
    t_env.execute_sql(f"CREATE TABLE bad (id INT) WITH ({_bounded(servers, 'bad')}, 'format' = 'json')")
    with pytest.raises(
        Exception, match=r"offset 1 of partition bad-0.*Failed to deserialize JSON '\{not json'"
    ):
        t_env.execute_sql("SELECT * FROM bad").wait()
    t_env.execute_sql(
        "CREATE TABLE lenient (id INT) WITH ("
        f"{_bounded(servers, 'bad')}, 'format' = 'json', 'json.ignore-parse-errors' = 'true')"
    )
    assert [tuple(r) for r in t_env.execute_sql("SELECT * FROM lenient").collect()] == [(1,), (3,)]


def test_table_options_are_checked_when_the_table_is_created(broker: KafkaBroker):
    t_env = _t_env()
    servers = broker.bootstrap_servers
    with pytest.raises(
        ValueError, match=r"Unsupported options found for 'kafka' in table 't': scan\.startup\.mod\b"
    ):
        t_env.execute_sql(
            f"CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 'x', "
            f"'properties.bootstrap.servers' = '{servers}', 'format' = 'json', 'scan.startup.mod' = 'x')"
        )
    with pytest.raises(ValueError, match=r"missing the required option.*properties.bootstrap.servers"):
        t_env.execute_sql(
            "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'format' = 'json')"
        )
    with pytest.raises(ValueError, match="'upsert-kafka' tables require to define a PRIMARY KEY"):
        t_env.execute_sql(
            f"CREATE TABLE t (a INT) WITH ('connector' = 'upsert-kafka', 'topic' = 'x', "
            f"'properties.bootstrap.servers' = '{servers}', 'key.format' = 'json', 'value.format' = 'json')"
        )
    with pytest.raises(ValueError, match="Invalid metadata key 'ts' in column 'ts'"):
        t_env.execute_sql(
            "CREATE TABLE t (a INT, ts TIMESTAMP_LTZ(3) METADATA) WITH ('connector' = 'kafka', "
            f"'topic' = 'x', 'properties.bootstrap.servers' = '{servers}', 'format' = 'json')"
        )
    with pytest.raises(ValueError, match="factory for identifier 'jsn' that implements Format"):
        t_env.execute_sql(
            f"CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 'x', "
            f"'properties.bootstrap.servers' = '{servers}', 'format' = 'jsn')"
        )
