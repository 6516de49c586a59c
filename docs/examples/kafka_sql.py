"""Clicks per user from a Kafka topic into an upsert-kafka table, in SQL.

The broker's address comes from KAFKA_BOOTSTRAP_SERVERS (default 127.0.0.1:9092); start a
local broker with: .venv/bin/python -m millstream.testing.kafka_broker
"""

import json
import os

from confluent_kafka import Consumer, Producer

from millstream.table import EnvironmentSettings, TableEnvironment

servers = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")

# some input: JSON clicks
producer = Producer({"bootstrap.servers": servers})
for user, url in [("ann", "/a"), ("bob", "/b"), ("ann", "/c")]:
    producer.produce("clicks", json.dumps({"user": user, "url": url}).encode(), key=user.encode())
    producer.flush()  # one record per request: Tansu, the test broker, miscounts batches' end offsets

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.execute_sql(f"""
    CREATE TABLE clicks (
      `user` STRING, url STRING,
      ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',   -- Kafka's record timestamp
      `partition` INT METADATA VIRTUAL,                  -- read only
      WATERMARK FOR ts AS ts - INTERVAL '5' SECOND       -- generated per partition
    ) WITH ('connector' = 'kafka', 'topic' = 'clicks',
            'properties.bootstrap.servers' = '{servers}', 'properties.group.id' = 'reports',
            'scan.startup.mode' = 'earliest-offset',
            'scan.bounded.mode' = 'latest-offset',         -- stop at the end: a bounded job
            'format' = 'json')
""")
t_env.execute_sql(f"""
    CREATE TABLE counts (`user` STRING, n BIGINT, PRIMARY KEY (`user`) NOT ENFORCED)
    WITH ('connector' = 'upsert-kafka', 'topic' = 'counts',
          'properties.bootstrap.servers' = '{servers}',
          'key.format' = 'raw', 'value.format' = 'json')
""")
t_env.execute_sql("INSERT INTO counts SELECT `user`, COUNT(*) FROM clicks GROUP BY `user`").wait()

# what the upsert topic holds: one record per change of a user's count, keyed by user
consumer = Consumer({"bootstrap.servers": servers, "group.id": "readme", "auto.offset.reset": "earliest"})
consumer.subscribe(["counts"])
records = []
while len(records) < 3:
    message = consumer.poll(10)
    if message is not None and not message.error():
        records.append((message.key().decode(), message.offset(), message.value().decode()))
consumer.close()
for key, _, value in sorted(records):
    print(key, value)
