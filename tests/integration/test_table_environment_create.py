"""A StreamTableEnvironment created from EnvironmentSettings alone runs table jobs, as PyFlink
2.3.0's (``StreamTableEnvironment.create(environment_settings=settings)``)."""

from __future__ import annotations

from millstream.table import EnvironmentSettings, StreamTableEnvironment


def test_a_stream_table_environment_from_settings_alone_runs_queries(capsys):
    t_env = StreamTableEnvironment.create(environment_settings=EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE s (a INT) WITH ('connector'='datagen','number-of-rows'='3',"
        "'fields.a.kind'='sequence','fields.a.start'='1','fields.a.end'='3')"
    )
    t_env.sql_query("SELECT a * 2 AS b FROM s").execute().print()
    # PyFlink 2.3.0, the same program (pyflink in the imports)
    assert capsys.readouterr().out == (
        "+----+-------------+\n"
        "| op |           b |\n"
        "+----+-------------+\n"
        "| +I |           2 |\n"
        "| +I |           4 |\n"
        "| +I |           6 |\n"
        "+----+-------------+\n"
        "3 rows in set\n"
    )
