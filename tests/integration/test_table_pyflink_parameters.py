# ruff: noqa: E501 - PyFlink's printed output is pasted as it is
"""Table API calls made with PyFlink 2.3's parameter names (keyword arguments), as ported
programs make them, against PyFlink 2.3.0's output of the same programs (``pyflink`` in the
imports). ``tests/unit/test_pyflink_signatures.py`` compares the signatures themselves."""

from __future__ import annotations

import datetime

import pytest

from millstream.table import DataTypes, EnvironmentSettings, Schema, TableDescriptor, TableEnvironment
from millstream.table.expression import TimeIntervalUnit
from millstream.table.expressions import and_, col, lit, or_


def test_expression_methods_take_pyflinks_parameter_names(capsys) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t = t_env.from_elements(
        [(" ab ", 2.567, datetime.datetime(2024, 1, 2, 3, 4, 5), '{"a": "x1", "n": "7"}', None)],
        DataTypes.ROW(
            [
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("d", DataTypes.DOUBLE()),
                DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("j", DataTypes.STRING()),
                DataTypes.FIELD("z", DataTypes.STRING()),
            ]
        ),
    )
    selected = t.select(
        col("s").trim(character=" ").alias("t1"),
        col("s").trim_leading().alias("t2"),
        col("s").rtrim(trim_str=" ").alias("t3"),
        col("s").substring(begin_index=2).alias("t4"),
        col("s").substr(begin_index=2, length=1).alias("t5"),
        col("d").round(places=1).alias("t6"),
        col("d").floor().alias("t7"),
        col("d").ceil().alias("t8"),
        col("ts").floor(TimeIntervalUnit.DAY).alias("t9"),
        col("ts").ceil(time_interval_unit=TimeIntervalUnit.HOUR).alias("t10"),
        col("s").like(pattern="%a%").alias("t11"),
        col("s").lpad(length=6, pad="*").alias("t12"),
        col("s").rpad(6, "-").alias("t13"),
        col("s").in_(" ab ", "x").alias("t14"),
        col("d").between(lower_bound=1, upper_bound=3).alias("t15"),
        col("d").not_between(lower_bound=1, upper_bound=3).alias("t16"),
        col("z").if_null(null_replacement="none").alias("t20"),
        col("s").repeat(n=2).alias("t21"),
        col("s").replace(search="a", replacement="A").alias("t22"),
        col("s").regexp_replace(regex="[ab]", replacement=".").alias("t23"),
        and_(predicate0=col("d") > 1, predicate1=col("d") < 3).alias("t24"),
        or_(col("d") > 5, col("d") < 1, col("d") == 2.567).alias("t25"),
        lit(v=5).alias("t26"),
        col("j").json_value("$.a").alias("t17"),
        col("j").json_value(path="$.n", returning_type=DataTypes.STRING()).alias("t18"),
    )
    for row in selected.execute().collect():
        print(row)
    # PyFlink 2.3.0, the same program
    assert capsys.readouterr().out == (
        "<Row('ab', 'ab ', ' ab', 'ab ', 'a', 2.6, 2.0, 3.0, datetime.datetime(2024, 1, 2, 0, 0), "
        "datetime.datetime(2024, 1, 2, 4, 0), True, '** ab ', ' ab --', True, True, False, 'none', ' ab  ab ', "
        "' Ab ', ' .. ', True, True, 5, 'x1', '7')>\n"
    )


def test_environment_methods_take_pyflinks_parameter_names(capfd) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    config = t_env.get_config()
    print(
        config.get("parallelism.default", default_value="7"),
        config.get("no.such.key", default_value="7"),
        flush=True,
    )
    t = t_env.from_elements([(1,), (2,)], ["a"])
    sink = (
        TableDescriptor.for_connector("print")
        .schema(Schema.new_builder().column("a", DataTypes.BIGINT()).build())
        .build()
    )
    t.execute_insert(table_path_or_descriptor=sink).wait()
    statements = t_env.create_statement_set()
    statements.add_insert(target_path_or_descriptor=sink, table=t.select(t.a + 10))
    statements.execute().wait()
    t_env.create_temporary_view(view_path="v", table_or_data_stream=t)
    print(t_env.list_temporary_views(), flush=True)
    # PyFlink 2.3.0, the same program (the print sink writes from the task, so the test reads
    # the process's output)
    assert capfd.readouterr().out == "1 7\n+I[1]\n+I[2]\n+I[11]\n+I[12]\n['v']\n"


def test_creating_a_table_twice_fails_unless_ignore_if_exists() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    schema = Schema.new_builder().column("a", DataTypes.INT()).build()
    descriptor = TableDescriptor.for_connector("blackhole").schema(schema).build()
    t_env.create_temporary_table("x", descriptor)
    # PyFlink 2.3.0: ValidationException: Temporary table '`default_catalog`.`default_database`.`x`' already exists
    with pytest.raises(
        ValueError, match=r"^Temporary table '`default_catalog`\.`default_database`\.`x`' already exists$"
    ):
        t_env.create_temporary_table("x", descriptor)
    t_env.create_temporary_table("x", descriptor, True)
    t_env.create_table("y", descriptor)
    # PyFlink 2.3.0: ValidationException: Could not execute CreateTable in path
    # `default_catalog`.`default_database`.`y` (TableAlreadyExistException: Table (or view)
    # default_database.y already exists in Catalog default_catalog.)
    with pytest.raises(
        ValueError,
        match=r"^Could not execute CreateTable in path `default_catalog`\.`default_database`\.`y`: Table \(or view\) default_database\.y already exists in Catalog default_catalog\.$",
    ):
        t_env.create_table("y", descriptor)
    t_env.create_table("y", descriptor, ignoreIfExists=True)
    t_env.execute_sql("CREATE TABLE IF NOT EXISTS y (a INT) WITH ('connector' = 'blackhole')")
    with pytest.raises(ValueError, match="Could not execute CreateTable"):
        t_env.execute_sql("CREATE TABLE y (a INT) WITH ('connector' = 'blackhole')")
    # PyFlink 2.3.0: drop_temporary_table(table_path="x") returns True
    assert t_env.drop_temporary_table(table_path="x") is True
