"""Sub-plan reuse (``table.optimizer.reuse-sub-plan-enabled`` / ``reuse-source-enabled``): a
part of a job's plan met twice is computed once and feeds both consumers, as in Flink; the
results are those of computing it twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import udf
from millstream.testing.tables import fold_changelog

pytestmark = pytest.mark.timeout(300)


def _environment(tmp_path: Path, reuse: bool = True, sources: bool = True) -> TableEnvironment:
    (tmp_path / "in.csv").write_text("".join(f"{i},k{i % 2},{i * 10}\n" for i in range(6)))
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.optimizer.reuse-sub-plan-enabled", str(reuse).lower())
    t_env.get_config().set("table.optimizer.reuse-source-enabled", str(sources).lower())
    t_env.execute_sql(
        f"CREATE TABLE src (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path / 'in.csv'}', 'format' = 'csv')"
    )
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[object, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return sorted(tuple(r) for r in rows)


_SELF_JOIN = "SELECT a.id, a.tv, b.tv FROM w a JOIN w b ON a.id = b.id"


@pytest.mark.parametrize("reuse", [True, False])
def test_a_view_used_twice_is_computed_once(tmp_path: Path, reuse: bool) -> None:
    """A view joined with itself: with reuse, its scan and its Python UDF run once per row and
    feed both sides of the join; without, each side computes them again. Flink 2.3 plans the
    same query as ``Exchange(...)(reuse_id=[1])`` ... ``Reused(reference_id=[1])`` (PyFlink's
    ``explain_sql``), and its UDF then ran once per row; the rows are the same either way."""
    t_env = _environment(tmp_path, reuse)
    calls = tmp_path / "calls"

    @udf(result_type=DataTypes.INT())
    def tag(x: int) -> int:
        with open(calls, "a") as out:
            out.write(f"{x}\n")
        return x * 2

    t_env.create_temporary_function("tag", tag)
    t_env.execute_sql("CREATE VIEW w AS SELECT id, k, tag(v) AS tv FROM src")
    assert _rows(t_env, _SELF_JOIN) == [(i, i * 20, i * 20) for i in range(6)]
    called = sorted(int(x) for x in calls.read_text().split())
    assert called == sorted([i * 10 for i in range(6)] * (1 if reuse else 2))
    plan = t_env.explain_sql(_SELF_JOIN).split("== Optimized Execution Plan ==")[1]
    assert ("Reused(reference_id=[1])" in plan) == reuse
    assert plan.count("TableSourceScan") == (1 if reuse else 2)


_SAME = (
    "SELECT x.k, x.n, y.n FROM (SELECT k, COUNT(*) AS n FROM src GROUP BY k) x "
    "JOIN (SELECT k, COUNT(*) AS n FROM src GROUP BY k) y ON x.k = y.k"
)
_DIFFERENT = (
    "SELECT x.k, x.n, y.n FROM (SELECT k, COUNT(v) AS n FROM src GROUP BY k) x "
    "JOIN (SELECT k, SUM(CAST(v AS BIGINT)) AS n FROM src GROUP BY k) y ON x.k = y.k"
)


def test_two_identical_subqueries_share_one_aggregation_and_different_ones_do_not(tmp_path: Path) -> None:
    """Planned apart, two equal aggregations are still one (their structure is compared); two
    with the same columns, types and names but other aggregate functions stay two (COUNT and
    SUM, both BIGINT ``n``), and each gives its own result. PyFlink 2.3's plans of the same two
    queries: ``GroupAggregate(...)`` ``(reuse_id=[1])`` then ``Reused``; and for the second,
    two aggregations over one reused scan."""
    t_env = _environment(tmp_path)
    same = t_env.explain_sql(_SAME).split("== Optimized Execution Plan ==")[1]
    assert "GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS n])(reuse_id=[1])" in same
    assert same.count("GroupAggregate") == 1 and "Reused(reference_id=[1])" in same
    different = t_env.explain_sql(_DIFFERENT).split("== Optimized Execution Plan ==")[1]
    assert different.count("GroupAggregate") == 2 and "Reused" not in different.split("TableSourceScan")[0]
    assert _folded(t_env, _SAME) == {("k0", 3, 3): 1, ("k1", 3, 3): 1}
    assert _folded(t_env, _DIFFERENT) == {("k0", 3, 60): 1, ("k1", 3, 90): 1}


def _folded(t_env: TableEnvironment, sql: str) -> dict[tuple[object, ...], int]:
    with t_env.execute_sql(sql).collect() as rows:
        return dict(fold_changelog((str(r.get_row_kind()), tuple(r)) for r in rows))


def test_without_source_reuse_each_scan_reads_on_its_own(tmp_path: Path) -> None:
    """``reuse-source-enabled`` false: the view's scan (and so everything above it) is not
    shared; sub-plans without a source underneath would still be."""
    t_env = _environment(tmp_path, sources=False)
    t_env.execute_sql("CREATE VIEW w AS SELECT id, k, v * 2 AS tv FROM src")
    plan = t_env.explain_sql(_SELF_JOIN).split("== Optimized Execution Plan ==")[1]
    assert "Reused" not in plan and plan.count("TableSourceScan") == 2
    assert _rows(t_env, _SELF_JOIN) == [(i, i * 20, i * 20) for i in range(6)]


def _job_nodes(t_env: TableEnvironment, insert: str, scans: list[Any] | None = None) -> list[str]:
    """The operator names of the job ``insert`` would run (its stream graph, not run): planned
    as a run plans it, through the rewrite phases. ``scans`` gets the formats of its columnar
    scans."""
    import json

    from millstream.graph.operator_specs import SourceSpec
    from millstream.table.planner.planning import plan_job
    from millstream.table.sql.statements import insert_operation

    env = t_env._environment()
    sink = insert_operation(t_env._catalog, t_env._batch, insert).plan
    [plan], ctx = plan_job(env, t_env.get_config(), [sink])
    plan.translate(ctx)
    graph = json.loads(env.get_execution_plan())
    for t in env._transformations.values():
        spec = getattr(t, "operator", None)
        if scans is not None and isinstance(spec, SourceSpec) and t.name.startswith("Source: ColumnarScan"):
            scans.append(spec.source.stream_format)
    env._transformations.clear()
    env._pending.clear()
    return [node["contents"] for node in graph["nodes"]]


def test_a_scan_shared_by_consumers_is_read_once_and_each_takes_its_batches(tmp_path: Path) -> None:
    """A part of a columnar chain that feeds several consumers is scanned once; each consumer
    takes the scan's Arrow batches: Nexmark q7 joins the bids with their own window maxima (the
    join takes the bids as rows, the window aggregation folds the batches in its local phase),
    q8 reads persons and auctions from one watermarked view (each branch filters the batches
    on Arrow, then folds them). Before, q7's window aggregation took rows, and q8 read the file
    twice. The rewrite phases keep q7's join input whole, not merged into the shared Calc."""
    from millstream.testing.nexmark import QUERIES, ddl, write_events

    write_events(str(tmp_path / "events.json"), 200)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for statement in ddl(str(tmp_path / "events.json")):
        t_env.execute_sql(statement)
    for query in ("q5", "q7", "q8"):
        spec = QUERIES[query]
        t_env.execute_sql(f"CREATE TABLE sink_{query} ({spec.columns}) WITH ('connector' = 'blackhole')")
    q5 = _job_nodes(t_env, f"INSERT INTO sink_q5 {QUERIES['q5'].sql}")
    q7 = _job_nodes(t_env, f"INSERT INTO sink_q7 {QUERIES['q7'].sql}")
    q8 = _job_nodes(t_env, f"INSERT INTO sink_q8 {QUERIES['q8'].sql}")
    assert sum(n.startswith("Source: ColumnarScan") for n in q5) == 1 and "LocalWindowAggregate" in q5
    assert sum(n.startswith("Source: ColumnarScan") for n in q7) == 1 and "LocalWindowAggregate" in q7
    assert "Rows" in q7  # the join's input
    assert sum(n.startswith("Source: ColumnarScan") for n in q8) == 1
    assert q8.count("LocalWindowAggregate") == 2 and q8.count("GlobalWindowAggregate") == 2


