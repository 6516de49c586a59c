# ruff: noqa: E501 - PyFlink's rows and plans read best on one line each
"""GROUPING SETS, ROLLUP, CUBE and GROUPING(), GROUPING_ID(), GROUP_ID() in a GROUP BY, batch and
streaming, as Flink plans them: one aggregation by the keys and an expand id ``$e`` over an
Expand of the input (one copy of each row per grouping set, the keys the set leaves out NULL).

Every expectation is what PyFlink 2.3.0 printed for the same statement over the same rows
(``parallelism.default`` 1): the result schema, the rows (batch), the final table of the
changelog (streaming; for two queries the whole changelog, which is the same), the error, and
for the filesystem tables the Expand line of the execution plan. Before, GROUPING(k) failed with
"unsupported SQL expression: GROUPING(k)" and ROLLUP with "unsupported SQL expression: ROLLUP (k, x)".

The rows hold NULL keys (k NULL, x NULL): the group (k NULL, x 2) of set (k, x) and the group
(NULL, NULL) of set (k) must not meet the grand total (NULL, NULL) of set (), nor each other.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.common.types import RowKind
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string

pytestmark = pytest.mark.timeout(300)

_VALUES = (
    "CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 1, 10, 'p'), ('a', CAST(NULL AS INT), 20, 'q'), "
    "('b', 2, 30, 'p'), (CAST(NULL AS STRING), 2, 40, 'q'), ('b', CAST(NULL AS INT), 50, 'q')) AS t(k, x, v, c)"
)
_MODES = ["batch", "streaming"]


def _t_env(mode: str, columnar: bool = True) -> TableEnvironment:
    settings = (
        EnvironmentSettings.in_batch_mode() if mode == "batch" else EnvironmentSettings.in_streaming_mode()
    )
    t_env = TableEnvironment.create(settings)
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    config.set("table.exec.columnar.enabled", str(columnar).lower())
    t_env.execute_sql(_VALUES)
    return t_env


def _result(t_env: TableEnvironment, sql: str) -> tuple[str, list[tuple[str, ...]]]:
    """The result's schema (``name: TYPE, ...``) and its rows' printed cells, sorted: the final
    table of the changelog in streaming mode."""
    table = t_env.sql_query(sql)
    schema = table.get_resolved_schema()
    types = schema.get_column_data_types()
    names = schema.get_column_names()
    rows: Counter[tuple[str, ...]] = Counter()
    with table.execute().collect() as collected:
        for row in collected:
            cells = tuple(format_value(t, v) for t, v in zip(types, row, strict=True))
            if row.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                rows[cells] += 1
            else:
                assert rows[cells] > 0, f"{row.get_row_kind()} of a row never added: {cells}"
                rows[cells] -= 1
    described = ", ".join(f"{n}: {summary_string(t)}" for n, t in zip(names, types, strict=True))
    return described, sorted((+rows).elements())


# (query, PyFlink 2.3.0's schema, its rows sorted as strings), the same in batch and streaming
_CASES = {
    "rollup": (
        "SELECT k, x, GROUPING(k) AS gk, GROUPING_ID(k, x) AS gid, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY ROLLUP(k, x)",
        "k: STRING, x: INT, gk: BIGINT NOT NULL, gid: BIGINT NOT NULL, s: INT NOT NULL, n: BIGINT NOT NULL",
        [
            ("<NULL>", "2", "0", "0", "40", "1"),
            ("<NULL>", "<NULL>", "0", "1", "40", "1"),
            ("<NULL>", "<NULL>", "1", "3", "150", "5"),
            ("a", "1", "0", "0", "10", "1"),
            ("a", "<NULL>", "0", "0", "20", "1"),
            ("a", "<NULL>", "0", "1", "30", "2"),
            ("b", "2", "0", "0", "30", "1"),
            ("b", "<NULL>", "0", "0", "50", "1"),
            ("b", "<NULL>", "0", "1", "80", "2"),
        ],
    ),
    "cube_of_three": (
        "SELECT k, x, c, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY CUBE(k, x, c)",
        "k: STRING, x: INT, c: CHAR(1), n: BIGINT NOT NULL, s: INT NOT NULL",
        [
            ("<NULL>", "1", "<NULL>", "1", "10"),
            ("<NULL>", "1", "p", "1", "10"),
            ("<NULL>", "2", "<NULL>", "1", "40"),
            ("<NULL>", "2", "<NULL>", "2", "70"),
            ("<NULL>", "2", "p", "1", "30"),
            ("<NULL>", "2", "q", "1", "40"),
            ("<NULL>", "2", "q", "1", "40"),
            ("<NULL>", "<NULL>", "<NULL>", "1", "40"),
            ("<NULL>", "<NULL>", "<NULL>", "2", "70"),
            ("<NULL>", "<NULL>", "<NULL>", "5", "150"),
            ("<NULL>", "<NULL>", "p", "2", "40"),
            ("<NULL>", "<NULL>", "q", "1", "40"),
            ("<NULL>", "<NULL>", "q", "2", "70"),
            ("<NULL>", "<NULL>", "q", "3", "110"),
            ("a", "1", "<NULL>", "1", "10"),
            ("a", "1", "p", "1", "10"),
            ("a", "<NULL>", "<NULL>", "1", "20"),
            ("a", "<NULL>", "<NULL>", "2", "30"),
            ("a", "<NULL>", "p", "1", "10"),
            ("a", "<NULL>", "q", "1", "20"),
            ("a", "<NULL>", "q", "1", "20"),
            ("b", "2", "<NULL>", "1", "30"),
            ("b", "2", "p", "1", "30"),
            ("b", "<NULL>", "<NULL>", "1", "50"),
            ("b", "<NULL>", "<NULL>", "2", "80"),
            ("b", "<NULL>", "p", "1", "30"),
            ("b", "<NULL>", "q", "1", "50"),
            ("b", "<NULL>", "q", "1", "50"),
        ],
    ),
    # SUM(x) and MAX(k) read the keys whole (Flink's x_0, k_0), not the NULLs a set puts there
    "cube_aggregating_its_keys": (
        "SELECT k, x, GROUPING_ID(k, x) AS g, SUM(x) AS sx, MAX(k) AS mk FROM t GROUP BY CUBE(k, x)",
        "k: STRING, x: INT, g: BIGINT NOT NULL, sx: INT, mk: STRING",
        [
            ("<NULL>", "1", "2", "1", "a"),
            ("<NULL>", "2", "0", "2", "<NULL>"),
            ("<NULL>", "2", "2", "4", "b"),
            ("<NULL>", "<NULL>", "1", "2", "<NULL>"),
            ("<NULL>", "<NULL>", "2", "<NULL>", "b"),
            ("<NULL>", "<NULL>", "3", "5", "b"),
            ("a", "1", "0", "1", "a"),
            ("a", "<NULL>", "0", "<NULL>", "a"),
            ("a", "<NULL>", "1", "1", "a"),
            ("b", "2", "0", "2", "b"),
            ("b", "<NULL>", "0", "<NULL>", "b"),
            ("b", "<NULL>", "1", "2", "b"),
        ],
    ),
    "grouping_sets_with_the_empty_set": (
        "SELECT k, x, COUNT(*) AS n FROM t GROUP BY GROUPING SETS ((x), (k), ())",
        "k: STRING, x: INT, n: BIGINT NOT NULL",
        [
            ("<NULL>", "1", "1"),
            ("<NULL>", "2", "2"),
            ("<NULL>", "<NULL>", "1"),
            ("<NULL>", "<NULL>", "2"),
            ("<NULL>", "<NULL>", "5"),
            ("a", "<NULL>", "2"),
            ("b", "<NULL>", "2"),
        ],
    ),
    # a set listed twice gives its groups twice, GROUP_ID() telling them apart (a UNION ALL)
    "group_id_of_a_repeated_set": (
        "SELECT k, GROUP_ID() AS g, COUNT(*) AS n FROM t GROUP BY GROUPING SETS ((k), (k), ())",
        "k: STRING, g: BIGINT NOT NULL, n: BIGINT NOT NULL",
        [
            ("<NULL>", "0", "1"),
            ("<NULL>", "0", "5"),
            ("<NULL>", "1", "1"),
            ("a", "0", "2"),
            ("a", "1", "2"),
            ("b", "0", "2"),
            ("b", "1", "2"),
        ],
    ),
    "having_on_grouping": (
        "SELECT k, SUM(v) AS s, GROUPING(k) AS g FROM t GROUP BY ROLLUP(k) HAVING GROUPING(k) = 1 OR SUM(v) > 40",
        "k: STRING, s: INT NOT NULL, g: BIGINT NOT NULL",
        [("<NULL>", "150", "1"), ("b", "80", "0")],
    ),
    "expression_keys": (
        "SELECT UPPER(k) AS uk, x + 1 AS x1, SUM(v) FROM t GROUP BY ROLLUP(UPPER(k), x + 1)",
        "uk: STRING, x1: INT, EXPR$2: INT NOT NULL",
        [
            ("<NULL>", "3", "40"),
            ("<NULL>", "<NULL>", "150"),
            ("<NULL>", "<NULL>", "40"),
            ("A", "2", "10"),
            ("A", "<NULL>", "20"),
            ("A", "<NULL>", "30"),
            ("B", "3", "30"),
            ("B", "<NULL>", "50"),
            ("B", "<NULL>", "80"),
        ],
    ),
    "grouping_of_several_columns": (
        "SELECT k, x, GROUPING(k, x), GROUPING_ID(x, k), COUNT(*) FROM t GROUP BY k, ROLLUP(x)",
        "k: STRING, x: INT, EXPR$2: BIGINT NOT NULL, EXPR$3: BIGINT NOT NULL, EXPR$4: BIGINT NOT NULL",
        [
            ("<NULL>", "2", "0", "0", "1"),
            ("<NULL>", "<NULL>", "1", "2", "1"),
            ("a", "1", "0", "0", "1"),
            ("a", "<NULL>", "0", "0", "1"),
            ("a", "<NULL>", "1", "2", "2"),
            ("b", "2", "0", "0", "1"),
            ("b", "<NULL>", "0", "0", "1"),
            ("b", "<NULL>", "1", "2", "2"),
        ],
    ),
    "nested_grouping_sets": (
        "SELECT k, x, c, GROUPING_ID(k, x, c) AS g, COUNT(*) AS n FROM t GROUP BY GROUPING SETS ((k, x), ROLLUP(c), CUBE(k, c))",
        "k: STRING, x: INT, c: CHAR(1), g: BIGINT NOT NULL, n: BIGINT NOT NULL",
        [
            ("<NULL>", "2", "<NULL>", "1", "1"),
            ("<NULL>", "<NULL>", "<NULL>", "3", "1"),
            ("<NULL>", "<NULL>", "<NULL>", "7", "5"),
            ("<NULL>", "<NULL>", "<NULL>", "7", "5"),
            ("<NULL>", "<NULL>", "p", "6", "2"),
            ("<NULL>", "<NULL>", "p", "6", "2"),
            ("<NULL>", "<NULL>", "q", "2", "1"),
            ("<NULL>", "<NULL>", "q", "6", "3"),
            ("<NULL>", "<NULL>", "q", "6", "3"),
            ("a", "1", "<NULL>", "1", "1"),
            ("a", "<NULL>", "<NULL>", "1", "1"),
            ("a", "<NULL>", "<NULL>", "3", "2"),
            ("a", "<NULL>", "p", "2", "1"),
            ("a", "<NULL>", "q", "2", "1"),
            ("b", "2", "<NULL>", "1", "1"),
            ("b", "<NULL>", "<NULL>", "1", "1"),
            ("b", "<NULL>", "<NULL>", "3", "2"),
            ("b", "<NULL>", "p", "2", "1"),
            ("b", "<NULL>", "q", "2", "1"),
        ],
    ),
    # DISTINCT aggregates and a FILTER reading a key the sets leave out (Flink copies x for it)
    "distinct_aggregates": (
        "SELECT k, x, COUNT(DISTINCT c) AS dc, SUM(DISTINCT v) AS sv FROM t GROUP BY ROLLUP(k, x)",
        "k: STRING, x: INT, dc: BIGINT NOT NULL, sv: INT NOT NULL",
        [
            ("<NULL>", "2", "1", "40"),
            ("<NULL>", "<NULL>", "1", "40"),
            ("<NULL>", "<NULL>", "2", "150"),
            ("a", "1", "1", "10"),
            ("a", "<NULL>", "1", "20"),
            ("a", "<NULL>", "2", "30"),
            ("b", "2", "1", "30"),
            ("b", "<NULL>", "1", "50"),
            ("b", "<NULL>", "2", "80"),
        ],
    ),
    "filter_on_a_key": (
        "SELECT k, x, SUM(v) FILTER (WHERE x > 1) AS s, COUNT(x) AS cx FROM t GROUP BY CUBE(k, x)",
        "k: STRING, x: INT, s: INT, cx: BIGINT NOT NULL",
        [
            ("<NULL>", "1", "<NULL>", "1"),
            ("<NULL>", "2", "40", "1"),
            ("<NULL>", "2", "70", "2"),
            ("<NULL>", "<NULL>", "40", "1"),
            ("<NULL>", "<NULL>", "70", "3"),
            ("<NULL>", "<NULL>", "<NULL>", "0"),
            ("a", "1", "<NULL>", "1"),
            ("a", "<NULL>", "<NULL>", "0"),
            ("a", "<NULL>", "<NULL>", "1"),
            ("b", "2", "30", "1"),
            ("b", "<NULL>", "30", "1"),
            ("b", "<NULL>", "<NULL>", "0"),
        ],
    ),
    "other_aggregates": (
        "SELECT k, AVG(v) AS a, MIN(c) AS mc, LISTAGG(c) AS l FROM t GROUP BY GROUPING SETS ((k), ())",
        "k: STRING, a: INT NOT NULL, mc: CHAR(1) NOT NULL, l: CHAR(1) NOT NULL",
        [
            ("<NULL>", "30", "p", "p,q,p,q,q"),
            ("<NULL>", "40", "q", "q"),
            ("a", "15", "p", "p,q"),
            ("b", "40", "p", "p,q"),
        ],
    ),
    # one grouping set: a plain aggregation, GROUPING(k) 0
    "grouping_in_a_plain_group_by": (
        "SELECT k, GROUPING(k) AS g, COUNT(*) AS n FROM t GROUP BY k",
        "k: STRING, g: BIGINT NOT NULL, n: BIGINT NOT NULL",
        [("<NULL>", "0", "1"), ("a", "0", "2"), ("b", "0", "2")],
    ),
    # no row, no grand total: the aggregation groups by the keys and $e
    "rollup_of_no_rows": (
        "SELECT k, COUNT(*) AS n FROM t WHERE v > 100 GROUP BY ROLLUP(k)",
        "k: STRING, n: BIGINT NOT NULL",
        [],
    ),
}


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("case", list(_CASES))
def test_grouping_sets_give_flinks_rows(mode: str, case: str) -> None:
    sql, schema, rows = _CASES[case]
    assert _result(_t_env(mode), sql) == (schema, rows)


def test_the_only_empty_set_is_a_global_aggregation() -> None:
    # PyFlink 2.3.0, batch: n BIGINT NOT NULL, one row 0 (streaming it prints the same only
    # because its planner folds the filtered VALUES into a constant; millstream's streaming
    # global aggregation of no rows emits nothing, as Flink's does over a source)
    sql = "SELECT COUNT(*) AS n FROM t WHERE v > 100 GROUP BY GROUPING SETS (())"
    assert _result(_t_env("batch"), sql) == ("n: BIGINT NOT NULL", [("0",)])


def test_rows_in_order_by_grouping_id() -> None:
    # PyFlink 2.3.0, batch, in this order
    sql = "SELECT k, x, GROUPING_ID(k, x) AS g, SUM(v) AS s FROM t GROUP BY ROLLUP(k, x) ORDER BY g DESC, k, x NULLS FIRST"
    with _t_env("batch").execute_sql(sql).collect() as rows:
        printed = [tuple("<NULL>" if v is None else str(v) for v in row) for row in rows]
    assert printed == [
        ("<NULL>", "<NULL>", "3", "150"),
        ("<NULL>", "<NULL>", "1", "40"),
        ("a", "<NULL>", "1", "30"),
        ("b", "<NULL>", "1", "80"),
        ("<NULL>", "2", "0", "40"),
        ("a", "<NULL>", "0", "20"),
        ("a", "1", "0", "10"),
        ("b", "<NULL>", "0", "50"),
        ("b", "2", "0", "30"),
    ]


def test_order_by_a_grouping_function_reads_the_select_item_computing_it() -> None:
    # PyFlink 2.3.0, batch, in this order
    sql = "SELECT k, GROUPING(k) AS g, SUM(v) AS s FROM t GROUP BY ROLLUP(k) ORDER BY GROUPING(k) DESC, k"
    with _t_env("batch").execute_sql(sql).collect() as rows:
        printed = [tuple("<NULL>" if v is None else str(v) for v in row) for row in rows]
    assert printed == [("<NULL>", "1", "150"), ("<NULL>", "0", "40"), ("a", "0", "30"), ("b", "0", "80")]
    # PyFlink orders by GROUPING(k) not selected too (a hidden column); millstream refuses it
    # in one line, naming the select item to add
    unselected = "SELECT k, SUM(v) AS s FROM t GROUP BY ROLLUP(k) ORDER BY GROUPING(k) DESC, k"
    with pytest.raises(Exception, match=r"ORDER BY GROUPING\(k\): order by a select item that computes it"):
        _t_env("batch").sql_query(unselected)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        # PyFlink 2.3.0: "At line 1, column 20: Argument to GROUPING operator must be a grouped expression"
        (
            "SELECT k, GROUPING(x) AS g FROM t GROUP BY k",
            "Argument to GROUPING operator must be a grouped expression",
        ),
        # "From line 1, column 8 to line 1, column 18: GROUPING operator may only occur in an aggregate query"
        ("SELECT GROUPING(k) AS g FROM t", "GROUPING operator may only occur in an aggregate query"),
        ("SELECT GROUPING_ID(k) AS g FROM t", "GROUPING_ID operator may only occur in an aggregate query"),
        # "At line 1, column 11: Expression 'v' is not being grouped"
        ("SELECT k, v FROM t GROUP BY ROLLUP(k)", "Expression 'v' is not being grouped"),
    ],
)
def test_a_grouping_function_of_no_group_key_is_refused(sql: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        _t_env("batch").sql_query(sql)


def test_the_streaming_changelog_is_flinks(capsys: pytest.CaptureFixture[str]) -> None:
    """Each row's copies are aggregated in the order of the sets, one row after the other, so
    the changelog is Flink's change for change; over an updating input a retraction retracts
    the row from every set's group."""
    t_env = _t_env("streaming")
    t_env.execute_sql(_CASES["rollup"][0]).print()
    # PyFlink 2.3.0 prints
    assert capsys.readouterr().out.splitlines()[3:-2] == [
        "| +I |                              a |           1 |                    0 |                    0 |          10 |                    1 |",
        "| +I |                              a |      <NULL> |                    0 |                    1 |          10 |                    1 |",
        "| +I |                         <NULL> |      <NULL> |                    1 |                    3 |          10 |                    1 |",
        "| +I |                              a |      <NULL> |                    0 |                    0 |          20 |                    1 |",
        "| -U |                              a |      <NULL> |                    0 |                    1 |          10 |                    1 |",
        "| +U |                              a |      <NULL> |                    0 |                    1 |          30 |                    2 |",
        "| -U |                         <NULL> |      <NULL> |                    1 |                    3 |          10 |                    1 |",
        "| +U |                         <NULL> |      <NULL> |                    1 |                    3 |          30 |                    2 |",
        "| +I |                              b |           2 |                    0 |                    0 |          30 |                    1 |",
        "| +I |                              b |      <NULL> |                    0 |                    1 |          30 |                    1 |",
        "| -U |                         <NULL> |      <NULL> |                    1 |                    3 |          30 |                    2 |",
        "| +U |                         <NULL> |      <NULL> |                    1 |                    3 |          60 |                    3 |",
        "| +I |                         <NULL> |           2 |                    0 |                    0 |          40 |                    1 |",
        "| +I |                         <NULL> |      <NULL> |                    0 |                    1 |          40 |                    1 |",
        "| -U |                         <NULL> |      <NULL> |                    1 |                    3 |          60 |                    3 |",
        "| +U |                         <NULL> |      <NULL> |                    1 |                    3 |         100 |                    4 |",
        "| +I |                              b |      <NULL> |                    0 |                    0 |          50 |                    1 |",
        "| -U |                              b |      <NULL> |                    0 |                    1 |          30 |                    1 |",
        "| +U |                              b |      <NULL> |                    0 |                    1 |          80 |                    2 |",
        "| -U |                         <NULL> |      <NULL> |                    1 |                    3 |         100 |                    4 |",
        "| +U |                         <NULL> |      <NULL> |                    1 |                    3 |         150 |                    5 |",
    ]
    t_env.execute_sql(
        "SELECT k, SUM(n) AS total, GROUPING(k) AS g FROM (SELECT k, x, COUNT(*) AS n FROM t GROUP BY k, x) GROUP BY ROLLUP(k)"
    ).print()
    assert capsys.readouterr().out.splitlines()[3:-2] == [
        "| +I |                              a |                    1 |                    0 |",
        "| +I |                         <NULL> |                    1 |                    1 |",
        "| -U |                              a |                    1 |                    0 |",
        "| +U |                              a |                    2 |                    0 |",
        "| -U |                         <NULL> |                    1 |                    1 |",
        "| +U |                         <NULL> |                    2 |                    1 |",
        "| +I |                              b |                    1 |                    0 |",
        "| -U |                         <NULL> |                    2 |                    1 |",
        "| +U |                         <NULL> |                    3 |                    1 |",
        "| +I |                         <NULL> |                    1 |                    0 |",
        "| -U |                         <NULL> |                    3 |                    1 |",
        "| +U |                         <NULL> |                    4 |                    1 |",
        "| -U |                              b |                    1 |                    0 |",
        "| +U |                              b |                    2 |                    0 |",
        "| -U |                         <NULL> |                    4 |                    1 |",
        "| +U |                         <NULL> |                    5 |                    1 |",
    ]


