"""PostgresSource: PostgreSQL's changes as a FLIP-27 source (Flink CDC's ``PostgreSQLSource``
and ``PostgresSourceBuilder.PostgresIncrementalSource``, with snake_case builders).

    source = (
        PostgreSQLSource.builder()
        .hostname("localhost").port(5432).database("shop")
        .schema_list("public").table_list("public.orders")
        .username("flink").password("secret")
        .slot_name("orders_slot").decoding_plugin_name("pgoutput")
        .deserializer(JsonDebeziumDeserializationSchema())
        .build()
    )
    env.from_source(source, WatermarkStrategy.no_watermarks(), "orders")  # or env.add_source(source)

The source is unbounded. A replication slot has one consumer, so one reader (subtask 0)
reads it and any other subtask ends at once; its splits are assigned statically (no
enumerator). A restore at another parallelism hands the reader's state to subtask 0.
"""

from __future__ import annotations

from typing import Any

from millstream.common.watermark_strategy import WatermarkStrategy
from millstream.connectors.postgres_cdc.config import PostgresSourceConfig, StartupOptions
from millstream.connectors.postgres_cdc.debezium import JsonDebeziumDeserializationSchema
from millstream.connectors.postgres_cdc.reader import PostgresSourceReader

__all__ = ["PostgreSQLSource", "PostgresIncrementalSource", "PostgresSource", "PostgresSourceBuilder"]


class PostgresSource:
    """Reads a PostgreSQL database's captured tables: a snapshot, then their changes."""

    # the Spark runner refuses the source with this reason (``spark.support``)
    spark_refusal = (
        "the postgres-cdc connector is not supported on Spark: its replication slot has one "
        "consumer that keeps its position in millstream's checkpoints, which Spark's micro-batches "
        "cannot hold; run the job on the embedded runtime or a millstream cluster"
    )

    def __init__(self, config: PostgresSourceConfig, deserializer: Any) -> None:
        self.config = config
        self.deserializer = deserializer

    def is_bounded(self) -> bool:
        """The change stream never ends."""
        return False

    def get_produced_type(self) -> Any:
        """The deserializer's type (JsonDebeziumDeserializationSchema: STRING)."""
        produced = getattr(self.deserializer, "get_produced_type", None)
        return produced() if produced is not None else None

    def create_reader(self, context: Any) -> PostgresSourceReader:
        """The reader of one subtask (only subtask 0 reads the slot)."""
        return PostgresSourceReader(self, context)

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The slot's state goes to subtask 0, the others start empty."""
        splits = [s.get("split") for s in states if isinstance(s, dict) and s.get("split") is not None]
        if len(splits) > 1:
            raise ValueError("PostgresSource: more than one subtask held the slot's state")
        out: list[Any] = [{"version": 1, "split": None} for _ in range(parallelism)]
        if splits:
            out[0] = {"version": 1, "split": splits[0]}
        return out

    # ``env.add_source(source)``, as Flink CDC's PostgreSQLSource is a SourceFunction
    def as_source(self) -> PostgresSource:
        """This source (``add_source`` runs it as its FLIP-27 form)."""
        return self

    def watermark_strategy(self) -> WatermarkStrategy:
        """No watermarks (``add_source``)."""
        return WatermarkStrategy.no_watermarks()


class PostgresIncrementalSource:
    """Flink CDC's ``PostgresSourceBuilder.PostgresIncrementalSource``: the same source (its
    snapshot is checkpointed as it goes, in one reader)."""

    @staticmethod
    def builder() -> PostgresSourceBuilder:
        """A builder."""
        return PostgresSourceBuilder()


