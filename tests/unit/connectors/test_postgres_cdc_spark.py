"""The Spark runner refuses a postgres-cdc source before anything starts, in one line naming
the connector (a replication slot has one consumer, whose position lives in millstream's
checkpoints)."""

from __future__ import annotations

import pytest

from millstream.graph.job_graph_generator import create_job_graph
from millstream.spark.support import UnsupportedOnSparkError, check_batch, check_streaming
from millstream.table import StreamTableEnvironment
from tests.conftest import make_env

DDL = (
    "CREATE TABLE orders (id INT, amount INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
    "'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '1', 'username' = 'u', "
    "'password' = 'p', 'database-name' = 'shop', 'schema-name' = 'public', 'table-name' = 'orders', "
    "'slot.name' = 'orders_slot')"
)


def test_a_postgres_cdc_source_is_refused_on_spark_naming_the_connector() -> None:
    env = make_env(1)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(DDL)
    t_env.to_changelog_stream(t_env.sql_query("SELECT id, SUM(amount) FROM orders GROUP BY id")).print()
    job_graph = create_job_graph(env.get_stream_graph("cdc on spark", clear_transformations=True))
    source = next(op for v in job_graph.vertices for op in v.operators if "PostgresSource" in op.name)
    with pytest.raises(UnsupportedOnSparkError) as streaming:
        check_streaming(source, keyed=False)
    text = str(streaming.value)
    assert "\n" not in text
    assert text.startswith(
        "operator 'Source: PostgresSource-orders' cannot run on Spark Structured Streaming: "
    )
    assert "the postgres-cdc connector is not supported on Spark" in text
    with pytest.raises(UnsupportedOnSparkError, match="cannot run on Spark: the postgres-cdc connector"):
        check_batch(job_graph)
