# ruff: noqa: E501 - PyFlink's printed schemas are pasted as they are
"""Schemas as PyFlink 2.3.0 declares and prints them: types given as text (parsed by the DDL's
type parser), ``str(Schema)`` (unresolved), ``print_schema()`` / ``get_resolved_schema()``
(resolved: computed columns ``AS``, metadata columns, the WATERMARK line, NOT NULL, the
primary key, ``*ROWTIME*`` / ``*PROCTIME*``), the legacy ``get_schema()`` tree, and
``TableDescriptor``'s ``str``.

Every expected text is what the same program printed on PyFlink 2.3.0 (``pyflink`` in the
imports), pasted unchanged. Nothing here runs a job.
"""

from __future__ import annotations

import pytest

from millstream.common import Types
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment, TableEnvironment
from millstream.table.expressions import col
from millstream.table.sql.expressions import parse_data_type
from millstream.table.table_descriptor import FormatDescriptor, TableDescriptor

ORDERS_DDL = """CREATE TABLE orders (
  id BIGINT NOT NULL,
  user_name STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  total AS amount * 2,
  pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'datagen')"""

# PyFlink 2.3.0: t_env.from_path("orders").print_schema() (and print(t.get_resolved_schema()))
ORDERS_RESOLVED = """(
  `id` BIGINT NOT NULL,
  `user_name` STRING,
  `amount` DECIMAL(10, 2),
  `ts` TIMESTAMP(3) *ROWTIME*,
  `total` DECIMAL(21, 2) AS `amount` * 2,
  `pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME(),
  WATERMARK FOR `ts`: TIMESTAMP(3) AS `ts` - INTERVAL '5' SECOND,
  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED
)"""

# PyFlink 2.3.0: print(t_env.from_path("orders").get_schema())
ORDERS_LEGACY = """root
 |-- id: BIGINT NOT NULL
 |-- user_name: STRING
 |-- amount: DECIMAL(10, 2)
 |-- ts: TIMESTAMP(3) *ROWTIME*
 |-- total: DECIMAL(21, 2) AS `amount` * 2
 |-- pt: TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME()
 |-- WATERMARK FOR ts: TIMESTAMP(3) AS `ts` - INTERVAL '5' SECOND
 |-- CONSTRAINT PK_id PRIMARY KEY (id)
"""


def _stream_t_env() -> tuple[StreamExecutionEnvironment, StreamTableEnvironment]:
    env = StreamExecutionEnvironment.get_execution_environment()
    return env, StreamTableEnvironment.create(env)


def test_a_ddl_table_prints_its_resolved_schema_as_pyflink_does(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(ORDERS_DDL)
    table = t_env.from_path("orders")
    table.print_schema()
    assert capsys.readouterr().out == ORDERS_RESOLVED + "\n"
    assert str(table.get_resolved_schema()) == ORDERS_RESOLVED
    assert str(table.get_schema()) == ORDERS_LEGACY
    # PyFlink 2.3.0: t.select(col('id'), col('ts'), col('total'), col('pt')).print_schema()
    table.select(col("id"), col("ts"), col("total"), col("pt")).print_schema()
    assert capsys.readouterr().out == (
        "(\n  `id` BIGINT NOT NULL,\n  `ts` TIMESTAMP(3) *ROWTIME*,\n  `total` DECIMAL(21, 2),\n"
        "  `pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*\n)\n"
    )


def test_a_ddl_primary_key_is_not_null_and_keeps_its_constraint_name() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE k (id BIGINT, name STRING NOT NULL, tags ARRAY<INT NOT NULL>, "
        "CONSTRAINT my_pk PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='datagen')"
    )
    table = t_env.from_path("k")
    # PyFlink 2.3.0: from_path("k").select(col('id'), col('tags')).print_schema()
    assert str(table.select(col("id"), col("tags")).get_resolved_schema()) == (
        "(\n  `id` BIGINT NOT NULL,\n  `tags` ARRAY<INT NOT NULL>\n)"
    )
    # PyFlink 2.3.0: from_path("k").print_schema() / print(from_path("k").get_schema())
    assert str(table.get_resolved_schema()) == (
        "(\n  `id` BIGINT NOT NULL,\n  `name` STRING NOT NULL,\n  `tags` ARRAY<INT NOT NULL>,\n"
        "  CONSTRAINT `my_pk` PRIMARY KEY (`id`) NOT ENFORCED\n)"
    )
    assert str(table.get_schema()) == (
        "root\n |-- id: BIGINT NOT NULL\n |-- name: STRING NOT NULL\n |-- tags: ARRAY<INT NOT NULL>\n"
        " |-- CONSTRAINT my_pk PRIMARY KEY (id)\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TIMESTAMP_LTZ(3)", DataTypes.TIMESTAMP_LTZ(3)),
        ("STRING NOT NULL", DataTypes.STRING().not_null()),
        ("int", DataTypes.INT()),
        ("DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2)),
        ("TIMESTAMP(3) WITH LOCAL TIME ZONE", DataTypes.TIMESTAMP_LTZ(3)),
        ("ARRAY<INT NOT NULL>", DataTypes.ARRAY(DataTypes.INT().not_null())),
        ("MAP<STRING, BIGINT>", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT())),
        (
            "ROW<x INT NOT NULL, y STRING>",
            DataTypes.ROW(
                [DataTypes.FIELD("x", DataTypes.INT().not_null()), DataTypes.FIELD("y", DataTypes.STRING())]
            ),
        ),
    ],
)
def test_a_type_string_is_parsed_as_ddl_parses_it(text: str, expected: object) -> None:
    assert parse_data_type(text) == expected