# -- filesystem tables: the Expand on the columnar scan's Arrow batches --------------------------------


def _rows_of_file() -> list[dict[str, Any]]:
    """60 rows, k NULL in a quarter of them, x NULL in a seventh."""
    rows = []
    for i in range(60):
        k = ["ann", "bob", None, "cy"][i % 4]
        rows.append({"k": k, "x": None if i % 7 == 0 else i % 3, "v": (i * 11) % 50, "c": "pq"[i % 2]})
    return rows


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory = tmp_path_factory.mktemp("grouping_sets")
    rows = _rows_of_file()
    with open(directory / "ev.json", "w") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n")
    with open(directory / "ev.csv", "w") as f:
        for r in rows:
            f.write(",".join("" if r[k] is None else str(r[k]) for k in ("k", "x", "v", "c")) + "\n")
    schema = pa.schema([("k", pa.string()), ("x", pa.int32()), ("v", pa.int32()), ("c", pa.string())])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), directory / "ev.parquet", row_group_size=16)
    return directory


_OPTIONS = {"csv": ", 'csv.null-literal' = ''", "json": "", "parquet": ""}


def _file_env(files: Path, mode: str, fmt: str, columnar: bool) -> TableEnvironment:
    t_env = _t_env(mode, columnar)
    t_env.execute_sql(
        f"CREATE TABLE ev (k STRING, x INT, v INT, c STRING) WITH ('connector' = 'filesystem', "
        f"'path' = '{files / ('ev.' + fmt)}', 'format' = '{fmt}'{_OPTIONS[fmt]})"
    )
    return t_env


