"""The Kafka connector: ``KafkaSource`` (FLIP-27, partitions assigned by an enumerator on the
JobMaster) and ``KafkaSink`` (NONE, AT_LEAST_ONCE, EXACTLY_ONCE through transactions), on
confluent-kafka (librdkafka). The PyFlink names are in ``millstream.datastream.connectors.kafka``."""

__all__: list[str] = []
