# ruff: noqa: E501 - the queries read best on one line
"""SQL that real programs use, each checked against PyFlink 2.3's output for the same
program (batch mode, parallelism 1, the same five rows): COUNT(DISTINCT ...), aggregate
FILTER (WHERE ...), REGEXP_EXTRACT, SPLIT_INDEX, SPLIT, CROSS JOIN UNNEST and LEFT JOIN
LATERAL TABLE(...) ON TRUE (a table function named like a built-in, ``explode``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import udtf
from millstream.testing.tables import fold_changelog

pytestmark = pytest.mark.timeout(300)

ROWS = [(1, "a", 10, "x,y,z"), (2, "a", 10, "p"), (3, "b", 5, None), (4, "b", 7, "q,r"), (5, "a", None, "")]


@udtf(result_types=[DataTypes.STRING()])
def explode(s: str | None):  # type: ignore[no-untyped-def]
    if s:
        yield from s.split(",")


def _environment(batch: bool = True) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view("orders", t_env.from_elements(ROWS, ["id", "cust", "amount", "tags"]))
    t_env.create_temporary_function("explode", explode)
    return t_env


def _printed(t_env: TableEnvironment, sql: str, capsys: pytest.CaptureFixture[str]) -> list[list[str]]:
    t_env.execute_sql(sql).print()
    lines = capsys.readouterr().out.splitlines()
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("|")]


def test_count_distinct_and_aggregate_filter(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _environment()
    assert _printed(
        t_env, "SELECT cust, COUNT(DISTINCT amount) AS d, COUNT(*) AS n FROM orders GROUP BY cust", capsys
    ) == [["cust", "d", "n"], ["a", "1", "3"], ["b", "2", "2"]]
    assert _printed(
        t_env,
        "SELECT cust, COUNT(*) FILTER (WHERE amount > 6) AS big, SUM(amount) FILTER (WHERE id > 1) AS s "
        "FROM orders GROUP BY cust",
        capsys,
    ) == [["cust", "big", "s"], ["a", "2", "10"], ["b", "1", "12"]]


def test_distinct_aggregates_retract_in_streaming_mode() -> None:
    """Over an updating input (a group aggregation's changelog), COUNT(DISTINCT x) forgets a
    value once no row holds it: the folded result equals the batch result."""
    sql = (
        "SELECT n, COUNT(DISTINCT cust) AS customers, SUM(DISTINCT n) FILTER (WHERE n > 1) AS s "
        "FROM (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) GROUP BY n"
    )
    results = []
    for batch in (True, False):
        with _environment(batch).execute_sql(sql).collect() as rows:
            results.append(fold_changelog((str(r.get_row_kind()), tuple(r)) for r in rows))
    assert results[0] == results[1] == Counter({(3, 1, 3): 1, (2, 1, 2): 1})


def test_regexp_extract_split_index_and_split(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _environment()
    assert _printed(
        t_env,
        "SELECT id, REGEXP_EXTRACT(tags, '([a-z]),([a-z])', 2) AS r, SPLIT_INDEX(tags, ',', 1) AS s FROM orders",
        capsys,
    ) == [
        ["id", "r", "s"],
        ["1", "y", "y"],
        ["2", "<NULL>", "<NULL>"],
        ["3", "<NULL>", "<NULL>"],
        ["4", "r", "r"],
        ["5", "<NULL>", "<NULL>"],
    ]
    # Flink's REGEXP_EXTRACT defaults to group 0, the whole match (Spark's to group 1)
    assert _printed(
        t_env, "SELECT REGEXP_EXTRACT('x,y', '([a-z]),([a-z])') AS m FROM orders WHERE id = 1", capsys
    )[1] == ["x,y"]
    assert _printed(t_env, "SELECT id, SPLIT(tags, ',') AS parts FROM orders", capsys)[1:] == [
        ["1", "[x, y, z]"],
        ["2", "[p]"],
        ["3", "<NULL>"],
        ["4", "[q, r]"],
        ["5", "[]"],
    ]


def test_unnest_and_left_lateral_join(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _environment()
    assert _printed(
        t_env, "SELECT id, tag FROM orders CROSS JOIN UNNEST(SPLIT(tags, ',')) AS T(tag)", capsys
    )[1:] == [["1", "x"], ["1", "y"], ["1", "z"], ["2", "p"], ["4", "q"], ["4", "r"]]
    assert _printed(
        t_env, "SELECT id, tag FROM orders LEFT JOIN LATERAL TABLE(explode(tags)) AS T(tag) ON TRUE", capsys
    )[1:] == [
        ["1", "x"],
        ["1", "y"],
        ["1", "z"],
        ["2", "p"],
        ["3", "<NULL>"],
        ["4", "q"],
        ["4", "r"],
        ["5", "<NULL>"],
    ]
    with pytest.raises(ValueError, match="ON TRUE only"):
        t_env.sql_query("SELECT id FROM orders LEFT JOIN LATERAL TABLE(explode(tags)) AS T(tag) ON id > 1")


def test_create_function_language_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PyFlink's ``CREATE TEMPORARY FUNCTION f AS 'module.udf' LANGUAGE PYTHON``: the udf
    object is imported by its qualified name (here from a module on the path, which the
    TaskManagers inherit), then callable from SQL; DROP FUNCTION forgets it."""
    import os

    (tmp_path / "shop_udfs.py").write_text(
        "from millstream.table import DataTypes\n"
        "from millstream.table.functions.udf import udf\n\n"
        "@udf(result_type=DataTypes.BIGINT())\n"
        "def doubled(x):\n"
        "    return None if x is None else 2 * x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    t_env = _environment()
    t_env.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION doubled AS 'shop_udfs.doubled' LANGUAGE PYTHON")
    t_env.execute_sql(
        "CREATE TEMPORARY FUNCTION IF NOT EXISTS doubled AS 'shop_udfs.doubled' LANGUAGE PYTHON"
    )
    assert _printed(t_env, "SELECT id, doubled(amount) AS d FROM orders WHERE id < 4", capsys)[1:] == [
        ["1", "20"],
        ["2", "20"],
        ["3", "10"],
    ]
    with pytest.raises(ValueError, match="only LANGUAGE PYTHON"):
        t_env.execute_sql("CREATE FUNCTION j AS 'com.example.Udf'")
    # PyFlink 2.3.0 creates a function of a name that imports nothing, and fails the query
    # calling it: "Cannot instantiate user-defined function 'default_catalog.default_database.n'."
    t_env.execute_sql("CREATE FUNCTION n AS 'shop_udfs.nothing' LANGUAGE PYTHON")
    instantiate = r"^Cannot instantiate user-defined function 'default_catalog\.default_database\.n'\.$"
    with pytest.raises(ValueError, match=instantiate):
        t_env.sql_query("SELECT n(amount) FROM orders")
    t_env.execute_sql("DROP TEMPORARY SYSTEM FUNCTION doubled")
    t_env.execute_sql("DROP FUNCTION IF EXISTS doubled")  # no catalog function: the temporary one stays
    t_env.execute_sql("DROP TEMPORARY FUNCTION doubled")  # as PyFlink 2.3.0, which still calls it before
    with pytest.raises(ValueError, match="No match found for function signature doubled"):
        t_env.sql_query("SELECT doubled(amount) FROM orders")


JSON_RETURNING = """\
+-------------+--------+--------------------------------+-------------+
|           a |      b |                              d |     missing |
+-------------+--------+--------------------------------+-------------+
|           2 |   TRUE |                          0.998 |      <NULL> |
+-------------+--------+--------------------------------+-------------+
1 row in set
"""


def test_json_value_returning_a_type_prints_what_pyflink_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """PyFlink 2.3.0 printed this table for the same statement (2026-11-27). With ``RETURNING
    INT NULL ON ERROR`` (or ``DEFAULT 0 ON ERROR``) over a non-number PyFlink 2.3.0 fails the job
    with "class java.lang.String cannot be cast to class java.lang.Integer": its cast of the
    value comes after the ON ERROR clause, and so does millstream's."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        """SELECT JSON_VALUE('{"a": 2}', '$.a' RETURNING INT) AS a,
        JSON_VALUE('{"a": true}', '$.a' RETURNING BOOLEAN) AS b,
        JSON_VALUE('{"a": [0.998, 0.996]}', '$.a[0]' RETURNING DOUBLE) AS d,
        JSON_VALUE('{"a": 1}', '$.b' RETURNING INT NULL ON EMPTY) AS missing"""
    ).print()
    assert capsys.readouterr().out == JSON_RETURNING
    for clause in ("NULL ON ERROR", "DEFAULT 0 ON ERROR"):
        statement = f"""SELECT JSON_VALUE('{{"a": "x"}}', '$.a' RETURNING INT {clause})"""
        refused = r"java\.lang\.String cannot be cast to class java\.lang\.Integer"
        with pytest.raises(Exception, match=refused), t_env.execute_sql(statement).collect() as rows:
            list(rows)


TYPEOF_OVERLAPS = """\
+--------------------------------+--------------------------------+--------------------------------+--------+--------+
|                         EXPR$0 |                         EXPR$1 |                         EXPR$2 |     o1 |     o2 |
+--------------------------------+--------------------------------+--------------------------------+--------+--------+
|                   INT NOT NULL |                         STRING |         DECIMAL(2, 1) NOT NULL |   TRUE |  FALSE |
+--------------------------------+--------------------------------+--------------------------------+--------+--------+
1 row in set
"""


def test_typeof_and_overlaps_print_what_pyflink_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """PyFlink 2.3.0 printed this table for the same statement (2026-11-27)."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        "SELECT TYPEOF(1), TYPEOF(CAST(NULL AS STRING)), TYPEOF(2.5), "
        "(TIME '02:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '03:30:00', INTERVAL '2' HOUR) AS o1, "
        "(TIME '09:00:00', TIME '10:00:00') OVERLAPS (TIME '10:15:00', INTERVAL '3' HOUR) AS o2"
    ).print()
    assert capsys.readouterr().out == TYPEOF_OVERLAPS
