# ruff: noqa: E501 - plans read best on one line each, as explain prints them
"""Every shape of a filesystem table's scan runs columnar end to end, with Flink's projection
and filter push-down, and gives the row path's rows.

The shapes: a flat JSON table with a computed event time (``ts AS TO_TIMESTAMP_LTZ(ms, 3)``
and a WATERMARK on it, as most Flink programs declare events), the same table as CSV and as
Parquet, a TIMESTAMP(3) column read from the file with the WATERMARK on it, and a table
without a WATERMARK; each read through a view that filters it. Each query's plan is columnar
on every operator of the scan's chain, its scan line is the one PyFlink 2.3.0 prints for the
same table and statement, and its rows are those of the row path
(``table.exec.columnar.enabled`` false) and PyFlink's.

PyFlink 2.3.0 printed these scan lines (``explain_sql``, optimized execution plan) for the
JSON, CSV and plain-TIMESTAMP tables (its Parquet format is not on PyFlink's class path; the
filesystem source prints the same digest whatever its format) and these row counts (first and
last rows compared too, the TIMESTAMP_LTZ cast to TIMESTAMP(3) so PyFlink can collect it).
"""

from __future__ import annotations

import datetime
import json
import random
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)

_TABLE = (
    "CREATE TABLE ev ({columns}) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = '{format}')"
)
_COMPUTED = "kind INT, id BIGINT, price BIGINT, name STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3)"
_WATERMARK = ", WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
_SHAPES = {  # name -> (columns, file, format)
    "json": (_COMPUTED + _WATERMARK, "ev.json", "json"),
    "csv": (_COMPUTED + _WATERMARK, "ev.csv", "csv"),
    "parquet": (_COMPUTED + _WATERMARK, "ev.parquet", "parquet"),
    "plain_ts": (
        "kind INT, id BIGINT, price BIGINT, name STRING, ts TIMESTAMP(3)" + _WATERMARK,
        "evts.json",
        "json",
    ),
    "no_watermark": (_COMPUTED, "ev.json", "json"),
}
_VIEW = "CREATE VIEW bids AS SELECT id, price, ts AS t, name FROM ev WHERE kind = 2"
_QUERIES = {
    "A": "SELECT id, price, CAST(t AS TIMESTAMP(3)) AS t, name FROM bids",
    "B": "SELECT id, 0.5 * price AS half, CAST(t AS TIMESTAMP(3)) AS t FROM bids",
    "C": "SELECT id, price FROM bids WHERE MOD(id, 3) = 0",
    "D": "SELECT window_start, COUNT(*) AS n, MAX(price) AS mx FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(t), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
    "E": "SELECT id, name FROM ev WHERE price > 250 AND kind <> 2",
}
_SCAN = "TableSourceScan(table=[[default_catalog, default_database, ev{digest}]], fields=[{fields}])"
# PyFlink 2.3.0's scan lines (JSON and CSV alike; ms is the plain-TIMESTAMP table's ts)
_FLINK_SCANS = {
    "A": ("", "kind, id, price, name, ms"),
    "B": (", project=[kind, id, price, ms], metadata=[]", "kind, id, price, ms"),
    "C": (", project=[kind, id, price, ms], metadata=[]", "kind, id, price, ms"),
    "D": (", project=[kind, price, ms], metadata=[]", "kind, price, ms"),
    "E": ("", "kind, id, price, name, ms"),
}
_FLINK_SCANS_WITHOUT_WATERMARK = {
    "A": (", filter=[=(kind, 2)]", "kind, id, price, name, ms"),
    "B": (", filter=[=(kind, 2)], project=[kind, id, price, ms], metadata=[]", "kind, id, price, ms"),
    "C": (
        ", filter=[and(=(kind, 2), =(MOD(id, 3), 0))], project=[kind, id, price], metadata=[]",
        "kind, id, price",
    ),
    "E": (
        ", filter=[and(>(price, 250), <>(kind, 2))], project=[kind, id, price, name], metadata=[]",
        "kind, id, price, name",
    ),
}
# PyFlink 2.3.0's row counts, the same for every shape
_FLINK_COUNTS = {"A": 240, "B": 240, "C": 80, "D": 17, "E": 77}