_FILE_CUBE = "SELECT k, x, GROUPING_ID(k, x) AS g, COUNT(*) AS n, SUM(v) AS s, MAX(x) AS mx FROM ev GROUP BY CUBE(k, x)"
# PyFlink 2.3.0, batch and streaming, CSV and JSON alike
_FILE_CUBE_ROWS = [
    ("<NULL>", "0", "0", "4", "138", "0"),
    ("<NULL>", "0", "2", "17", "527", "0"),
    ("<NULL>", "1", "0", "5", "120", "1"),
    ("<NULL>", "1", "2", "17", "416", "1"),
    ("<NULL>", "2", "0", "4", "76", "2"),
    ("<NULL>", "2", "2", "17", "355", "2"),
    ("<NULL>", "<NULL>", "0", "2", "16", "<NULL>"),
    ("<NULL>", "<NULL>", "1", "15", "350", "2"),
    ("<NULL>", "<NULL>", "2", "9", "172", "<NULL>"),
    ("<NULL>", "<NULL>", "3", "60", "1470", "2"),
    ("ann", "0", "0", "4", "120", "0"),
    ("ann", "1", "0", "4", "132", "1"),
    ("ann", "2", "0", "4", "94", "2"),
    ("ann", "<NULL>", "0", "3", "24", "<NULL>"),
    ("ann", "<NULL>", "1", "15", "370", "2"),
    ("bob", "0", "0", "4", "134", "0"),
    ("bob", "1", "0", "4", "86", "1"),
    ("bob", "2", "0", "5", "95", "2"),
    ("bob", "<NULL>", "0", "2", "70", "<NULL>"),
    ("bob", "<NULL>", "1", "15", "385", "2"),
    ("cy", "0", "0", "5", "135", "0"),
    ("cy", "1", "0", "4", "78", "1"),
    ("cy", "2", "0", "4", "90", "2"),
    ("cy", "<NULL>", "0", "2", "62", "<NULL>"),
    ("cy", "<NULL>", "1", "15", "365", "2"),
]
_FILE_ROLLUP = "SELECT k, c, GROUPING(c) AS g, SUM(v) AS s FROM ev WHERE v > 10 GROUP BY ROLLUP(k, c) HAVING SUM(v) > 100"
_FILE_ROLLUP_ROWS = [
    ("<NULL>", "<NULL>", "1", "1410"),
    ("<NULL>", "<NULL>", "1", "330"),
    ("<NULL>", "p", "0", "330"),
    ("ann", "<NULL>", "1", "360"),
    ("ann", "p", "0", "360"),
    ("bob", "<NULL>", "1", "372"),
    ("bob", "q", "0", "372"),
    ("cy", "<NULL>", "1", "348"),
    ("cy", "q", "0", "348"),
]
# PyFlink 2.3.0's Expand of the CUBE (optimized execution plan; its GroupAggregate reads MAX(x_0))
_FLINK_EXPAND = "Expand(projects=[{k, x, v, 0 AS $e, x AS x_0}, {k, null AS x, v, 1 AS $e, x AS x_0}, {null AS k, x, v, 2 AS $e, x AS x_0}, {null AS k, null AS x, v, 3 AS $e, x AS x_0}])"


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_the_expand_runs_on_the_scans_arrow_batches(files: Path, mode: str, fmt: str) -> None:
    """The Expand over a filesystem table expands the columnar scan's Arrow batches (the scan
    alone, its projection pushed into it; or under a filter), with Flink's rows, the same as on
    rows (``table.exec.columnar.enabled`` false); PyFlink's Parquet format is not on its class
    path, the other two print the same rows."""
    t_env = _file_env(files, mode, fmt, columnar=True)
    for sql in (_FILE_CUBE, _FILE_ROLLUP):
        plan = t_env.explain_sql(sql)
        execution = plan[plan.index("== Optimized Execution Plan ==") :]
        expand = next(line for line in execution.splitlines() if "Expand(" in line)
        assert expand.endswith(", columnar=[arrow])"), execution
    assert expand.split("+- ")[-1].startswith(
        "Expand(projects=[{k, c, v, 0 AS $e}, {k, null AS c, v, 1 AS $e}, {null AS k, null AS c, v, 3 AS $e}]"
    )
    cube_plan = t_env.explain_sql(_FILE_CUBE)
    assert _FLINK_EXPAND.removesuffix(")") + ", columnar=[arrow])" in cube_plan
    assert "GroupAggregate(groupBy=[k, x, $e]" in cube_plan or "HashAggregate(groupBy=[k, x, $e]" in cube_plan
    rows_env = _file_env(files, mode, fmt, columnar=False)
    for sql, expected in ((_FILE_CUBE, _FILE_CUBE_ROWS), (_FILE_ROLLUP, _FILE_ROLLUP_ROWS)):
        _, rows = _result(t_env, sql)
        assert rows == expected
        assert _result(rows_env, sql)[1] == expected


