"""``execution.target: spark`` refuses a postgres-cdc table before its query starts, in one
line naming the connector (no database is contacted)."""

from __future__ import annotations

import pytest

from millstream.spark.support import UnsupportedStreamingError
from millstream.table import StreamTableEnvironment
from tests.conformance.test_spark_runner import env_for
from tests.unit.connectors.test_postgres_cdc_spark import DDL

pytestmark = pytest.mark.usefixtures("spark")


def test_a_postgres_cdc_job_is_refused_on_spark_in_one_line():  # type: ignore[no-untyped-def]
    env = env_for("spark", 1)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(DDL)
    t_env.to_changelog_stream(t_env.from_path("orders")).print()
    with pytest.raises(
        UnsupportedStreamingError, match="the postgres-cdc connector is not supported on Spark"
    ):
        env.execute("cdc on spark")