def test_a_shared_scan_parses_the_fields_its_consumers_read(tmp_path: Path) -> None:
    """Nexmark q3 reads persons and auctions from one watermarked view of the events: the scan
    shared by both branches parses the person and auction fields the branches read and, of
    the bids, only the time the view's watermark needs (Flink's scan reuse reads the union of
    its consumers' projections). Before, the shared scan parsed every field of every event
    (q3 at 1M events: 4.3 s; with the union, 3.3 s)."""
    from millstream.testing.nexmark import QUERIES, ddl, write_events

    write_events(str(tmp_path / "events.json"), 200)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for statement in ddl(str(tmp_path / "events.json")):
        t_env.execute_sql(statement)
    t_env.execute_sql(f"CREATE TABLE sink_q3 ({QUERIES['q3'].columns}) WITH ('connector' = 'blackhole')")
    scans: list[Any] = []
    _job_nodes(t_env, f"INSERT INTO sink_q3 {QUERIES['q3'].sql}", scans)
    [scan] = scans
    needed = scan.needed()
    assert needed["bid"] == {"dateTime"}
    assert (
        needed["auction"] is not None and "category" in needed["auction"] and "extra" not in needed["auction"]
    )
    assert needed["person"] is not None and {"name", "city", "state"} <= needed["person"]
    assert "creditCard" not in needed["person"]
    # explain prints what the shared scan reads, the Calcs above it as columnar
    plan = t_env.explain_sql(f"INSERT INTO sink_q3 {QUERIES['q3'].sql}").split(
        "== Optimized Execution Plan =="
    )[1]
    [scan_line] = [line for line in plan.splitlines() if "TableSourceScan" in line]
    read = scan_line.split("read=[")[1].rstrip("])").split(", ")
    assert sorted(read) == sorted(
        name if fields is None else f"{name}.{field}"
        for name, fields in needed.items()
        for field in fields or [None]
    )
    # each branch one Calc, the view's filter merged with the query's (Flink's FilterMergeRule)
    branches = [line for line in plan.splitlines() if "Calc(" in line and "where=[((event_type = " in line]
    assert len(branches) == 2 and all("columnar=[arrow]" in line for line in branches)