class PostgresSourceBuilder:
    """Builds a ``PostgresSource`` (Flink CDC's ``PostgreSQLSource.Builder`` /
    ``PostgresSourceBuilder``): ``hostname``, ``database``, ``username``, ``password`` and a
    ``deserializer`` are required; ``port`` 5432, ``slot_name`` ``flink`` and
    ``decoding_plugin_name`` ``pgoutput`` (the only plugin decoded here) by default."""

    PostgresIncrementalSource = PostgresIncrementalSource  # Flink CDC's nested class name

    def __init__(self) -> None:
        self._settings: dict[str, Any] = {
            "port": 5432,
            "slot_name": "flink",
            "plugin": "pgoutput",
            "schema_list": (),
            "table_list": (),
            "startup": StartupOptions.initial(),
            "debezium": {},
        }
        self._deserializer: Any = None

    def _set(self, key: str, value: Any) -> PostgresSourceBuilder:
        self._settings[key] = value
        return self

    def hostname(self, hostname: str) -> PostgresSourceBuilder:
        """The server's host."""
        return self._set("hostname", hostname)

    def port(self, port: int) -> PostgresSourceBuilder:
        """The server's port (5432)."""
        return self._set("port", int(port))

    def database(self, database: str) -> PostgresSourceBuilder:
        """The database whose tables are read."""
        return self._set("database", database)

    def schema_list(self, *schema_list: str) -> PostgresSourceBuilder:
        """Regular expressions of the schemas read (default: every one)."""
        return self._set("schema_list", tuple(schema_list))

    def table_list(self, *table_list: str) -> PostgresSourceBuilder:
        """Regular expressions of the ``schema.table`` names read (default: every table)."""
        return self._set("table_list", tuple(table_list))

    def username(self, username: str) -> PostgresSourceBuilder:
        """The user (with the REPLICATION attribute, or a superuser)."""
        return self._set("username", username)

    def password(self, password: str) -> PostgresSourceBuilder:
        """The user's password."""
        return self._set("password", password)

    def slot_name(self, slot_name: str) -> PostgresSourceBuilder:
        """The replication slot (created when missing; one consumer at a time)."""
        return self._set("slot_name", slot_name)

    def decoding_plugin_name(self, name: str) -> PostgresSourceBuilder:
        """The logical decoding plug-in: ``pgoutput``."""
        return self._set("plugin", name)

    def startup_options(self, startup_options: StartupOptions) -> PostgresSourceBuilder:
        """``StartupOptions.initial()`` (a snapshot, then the changes) or ``latest()``."""
        return self._set("startup", startup_options)

    def debezium_properties(self, properties: dict[str, str]) -> PostgresSourceBuilder:
        """Debezium properties (``publication.name``, ``publication.autocreate.mode`` ...)."""
        return self._set("debezium", {str(k): str(v) for k, v in dict(properties).items()})

    def deserializer(self, deserializer: Any) -> PostgresSourceBuilder:
        """Turns each change event into records (``JsonDebeziumDeserializationSchema()``)."""
        self._deserializer = deserializer
        return self

    def build(self) -> PostgresSource:
        """The source; fails on a missing or unsupported setting."""
        settings = self._settings
        missing = [k for k in ("hostname", "database", "username", "password") if k not in settings]
        if missing:
            raise ValueError(f"PostgreSQLSource: {', '.join(missing)} must be set")
        if self._deserializer is None:
            raise ValueError("PostgreSQLSource: a deserializer is required (deserializer(...))")
        check_plugin(settings["plugin"])
        config = PostgresSourceConfig(
            settings["hostname"],
            settings["port"],
            settings["database"],
            settings["username"],
            settings["password"],
            settings["schema_list"],
            settings["table_list"],
            settings["slot_name"],
            settings["startup"],
            settings["debezium"],
        )
        deserializer = self._deserializer
        if isinstance(deserializer, JsonDebeziumDeserializationSchema):
            deserializer = deserializer.for_source(config.decimal_handling)
        return PostgresSource(config, deserializer)


def check_plugin(name: str) -> None:
    """Only pgoutput (PostgreSQL's own plug-in) is decoded."""
    if name != "pgoutput":
        raise ValueError(
            f"'decoding.plugin.name' {name!r} is not supported: millstream decodes 'pgoutput', the "
            "plug-in PostgreSQL ships (decoderbufs and wal2json need server extensions)"
        )


class PostgreSQLSource:
    """Flink CDC's ``PostgreSQLSource``: ``PostgreSQLSource.builder()``."""

    @staticmethod
    def builder() -> PostgresSourceBuilder:
        """A builder."""
        return PostgresSourceBuilder()