# -- window aggregation of grouping sets -------------------------------------------------------------


def _bids(directory: Path) -> Path:
    """30 bids two seconds apart from 10:00:00, k NULL in a third of them, x NULL in a fifth."""
    lines = []
    for i in range(30):
        k = ["ann", "bob", ""][i % 3]
        x = "" if i % 5 == 0 else str(i % 2)
        lines.append(f"{k},{x},{i},2024-01-01 10:00:{i * 2:02d}.000")
    path = directory / "bid.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _bid_env(directory: Path, mode: str, columnar: bool) -> TableEnvironment:
    t_env = _t_env(mode, columnar)
    t_env.get_config().set("table.local-time-zone", "UTC")
    t_env.execute_sql(
        "CREATE TABLE bid (k STRING, x INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{_bids(directory)}', 'format' = 'csv', 'csv.null-literal' = '')"
    )
    return t_env


_TUMBLE = "TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '20' SECOND))"
_WINDOW_ROLLUP = f"SELECT window_start, window_end, k, GROUPING(k) AS g, COUNT(*) AS n, SUM(v) AS s FROM {_TUMBLE} GROUP BY window_start, window_end, ROLLUP(k)"
_W0, _W1, _W2, _W3 = (
    "2024-01-01 10:00:00.000",
    "2024-01-01 10:00:20.000",
    "2024-01-01 10:00:40.000",
    "2024-01-01 10:01:00.000",
)
# PyFlink 2.3.0, batch and streaming, as print() shows them: window_start TIMESTAMP(3) NOT NULL,
# window_end TIMESTAMP(3) NOT NULL, k STRING, g BIGINT NOT NULL, n BIGINT NOT NULL, s INT
_WINDOW_ROLLUP_ROWS = [
    (_W0, _W1, "<NULL>", "0", "3", "15"),
    (_W0, _W1, "<NULL>", "1", "10", "45"),
    (_W0, _W1, "ann", "0", "4", "18"),
    (_W0, _W1, "bob", "0", "3", "12"),
    (_W1, _W2, "<NULL>", "0", "3", "42"),
    (_W1, _W2, "<NULL>", "1", "10", "145"),
    (_W1, _W2, "ann", "0", "3", "45"),
    (_W1, _W2, "bob", "0", "4", "58"),
    (_W2, _W3, "<NULL>", "0", "4", "98"),
    (_W2, _W3, "<NULL>", "1", "10", "245"),
    (_W2, _W3, "ann", "0", "3", "72"),
    (_W2, _W3, "bob", "0", "3", "75"),
]
_WINDOW_SETS = "SELECT window_start, k, x, GROUPING_ID(k, x) AS g, COUNT(*) AS n, MAX(x) AS mx FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end, GROUPING SETS ((k, x), (x), ())"
# PyFlink 2.3.0: 73 rows, these in the first window
_WINDOW_SETS_FIRST = [
    ("2024-01-01 09:59:50.000", "<NULL>", "0", "0", "1", "0"),
    ("2024-01-01 09:59:50.000", "<NULL>", "0", "2", "2", "0"),
    ("2024-01-01 09:59:50.000", "<NULL>", "1", "2", "2", "1"),
    ("2024-01-01 09:59:50.000", "<NULL>", "<NULL>", "2", "1", "<NULL>"),
    ("2024-01-01 09:59:50.000", "<NULL>", "<NULL>", "3", "5", "1"),
    ("2024-01-01 09:59:50.000", "ann", "1", "0", "1", "1"),
    ("2024-01-01 09:59:50.000", "ann", "<NULL>", "0", "1", "<NULL>"),
    ("2024-01-01 09:59:50.000", "bob", "0", "0", "1", "0"),
    ("2024-01-01 09:59:50.000", "bob", "1", "0", "1", "1"),
]
# PyFlink 2.3.0's plan: the Expand of the window aggregation's local phase, the time column last
_FLINK_WINDOW_EXPANDS = (
    "Expand(projects=[{k, v, 0 AS $e, ts}, {null AS k, v, 1 AS $e, ts}])",
    "Expand(projects=[{k, x, 0 AS $e, x AS x_0, ts}, {null AS k, x, 2 AS $e, x AS x_0, ts}, {null AS k, null AS x, 3 AS $e, x AS x_0, ts}])",
)


