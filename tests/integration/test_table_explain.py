"""Table.explain / explain_sql / EXPLAIN: Flink's three sections (abstract syntax tree,
optimized physical plan, optimized execution plan) with Flink's node names."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.explain_detail import ExplainDetail

# PyFlink 2.3.0, 2026-11-24: t_env.explain_sql(QUERY) over from_elements([(1, "a"), (2, "b")], ["x", "s"])
QUERY = "SELECT s, SUM(x) AS total FROM t WHERE x > 1 GROUP BY s"
PYFLINK_EXPLAIN = """\
== Abstract Syntax Tree ==
LogicalAggregate(group=[{0}], total=[SUM($1)])
+- LogicalProject(s=[$1], x=[$0])
   +- LogicalFilter(condition=[>($0, 1)])
      +- LogicalTableScan(table=[[*anonymous_python-input-format$1*]])

== Optimized Physical Plan ==
GroupAggregate(groupBy=[s], select=[s, SUM(x) AS total])
+- Exchange(distribution=[hash[s]])
   +- Calc(select=[x, s], where=[>(x, 1)])
      +- TableSourceScan(table=[[*anonymous_python-input-format$1*]], fields=[x, s])

== Optimized Execution Plan ==
GroupAggregate(groupBy=[s], select=[s, SUM(x) AS total])
+- Exchange(distribution=[hash[s]])
   +- Calc(select=[x, s], where=[(x > 1)])
      +- TableSourceScan(table=[[*anonymous_python-input-format$1*]], fields=[x, s])
"""

# and what print() of execute_sql("EXPLAIN PLAN FOR SELECT s, x + 1 FROM t WHERE x > 1") printed
PYFLINK_EXPLAIN_STATEMENT = """\
== Abstract Syntax Tree ==
LogicalProject(s=[$1], EXPR$1=[+($0, 1)])
+- LogicalFilter(condition=[>($0, 1)])
   +- LogicalTableScan(table=[[*anonymous_python-input-format$1*]])

== Optimized Physical Plan ==
Calc(select=[s, +(x, 1) AS EXPR$1], where=[>(x, 1)])
+- TableSourceScan(table=[[*anonymous_python-input-format$1*]], fields=[x, s])

== Optimized Execution Plan ==
Calc(select=[s, (x + 1) AS EXPR$1], where=[(x > 1)])
+- TableSourceScan(table=[[*anonymous_python-input-format$1*]], fields=[x, s])

"""


@pytest.fixture
def t_env():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.create_temporary_view("t", t_env.from_elements([(1, "a"), (2, "b")], ["x", "s"]))
    return t_env


def test_explain_prints_flinks_sections_and_nodes(t_env):
    assert t_env.explain_sql(QUERY) == PYFLINK_EXPLAIN
    assert t_env.sql_query(QUERY).explain() == t_env.explain_sql(QUERY)


def test_explain_statement_prints_the_plan(t_env, capsys):
    t_env.execute_sql("EXPLAIN PLAN FOR SELECT s, x + 1 FROM t WHERE x > 1").print()
    assert capsys.readouterr().out == PYFLINK_EXPLAIN_STATEMENT
    result = t_env.execute_sql("EXPLAIN CHANGELOG_MODE SELECT s, COUNT(*) FROM t GROUP BY s")
    text = next(iter(result.collect()))[0]
    # millstream's aggregation emits -U before +U; over an insert-only input it never deletes
    assert "GroupAggregate(groupBy=[s], select=[s, COUNT(*) AS EXPR$1], changelogMode=[I,UB,UA])" in text
    assert "Exchange(distribution=[hash[s]], changelogMode=[I])" in text


def test_explain_covers_joins_windows_and_sorts():
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view("a", t_env.from_elements([(1, "x")], ["k", "v"]))
    t_env.create_temporary_view("b", t_env.from_elements([(1, 2.0)], ["k", "w"]))
    text = t_env.explain_sql(
        "SELECT a.v, SUM(b.w) AS total FROM a JOIN b ON a.k = b.k GROUP BY a.v ORDER BY total DESC LIMIT 3",
        ExplainDetail.CHANGELOG_MODE,
    )
    execution = text.split("== Optimized Execution Plan ==")[1]
    for node in ("SortLimit(", "HashAggregate(groupBy=[v]", "Join(joinType=[", "TableSourceScan("):
        assert node in execution
    assert text.index("== Abstract Syntax Tree ==") < text.index("== Optimized Physical Plan ==")


# PyFlink 2.3.0, 2026-11-27: explain_sql of OVER_QUERY over CREATE TABLE c (k INT, v BIGINT,
# ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen'), its execution plan:
OVER_QUERY = (
    "SELECT k, COUNT(v) OVER w AS n, MAX(v) OVER w AS m FROM c "
    "WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW)"
)
PYFLINK_OVER_EXECUTION = (
    "Calc(select=[k, w0$o0 AS n, w0$o1 AS m])\n"
    "+- OverAggregate(partitionBy=[k], orderBy=[ts ASC], window=[ RANGE BETWEEN 1000 PRECEDING AND "
    "CURRENT ROW], select=[k, v, ts, COUNT(v) AS w0$o0, MAX(v) AS w0$o1])\n"
    "   +- Exchange(distribution=[hash[k]])\n"
    "      +- WatermarkAssigner(rowtime=[ts], watermark=[ts])\n"
    "         +- TableSourceScan(table=[[default_catalog, default_database, c]], fields=[k, v, ts])\n"
)


def test_explain_prints_an_over_aggregation_as_pyflink_does():
    """Before, the over aggregates printed as Python object reprs (``<...OverCall object at
    0x7f...>``), and the node as ``OverAggregate(select=[k, v, ts, $over3])``."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE c (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '1')"
    )
    text = t_env.explain_sql(OVER_QUERY)
    assert " object at 0x" not in text
    assert text.split("== Optimized Execution Plan ==\n")[1] == PYFLINK_OVER_EXECUTION