_ARROW_OPERATORS = ("LocalWindowAggregate", "GlobalWindowAggregate", "WindowAggregate")


@pytest.mark.parametrize(
    "options",
    [{}, {"table.exec.columnar.enabled": "false"}, {"table.optimizer.agg-phase-strategy": "ONE_PHASE"}],
    ids=["columnar", "rows", "one-phase"],
)
def test_explain_prints_the_operators_the_job_runs(tmp_path: Path, options: dict[str, str]) -> None:
    """explain and the translation read one physical plan (``exec_plan.py``): for every
    Nexmark query, the window aggregation phases explain marks ``columnar=[arrow]`` are the
    job's Arrow operators of that name, and each columnar scan explain prints (its source
    line lists what it reads) is one columnar source of the job; no Exchange is columnar (rows
    cross it). Before, explain derived the physical plan again from the logical nodes, and
    marked an Exchange above a columnar Calc columnar."""
    from millstream.testing.nexmark import QUERIES, ddl

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for key, value in options.items():
        t_env.get_config().set(key, value)
    for statement in ddl(str(tmp_path / "events.json")):
        t_env.execute_sql(statement)
    arrow_seen = 0
    for name, spec in sorted(QUERIES.items()):
        t_env.execute_sql(f"CREATE TABLE sink_{name} ({spec.columns}) WITH ('connector' = 'blackhole')")
        insert = f"INSERT INTO sink_{name} {spec.sql}"
        lines = t_env.explain_sql(insert).split("== Optimized Execution Plan ==")[1].strip().splitlines()
        operators = [line.lstrip(" :+-|").split("(", 1)[0] for line in lines]
        job = _job_nodes(t_env, insert)
        for operator in _ARROW_OPERATORS:
            printed = sum(o == operator and "columnar=[arrow]" in line for o, line in zip(operators, lines))
            assert printed == job.count(operator), (name, operator, lines, job)
            arrow_seen += printed
        assert not any(
            o == "Exchange" and "columnar" in line for o, line in zip(operators, lines)
        )  # rows cross
        scans = sum("read=[" in line for line in lines)
        assert scans == sum(n.startswith("Source: ColumnarScan") for n in job), (name, lines, job)
        arrow_seen += scans
    assert (arrow_seen > 10) == (options.get("table.exec.columnar.enabled") != "false"), arrow_seen