def _events(directory: Path) -> None:
    """400 events of three kinds, up to 1.5 s out of order, some names missing; as JSON lines
    (epoch milliseconds, or a TIMESTAMP text), CSV and Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(5)
    base = 1704067200000
    rows: list[dict[str, Any]] = []
    for i in range(400):
        ms = base + i * 37 - rng.randint(0, 1500)
        price = rng.randint(1, 500)
        name = rng.choice(["ann", "bob", None, "cy"])
        rows.append({"kind": [0, 1, 2, 2, 2][i % 5], "id": i, "price": price, "name": name, "ms": ms})
    with open(directory / "ev.json", "w") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n")
    with open(directory / "ev.csv", "w") as f:  # an empty name field: '' on both engines
        for r in rows:
            f.write(
                ",".join("" if r[k] is None else str(r[k]) for k in ("kind", "id", "price", "name", "ms"))
                + "\n"
            )
    with open(directory / "evts.json", "w") as f:
        for r in rows:
            moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=r["ms"])
            record = {k: v for k, v in r.items() if v is not None and k != "ms"}
            record["ts"] = moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
            f.write(json.dumps(record) + "\n")
    schema = pa.schema(
        [
            ("kind", pa.int32()),
            ("id", pa.int64()),
            ("price", pa.int64()),
            ("name", pa.string()),
            ("ms", pa.int64()),
        ]
    )
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, directory / "ev.parquet", row_group_size=64)


def _environment(directory: Path, shape: str, columnar: bool) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("pipeline.auto-watermark-interval", "0")  # a watermark after every row that raises it
    config.set("table.exec.columnar.enabled", str(columnar).lower())
    columns, file, file_format = _SHAPES[shape]
    t_env.execute_sql(_TABLE.format(columns=columns, path=directory / file, format=file_format))
    t_env.execute_sql(_VIEW)
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[Any, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return sorted(tuple(r) for r in rows)


def _execution_plan(t_env: TableEnvironment, sql: str) -> list[str]:
    text = t_env.explain_sql(sql)
    return text[text.index("== Optimized Execution Plan ==") :].splitlines()[1:]


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("shapes")
    _events(directory)
    return directory


_CASES = [(s, q) for s in _SHAPES for q in _QUERIES if not (s == "no_watermark" and q == "D")]


@pytest.mark.parametrize(("shape", "query"), _CASES)
def test_every_shape_scans_columnar_with_flinks_push_downs_and_the_row_paths_rows(
    events: Path, shape: str, query: str
) -> None:
    t_env = _environment(events, shape, columnar=True)
    plan = [line for line in _execution_plan(t_env, _QUERIES[query]) if line.strip()]
    # the scan's chain: every operator from the scan up to the first that is not a Calc or
    # a watermark assigner (D: the window aggregation's local phase takes the scan's batches)
    chain = (
        plan[plan.index(next(line for line in plan if "LocalWindowAggregate" in line)) :]
        if query == "D"
        else plan
    )
    assert all("columnar=[arrow]" in line for line in chain), "\n".join(plan)
    digest, fields = (_FLINK_SCANS_WITHOUT_WATERMARK if shape == "no_watermark" else _FLINK_SCANS)[query]
    if shape == "plain_ts":
        digest, fields = digest.replace("ms]", "ts]"), fields.replace("ms", "ts")
    scan = plan[-1].split("+- ")[-1].replace(", columnar=[arrow]", "")
    assert scan == _SCAN.format(digest=digest, fields=fields)
    rows = _rows(t_env, _QUERIES[query])
    assert rows == _rows(_environment(events, shape, columnar=False), _QUERIES[query])
    assert len(rows) == _FLINK_COUNTS[query]


def test_the_flat_nexmark_queries_are_columnar_on_every_operator(tmp_path: Path) -> None:
    """q0-q2 over the flat JSON table with the computed TO_TIMESTAMP_LTZ event time
    (``benchmarks/nexmark_flat.py``) into a blackhole sink: every operator of the plan runs on
    Arrow, and the scan parses the columns the query reads. PyFlink 2.3.0 printed, for q0:

        TableSourceScan(table=[[default_catalog, default_database, nexmark_events, project=[event_type, extra, auction, bidder, price, dateTime], metadata=[]]], fields=[event_type, extra, auction, bidder, price, dateTime])
    """
    import importlib.util
    import sys

    from millstream.testing.nexmark import QUERIES

    benchmarks = Path(__file__).resolve().parents[3] / "benchmarks"
    spec = importlib.util.spec_from_file_location("nexmark_flat", benchmarks / "nexmark_flat.py")
    assert spec is not None and spec.loader is not None
    nexmark_flat = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("nexmark_flat", nexmark_flat)
    spec.loader.exec_module(nexmark_flat)
    (tmp_path / "flat.json").write_text("")
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("table.local-time-zone", "UTC")
    for statement in nexmark_flat.ddl(str(tmp_path / "flat.json")):
        t_env.execute_sql(statement)
    for query in ("q0", "q1", "q2"):
        t_env.execute_sql(
            f"CREATE TABLE sink_{query} ({QUERIES[query].columns}) WITH ('connector' = 'blackhole')"
        )
        plan = [
            line
            for line in _execution_plan(t_env, f"INSERT INTO sink_{query} {QUERIES[query].sql}")
            if line.strip()
        ]
        assert all("columnar=[arrow]" in line for line in plan), "\n".join(plan)
    assert (
        plan[-1]
        .strip()
        .startswith(
            "+- TableSourceScan(table=[[default_catalog, default_database, nexmark_events, project=[event_type, auction, price, dateTime], metadata=[]]], fields=[event_type, auction, price, dateTime]"
        )
    )