# PyFlink 2.3.0, 2026-11-27: explain_sql(JOIN_QUERY) over two datagen tables a (id, seller,
# category BIGINT) and p (pid BIGINT, name, state STRING): the first lines of its abstract
# syntax tree, and its execution plan less the join's leftInputSpec / rightInputSpec terms
JOIN_QUERY = "SELECT a.id, p.name FROM a JOIN p ON a.seller = p.pid WHERE a.category = 10"
PYFLINK_JOIN_AST = [
    "LogicalProject(id=[$0], name=[$4])",
    "+- LogicalFilter(condition=[=($2, 10)])",
    "   +- LogicalJoin(condition=[=($1, $3)], joinType=[inner])",
    "      :- LogicalTableScan(table=[[default_catalog, default_database, a]])",
]
PYFLINK_JOIN_EXECUTION = """\
Calc(select=[id, name])
+- Join(joinType=[InnerJoin], where=[(seller = pid)], select=[id, seller, pid, name])
   :- Exchange(distribution=[hash[seller]])
   :  +- Calc(select=[id, seller], where=[(category = 10)])
   :     +- TableSourceScan(table=[[default_catalog, default_database, a]], fields=[id, seller, category])
   +- Exchange(distribution=[hash[pid]])
      +- Calc(select=[pid, name])
         +- TableSourceScan(table=[[default_catalog, default_database, p]], fields=[pid, name, state])
"""


def test_explain_prints_the_query_as_written_then_as_it_runs_as_pyflink_does():
    """The abstract syntax tree is the plan before the rewrite phases (the WHERE above the
    join, as written); the execution plan after them (the WHERE's conjunct below the join,
    each input narrowed to the columns read, no identity Calc). Before, the tree printed the
    rewritten plan, and a join printed ``LogicalJoin(fields=[...])``."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    datagen = "WITH ('connector' = 'datagen')"
    t_env.execute_sql(f"CREATE TABLE a (id BIGINT, seller BIGINT, category BIGINT) {datagen}")
    t_env.execute_sql(f"CREATE TABLE p (pid BIGINT, name STRING, state STRING) {datagen}")
    text = t_env.explain_sql(JOIN_QUERY)
    ast = text.split("== Abstract Syntax Tree ==\n")[1].splitlines()
    assert ast[: len(PYFLINK_JOIN_AST)] == PYFLINK_JOIN_AST
    assert text.split("== Optimized Execution Plan ==\n")[1] == PYFLINK_JOIN_EXECUTION