@pytest.mark.parametrize("mode", _MODES)
def test_a_window_aggregation_of_grouping_sets(tmp_path: Path, mode: str) -> None:
    """``GROUP BY window_start, window_end, ROLLUP(k)`` over a window TVF is a window
    aggregation (each window emitted once, when it ends) per set, over an Expand carrying the
    time column: Flink's plan, rows and Expand line, on the scan's Arrow batches and on rows."""
    t_env = _bid_env(tmp_path, mode, columnar=True)
    rows_env = _bid_env(tmp_path, mode, columnar=False)
    for sql, expand in zip((_WINDOW_ROLLUP, _WINDOW_SETS), _FLINK_WINDOW_EXPANDS, strict=True):
        plan = t_env.explain_sql(sql)
        assert expand.removesuffix(")") + ", columnar=[arrow])" in plan
        assert "WindowAggregate(groupBy=[k" in plan and "GroupAggregate" not in plan
    assert _result(t_env, _WINDOW_ROLLUP) == (
        "window_start: TIMESTAMP(3) NOT NULL, window_end: TIMESTAMP(3) NOT NULL, k: STRING, g: BIGINT NOT NULL, n: BIGINT NOT NULL, s: INT",
        _WINDOW_ROLLUP_ROWS,
    )
    assert _result(rows_env, _WINDOW_ROLLUP)[1] == _WINDOW_ROLLUP_ROWS
    rows = _result(t_env, _WINDOW_SETS)[1]
    assert len(rows) == 73 and rows[:9] == _WINDOW_SETS_FIRST
    assert _result(rows_env, _WINDOW_SETS)[1] == rows