def test_a_type_string_that_is_no_type_fails_in_one_line_naming_it() -> None:
    with pytest.raises(ValueError, match=r"^column 'a': Could not parse type 'FOO': not a data type") as err:
        Schema.new_builder().column("a", "FOO")
    assert "\n" not in str(err.value)


def test_an_unresolved_schema_prints_as_pyflink_does() -> None:
    schema = (
        Schema.new_builder()
        .column("id", "INT")
        .column("name", DataTypes.STRING())
        .column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")
        .column_by_expression("id2", "id * 2")
        .watermark("rowtime", "SOURCE_WATERMARK()")
        .build()
    )
    # PyFlink 2.3.0: print(schema)
    assert str(schema) == (
        "(\n  `id` [INT],\n  `name` STRING,\n  `rowtime` [TIMESTAMP_LTZ(3)] METADATA,\n  `id2` AS [id * 2],\n"
        "  WATERMARK FOR `rowtime` AS [SOURCE_WATERMARK()]\n)"
    )
    keyed = (
        Schema.new_builder()
        .column("a", "INT")
        .column_by_metadata("k", "BYTES", "key")
        .column_by_metadata("o", DataTypes.BIGINT(), "offset", True)
        .primary_key_named("my_pk", "a")
        .build()
    )
    # PyFlink 2.3.0: print(keyed); print(Schema.new_builder().from_schema(keyed).column("z", "DOUBLE").build())
    assert str(keyed) == (
        "(\n  `a` [INT],\n  `k` [BYTES] METADATA FROM 'key',\n  `o` BIGINT METADATA FROM 'offset' VIRTUAL,\n"
        "  CONSTRAINT `my_pk` PRIMARY KEY (`a`) NOT ENFORCED\n)"
    )
    assert str(Schema.new_builder().from_schema(keyed).column("z", "DOUBLE").build()) == (
        "(\n  `a` [INT],\n  `k` [BYTES] METADATA FROM 'key',\n  `o` BIGINT METADATA FROM 'offset' VIRTUAL,\n"
        "  `z` [DOUBLE],\n  CONSTRAINT `my_pk` PRIMARY KEY (`a`) NOT ENFORCED\n)"
    )
    # PyFlink 2.3.0: print(Schema.new_builder().build()); types kept as written
    assert str(Schema.new_builder().build()) == "(\n\n)"
    written = Schema.new_builder().column("a", "int").column("b", " varchar(3) not null ").build()
    assert str(written) == "(\n  `a` [int],\n  `b` [ varchar(3) not null ]\n)"


def test_from_data_stream_with_a_schema_prints_as_pyflink_does() -> None:
    env, t_env = _stream_t_env()
    ds = env.from_collection(
        [(1, "a")], type_info=Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
    )
    schema = (
        Schema.new_builder()
        .column("id", "INT")
        .column("name", DataTypes.STRING())
        .column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")
        .column_by_expression("id2", "id * 2")
        .watermark("rowtime", "SOURCE_WATERMARK()")
        .build()
    )
    table = t_env.from_data_stream(ds, schema)
    # PyFlink 2.3.0: t_env.from_data_stream(ds, schema).print_schema()
    assert str(table.get_resolved_schema()) == (
        "(\n  `id` INT,\n  `name` STRING,\n  `rowtime` TIMESTAMP_LTZ(3) *ROWTIME* METADATA,\n  `id2` INT AS id * 2,\n"
        "  WATERMARK FOR `rowtime`: TIMESTAMP_LTZ(3) AS SOURCE_WATERMARK()\n)"
    )
    # PyFlink 2.3.0: print(t_env.from_data_stream(ds, schema).get_schema())
    assert str(table.get_schema()) == (
        "root\n |-- id: INT\n |-- name: STRING\n |-- rowtime: TIMESTAMP_LTZ(3) *ROWTIME* METADATA\n"
        " |-- id2: INT AS `id` * 2\n |-- WATERMARK FOR rowtime: TIMESTAMP_LTZ(3) AS `SOURCE_WATERMARK`()\n"
    )
    # PyFlink 2.3.0: only the metadata column declared: the stream's columns first
    only_rowtime = Schema.new_builder().column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)").build()
    assert str(t_env.from_data_stream(ds, only_rowtime).get_resolved_schema()) == (
        "(\n  `id` INT,\n  `name` STRING,\n  `rowtime` TIMESTAMP_LTZ(3) METADATA\n)"
    )
    proctime = Schema.new_builder().column_by_expression("pt", "PROCTIME()").build()
    assert str(t_env.from_data_stream(ds, proctime).get_resolved_schema()) == (
        "(\n  `id` INT,\n  `name` STRING,\n  `pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME()\n)"
    )


