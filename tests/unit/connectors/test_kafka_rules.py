"""The Kafka connector's rules that need no broker: Flink's partition owner, builder checks,
reader states dealt on rescale."""

from __future__ import annotations

import pytest

from millstream.common.serialization import SimpleStringSchema
from millstream.connectors.kafka.client import java_string_hash, split_owner
from millstream.datastream.connectors.kafka import (
    DeliveryGuarantee,
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
)


def test_java_string_hash_matches_java():
    # String.hashCode() as Java 17 printed it (javac/java on this machine, 2026-11-26)
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("orders") == -1008770331
    assert java_string_hash("topic-with-a-longer-name") == -1745805606
    assert java_string_hash("h\u00e9llo-\u2713") == 289802964


def test_partitions_of_a_topic_go_round_robin_from_the_topics_start_reader():
    """Flink's KafkaSourceEnumerator.getSplitOwner: start = ((hash * 31) & 0x7FFFFFFF) % n."""
    start = ((java_string_hash("orders") * 31) & 0x7FFFFFFF) % 3
    assert [split_owner("orders", p, 3) for p in range(6)] == [(start + p) % 3 for p in range(6)]


def _source() -> KafkaSource:
    return (
        KafkaSource.builder()
        .set_bootstrap_servers("127.0.0.1:9092")
        .set_topics("a", "b")
        .set_bounded(KafkaOffsetsInitializer.latest())
        .set_value_only_deserializer(SimpleStringSchema())
        .build()
    )


def test_rescaling_deals_every_partition_to_its_new_owner_once():
    old = [
        {"version": 1, "splits": [("a", 0, 10, 20), ("b", 1, 5, 9)]},
        {"version": 1, "splits": [("a", 1, 3, 8), ("b", 0, 0, 4)]},
    ]
    new = _source().rescale_reader_states(old, 3)
    dealt = [tuple(entry) for state in new for entry in state["splits"]]
    assert sorted(dealt) == sorted(tuple(e) for s in old for e in s["splits"])
    for index, state in enumerate(new):
        assert all(split_owner(t, p, 3) == index for t, p, *_ in state["splits"])


def test_builders_refuse_what_flinks_refuse():
    with pytest.raises(ValueError, match=r"bootstrap\.servers"):
        KafkaSource.builder().set_topics("t").set_value_only_deserializer(SimpleStringSchema()).build()
    with pytest.raises(ValueError, match="topics"):
        KafkaSource.builder().set_bootstrap_servers("x:1").set_value_only_deserializer(
            SimpleStringSchema()
        ).build()
    with pytest.raises(ValueError, match="only once"):
        KafkaSource.builder().set_topics("t").set_topic_pattern("t.*")
    with pytest.raises(ValueError, match="group id"):
        (
            KafkaSource.builder()
            .set_bootstrap_servers("x:1")
            .set_topics("t")
            .set_starting_offsets(KafkaOffsetsInitializer.committed_offsets())
            .set_value_only_deserializer(SimpleStringSchema())
            .build()
        )
    serializer = (
        KafkaRecordSerializationSchema.builder()
        .set_topic("t")
        .set_value_serialization_schema(SimpleStringSchema())
        .build()
    )
    with pytest.raises(ValueError, match="transactional id prefix"):
        (
            KafkaSink.builder()
            .set_bootstrap_servers("x:1")
            .set_record_serializer(serializer)
            .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE)
            .build()
        )


def test_consumers_fetch_again_soon_after_their_queue_drains():
    """librdkafka backs a partition's fetch off for fetch.queue.backoff.ms (1000 ms by default)
    once queued.min.messages are queued; a reader empties that queue in a fraction of a second
    and then waited out the rest (seen on the test broker: one 1 s stall per 300k records,
    three quarters of the read). The Java client fetches again as soon as its buffer is read."""
    config = _source().consumer_config(0)
    assert config["fetch.queue.backoff.ms"] <= 50
    assert config["isolation.level"] == "read_uncommitted"
    tuned = (
        KafkaSource.builder()
        .set_bootstrap_servers("127.0.0.1:9092")
        .set_topics("a")
        .set_value_only_deserializer(SimpleStringSchema())
        .set_property("fetch.queue.backoff.ms", "200")
        .build()
    )
    assert tuned.consumer_config(0)["fetch.queue.backoff.ms"] == "200"  # the user's setting wins