@pytest.mark.parametrize("mode", _MODES)
def test_window_columns_inside_the_sets_group_as_columns(tmp_path: Path, mode: str) -> None:
    t_env = _bid_env(tmp_path, mode, columnar=True)
    # a repeated set per window: PyFlink 2.3.0 prints each group twice, the whole window's 10 twice too
    repeated = f"SELECT window_start, k, COUNT(*) AS n FROM {_TUMBLE} GROUP BY window_start, window_end, GROUPING SETS ((k), (k), ())"
    expected = []
    for start, counts in ((_W0, ("3", "4", "3")), (_W1, ("3", "3", "4")), (_W2, ("4", "3", "3"))):
        expected += [
            (start, "<NULL>", "10"),
            *[(start, k, n) for k, n in zip(("<NULL>", "ann", "bob"), counts) for _ in (0, 1)],
        ]
    assert _result(t_env, repeated)[1] == sorted(expected)
    # window_start / window_end in a set, not beside: PyFlink 2.3.0 groups the TVF's rows by them
    # as by any column (a GroupAggregate over the Expand), window_start nullable, a grand total
    inside = f"SELECT window_start, k, COUNT(*) AS n FROM {_TUMBLE} GROUP BY GROUPING SETS ((window_start, window_end, k), ())"
    assert _result(t_env, inside) == (
        "window_start: TIMESTAMP(3), k: STRING, n: BIGINT NOT NULL",
        [
            (_W0, "<NULL>", "3"),
            (_W0, "ann", "4"),
            (_W0, "bob", "3"),
            (_W1, "<NULL>", "3"),
            (_W1, "ann", "3"),
            (_W1, "bob", "4"),
            (_W2, "<NULL>", "4"),
            (_W2, "ann", "3"),
            (_W2, "bob", "3"),
            ("<NULL>", "<NULL>", "30"),
        ],
    )
    # window_end in one set only: PyFlink 2.3.0 groups by the columns too (window_end nullable)
    one = f"SELECT window_start, window_end, k, COUNT(*) AS n FROM {_TUMBLE} GROUP BY window_start, GROUPING SETS ((window_end, k), ())"
    totals: list[tuple[str, ...]] = []
    for start, end, counts in (
        (_W0, _W1, ("3", "4", "3")),
        (_W1, _W2, ("3", "3", "4")),
        (_W2, _W3, ("4", "3", "3")),
    ):
        totals += [(start, end, k, n) for k, n in zip(("<NULL>", "ann", "bob"), counts)] + [
            (start, "<NULL>", "<NULL>", "10")
        ]
    assert _result(t_env, one) == (
        "window_start: TIMESTAMP(3) NOT NULL, window_end: TIMESTAMP(3), k: STRING, n: BIGINT NOT NULL",
        sorted(totals),
    )
    # a legacy group window: PyFlink 2.3.0 fails ("Unsupported call: $TUMBLE(TIMESTAMP(3) *ROWTIME*,
    # INTERVAL SECOND(3) NOT NULL)"); millstream refuses it in one line
    legacy = (
        "SELECT k, COUNT(*) AS n FROM bid GROUP BY GROUPING SETS ((k), ()), TUMBLE(ts, INTERVAL '20' SECOND)"
    )
    with pytest.raises(
        Exception, match=r"GROUPING SETS, ROLLUP and CUBE with a group window \(GROUP BY TUMBLE"
    ):
        t_env.sql_query(legacy)