def test_from_data_stream_takes_the_declared_types_and_checks_the_primary_key() -> None:
    env, t_env = _stream_t_env()
    ds = env.from_collection(
        [(1, "a")], type_info=Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
    )
    key_only = Schema.new_builder().primary_key("id").build()
    # PyFlink 2.3.0: from_data_stream(ds, Schema.new_builder().primary_key("id").build()).print_schema()
    assert str(t_env.from_data_stream(ds, key_only).get_resolved_schema()) == (
        "(\n  `id` INT NOT NULL,\n  `name` STRING,\n  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED\n)"
    )
    nullable_key = Schema.new_builder().column("id", "INT").column("name", "STRING").primary_key("id").build()
    # PyFlink 2.3.0: ValidationException: Invalid primary key 'PK_id'. Column 'id' is nullable.
    with pytest.raises(ValueError, match=r"^Invalid primary key 'PK_id'\. Column 'id' is nullable\.$"):
        t_env.from_data_stream(ds, nullable_key)


def test_an_instant_column_is_timestamp_ltz_9_and_a_declared_type_wins() -> None:
    env, t_env = _stream_t_env()
    ds = env.from_collection(
        [], type_info=Types.ROW_NAMED(["ts", "name", "n"], [Types.INSTANT(), Types.STRING(), Types.INT()])
    )
    # PyFlink 2.3.0: t_env.from_data_stream(ds).print_schema()
    assert str(t_env.from_data_stream(ds).get_resolved_schema()) == (
        "(\n  `ts` TIMESTAMP_LTZ(9),\n  `name` STRING,\n  `n` INT\n)"
    )
    schema = (
        Schema.new_builder()
        .column("ts", DataTypes.TIMESTAMP_LTZ(3))
        .column("name", "STRING NOT NULL")
        .column("n", "INT")
        .watermark("ts", "ts - INTERVAL '1' SECOND")
        .build()
    )
    # PyFlink 2.3.0: t_env.from_data_stream(ds, schema).print_schema()
    assert str(t_env.from_data_stream(ds, schema).get_resolved_schema()) == (
        "(\n  `ts` TIMESTAMP_LTZ(3) *ROWTIME*,\n  `name` STRING NOT NULL,\n  `n` INT,\n"
        "  WATERMARK FOR `ts`: TIMESTAMP_LTZ(3) AS ts - INTERVAL '1' SECOND\n)"
    )


def test_a_data_stream_table_accepts_no_other_metadata_key() -> None:
    env, t_env = _stream_t_env()
    ds = env.from_collection(
        [(1, "a")], type_info=Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
    )
    schema = Schema.new_builder().column_by_metadata("off", "BIGINT", "offset").build()
    with pytest.raises(ValueError, match="supports only the metadata key 'rowtime'"):
        t_env.from_data_stream(ds, schema)


def test_source_watermark_needs_a_data_stream_table() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK()) WITH ('connector'='datagen')"
    )
    with pytest.raises(ValueError, match=r"^SOURCE_WATERMARK\(\) on column 'ts': only a DataStream table"):
        t_env.from_path("s")


def test_table_and_format_descriptors_print_as_pyflink_does() -> None:
    schema = Schema.new_builder().column("a", DataTypes.INT()).column("dt", "STRING").build()
    csv = FormatDescriptor.for_format("csv").option("field-delimiter", "|").build()
    descriptor = (
        TableDescriptor.for_connector("filesystem")
        .schema(schema)
        .option("path", "/tmp/x")
        .format(csv)
        .partitioned_by("dt")
        .build()
    )
    # PyFlink 2.3.0: print(descriptor) (the options in a Java HashMap's order)
    assert str(descriptor) == (
        "(\n  `a` INT,\n  `dt` [STRING]\n)\nPARTITIONED BY (`dt`)\nWITH (\n  'path' = '/tmp/x',\n"
        "  'connector' = 'filesystem',\n  'format' = 'csv',\n  'csv.field-delimiter' = '|'\n)"
    )
    assert (
        str(TableDescriptor.for_connector("blackhole").build()) == "\nWITH (\n  'connector' = 'blackhole'\n)"
    )
    quoted = (
        TableDescriptor.for_connector("datagen")
        .comment("c")
        .option("a'b", "it's")
        .partitioned_by("x", "y")
        .build()
    )
    assert str(quoted) == (
        "\nCOMMENT 'c'\nPARTITIONED BY (`x`, `y`)\nWITH (\n  'connector' = 'datagen',\n  'a''b' = 'it''s'\n)"
    )
    json = (
        FormatDescriptor.for_format("json")
        .option("z", "1")
        .option("a", "2")
        .option("ignore-parse-errors", "true")
    )
    assert str(json.build()) == "json[{a=2, ignore-parse-errors=true, z=1}]"
