# ruff: noqa: E501 - the statements read best on one line
"""A streaming over aggregation ordered by a column that is no time attribute runs as Flink
2.3's (``runtime/over_nontime.py``: ``NonTimeRangeUnboundedPrecedingFunction`` and
``NonTimeRowsUnboundedPrecedingFunction``): each row emitted with the aggregates of the rows
ordered before it (RANGE: and its peers), the rows after it updated (``-U`` / ``+U``) until
one comes out unchanged, a withdrawn input row deleted (``-D``); ROW_NUMBER() numbers rows
(ROWS), RANK() and DENSE_RANK() count the rows of the range, as Flink 2.3 does. Windows
written alike are one over aggregation. What Flink refuses there is refused in its words.
Before, millstream refused every such window ("OVER windows' ordering in stream mode must be
defined on a time attribute").

Every changelog below is what PyFlink 2.3.0 printed in streaming mode at parallelism 1 for the
same statement over the same files: ``values`` (k, v: a 3, a 1, b 5, a 2, a 1, b 4, CSV),
``changelog`` (a GROUP BY count over n: x, y, x, z, y, x, CSV) and ``nulls`` (k, v, n with
NULLs, JSON lines).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value

FILES = {
    "values": ("(k STRING, v INT)", "csv", "a,3\na,1\nb,5\na,2\na,1\nb,4\n"),
    "changelog": ("(n STRING)", "csv", "x\ny\nx\nz\ny\nx\n"),
    "nulls": (
        "(k STRING, v INT, n STRING)",
        "json",
        '{"k":"a","v":3,"n":"x"}\n{"k":"a","v":null,"n":"y"}\n{"k":"a","v":1,"n":"z"}\n'
        '{"k":"a","v":3,"n":"w"}\n{"k":"a","v":null,"n":"v"}\n{"k":"b","v":2,"n":"u"}\n',
    ),
}

CHANGELOGS = [
    (
        "values",
        "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v) AS s, COUNT(*) OVER (PARTITION BY k ORDER BY v) AS c FROM s",
        [
            "+I a 3 3 1",
            "+I a 1 1 1",
            "-U a 3 3 1",
            "+U a 3 4 2",
            "+I b 5 5 1",
            "+I a 2 3 2",
            "-U a 3 4 2",
            "+U a 3 6 3",
            "-U a 1 1 1",
            "+U a 1 2 2",
            "+I a 1 2 2",
            "-U a 2 3 2",
            "+U a 2 4 3",
            "-U a 3 6 3",
            "+U a 3 7 4",
            "+I b 4 4 1",
            "-U b 5 5 1",
            "+U b 5 9 2",
        ],
    ),
    (
        "values",
        "SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM s",
        [
            "+I a 3 1",
            "+I a 1 1",
            "-U a 3 1",
            "+U a 3 2",
            "+I b 5 1",
            "+I a 2 2",
            "-U a 3 2",
            "+U a 3 3",
            "+I a 1 2",
            "-U a 2 2",
            "+U a 2 3",
            "-U a 3 3",
            "+U a 3 4",
            "+I b 4 1",
            "-U b 5 1",
            "+U b 5 2",
        ],
    ),
    (
        "values",
        "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM s",
        [
            "+I a 3 3",
            "+I a 1 1",
            "-U a 3 3",
            "+U a 3 4",
            "+I b 5 5",
            "+I a 2 3",
            "-U a 3 4",
            "+U a 3 6",
            "-U a 1 1",
            "+U a 1 2",
            "+I a 1 2",
            "-U a 2 3",
            "+U a 2 4",
            "-U a 3 6",
            "+U a 3 7",
            "+I b 4 4",
            "-U b 5 5",
            "+U b 5 9",
        ],
    ),
    (
        "values",
        "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM s",
        [
            "+I a 3 3",
            "+I a 1 1",
            "-U a 3 3",
            "+U a 3 4",
            "+I b 5 5",
            "+I a 2 3",
            "-U a 3 4",
            "+U a 3 6",
            "+I a 1 2",
            "-U a 2 3",
            "+U a 2 4",
            "-U a 3 6",
            "+U a 3 7",
            "+I b 4 4",
            "-U b 5 5",
            "+U b 5 9",
        ],
    ),
    (
        "values",
        "SELECT k, v, SUM(v) OVER (ORDER BY v) AS s FROM s",
        [
            "+I a 3 3",
            "+I a 1 1",
            "-U a 3 3",
            "+U a 3 4",
            "+I b 5 9",
            "+I a 2 3",
            "-U a 3 4",
            "+U a 3 6",
            "-U b 5 9",
            "+U b 5 11",
            "-U a 1 1",
            "+U a 1 2",
            "+I a 1 2",
            "-U a 2 3",
            "+U a 2 4",
            "-U a 3 6",
            "+U a 3 7",
            "-U b 5 11",
            "+U b 5 12",
            "+I b 4 11",
            "-U b 5 12",
            "+U b 5 16",
        ],
    ),
    (
        "changelog",
        "SELECT n, c, SUM(c) OVER (ORDER BY c) AS s, COUNT(*) OVER (ORDER BY c) AS k FROM (SELECT n, COUNT(*) AS c FROM s GROUP BY n)",
        [
            "+I x 1 1 1",
            "-U x 1 1 1",
            "+U x 1 2 2",
            "+I y 1 2 2",
            "-D x 1 2 2",
            "-U y 1 2 2",
            "+U y 1 1 1",
            "+U x 2 3 2",
            "-U y 1 1 1",
            "+U y 1 2 2",
            "+I z 1 2 2",
            "-U x 2 3 2",
            "+U x 2 4 3",
            "-D y 1 2 2",
            "-U z 1 2 2",
            "+U z 1 1 1",
            "-U x 2 4 3",
            "+U x 2 3 2",
            "-U x 2 3 2",
            "+U x 2 5 3",
            "+U y 2 5 3",
            "-D x 2 5 3",
            "-U y 2 5 3",
            "+U y 2 3 2",
            "+U x 3 6 3",
        ],
    ),
    (
        "changelog",
        "SELECT n, c, ROW_NUMBER() OVER (ORDER BY c) AS r FROM (SELECT n, COUNT(*) AS c FROM s GROUP BY n)",
        [
            "+I x 1 1",
            "+I y 1 2",
            "-D x 1 1",
            "-U y 1 2",
            "+U y 1 1",
            "+U x 2 2",
            "+I z 1 2",
            "-U x 2 2",
            "+U x 2 3",
            "-D y 1 1",
            "-U z 1 2",
            "+U z 1 1",
            "-U x 2 3",
            "+U x 2 2",
            "+U y 2 3",
            "-D x 2 2",
            "-U y 2 3",
            "+U y 2 2",
            "+U x 3 3",
        ],
    ),
    (
        "nulls",
        "SELECT k, v, n, RANK() OVER (PARTITION BY k ORDER BY v) AS r, DENSE_RANK() OVER (PARTITION BY k ORDER BY v) AS d FROM s",
        [
            "+I a 3 x 1 1",
            "+I a <NULL> y 1 1",
            "-U a 3 x 1 1",
            "+U a 3 x 2 2",
            "+I a 1 z 2 2",
            "-U a 3 x 2 2",
            "+U a 3 x 3 3",
            "-U a 3 x 3 3",
            "+U a 3 x 4 4",
            "+I a 3 w 4 4",
            "-U a <NULL> y 1 1",
            "+U a <NULL> y 2 2",
            "+I a <NULL> v 2 2",
            "-U a 1 z 2 2",
            "+U a 1 z 3 3",
            "-U a 3 x 4 4",
            "+U a 3 x 5 5",
            "-U a 3 w 4 4",
            "+U a 3 w 5 5",
            "+I b 2 u 1 1",
        ],
    ),
    (
        "nulls",
        "SELECT k, v, n, MAX(n) OVER (PARTITION BY k ORDER BY v) AS m, MIN(n) OVER (PARTITION BY k ORDER BY v) AS mi FROM s",
        [
            "+I a 3 x x x",
            "+I a <NULL> y y y",
            "-U a 3 x x x",
            "+U a 3 x y x",
            "+I a 1 z z y",
            "-U a 3 x y x",
            "+U a 3 x z x",
            "-U a 3 x z x",
            "+U a 3 x z w",
            "+I a 3 w z w",
            "-U a <NULL> y y y",
            "+U a <NULL> y y v",
            "+I a <NULL> v y v",
            "-U a 1 z z y",
            "+U a 1 z z v",
            "-U a 3 x z w",
            "+U a 3 x z v",
            "-U a 3 w z w",
            "+U a 3 w z v",
            "+I b 2 u u u",
        ],
    ),
    (
        "nulls",
        "SELECT k, v, n, COUNT(DISTINCT n) OVER (PARTITION BY k ORDER BY v) AS l FROM s",
        [
            "+I a 3 x 1",
            "+I a <NULL> y 1",
            "-U a 3 x 1",
            "+U a 3 x 2",
            "+I a 1 z 2",
            "-U a 3 x 2",
            "+U a 3 x 3",
            "-U a 3 x 3",
            "+U a 3 x 4",
            "+I a 3 w 4",
            "-U a <NULL> y 1",
            "+U a <NULL> y 2",
            "+I a <NULL> v 2",
            "-U a 1 z 2",
            "+U a 1 z 3",
            "-U a 3 x 4",
            "+U a 3 x 5",
            "-U a 3 w 4",
            "+U a 3 w 5",
            "+I b 2 u 1",
        ],
    ),
    (
        "nulls",
        "SELECT k, v, n, AVG(v) OVER (PARTITION BY k ORDER BY v) AS a FROM s",
        [
            "+I a 3 x 3",
            "+I a <NULL> y <NULL>",
            "+I a 1 z 1",
            "-U a 3 x 3",
            "+U a 3 x 2",
            "-U a 3 x 2",
            "+U a 3 x 2",
            "+I a 3 w 2",
            "+I a <NULL> v <NULL>",
            "+I b 2 u 2",
        ],
    ),
    (
        "nulls",
        "SELECT k, c, SUM(c) OVER (PARTITION BY k ORDER BY c) AS a FROM (SELECT k, n, COUNT(*) AS c FROM s GROUP BY k, n)",
        [
            "+I a 1 1",
            "-U a 1 1",
            "+U a 1 2",
            "+I a 1 2",
            "-U a 1 2",
            "+U a 1 3",
            "-U a 1 2",
            "+U a 1 3",
            "+I a 1 3",
            "-U a 1 3",
            "+U a 1 4",
            "-U a 1 3",
            "+U a 1 4",
            "-U a 1 3",
            "+U a 1 4",
            "+I a 1 4",
            "-U a 1 4",
            "+U a 1 5",
            "-U a 1 4",
            "+U a 1 5",
            "-U a 1 4",
            "+U a 1 5",
            "-U a 1 4",
            "+U a 1 5",
            "+I a 1 5",
            "+I b 1 1",
        ],
    ),
    (
        "nulls",
        "SELECT k, n, SUM(v) OVER (PARTITION BY k ORDER BY n) AS a FROM s",
        [
            "+I a x 3",
            "+I a y 3",
            "+I a z 4",
            "+I a w 3",
            "-U a x 3",
            "+U a x 6",
            "-U a y 3",
            "+U a y 6",
            "-U a z 4",
            "+U a z 7",
            "+I a v <NULL>",
            "+I b u 2",
        ],
    ),
]

REFUSED = [
    # PyFlink 2.3.0's messages (explain_sql)
    (
        "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM s",
        "Non-time attribute sort is not supported for bounded OVER window.",
    ),
    (
        "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY v DESC) FROM s",
        "The window can only be ordered in ASCENDING mode.",
    ),
    (
        "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY v, k) FROM s",
        "The window can only be ordered by a single time column.",
    ),
    (
        "SELECT k, SUM(v) OVER (PARTITION BY k) FROM s",
        "The window can only be ordered by a single time column.",
    ),
    # PyFlink 2.3.0 fails the job: "Unmaterialized BinaryRawValueData cannot be compared."
    (
        "SELECT k, LAG(v) OVER (PARTITION BY k ORDER BY v) FROM s",
        "LAG Function is not supported in stream mode (BATCH runs it)",
    ),
]


def _environment(tmp_path: Path, source: str) -> TableEnvironment:
    columns, file_format, text = FILES[source]
    (tmp_path / f"{source}.{file_format}").write_text(text)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE s {columns} WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/{source}.{file_format}', 'format' = '{file_format}')"
    )
    return t_env


@pytest.mark.parametrize(("source", "query", "changelog"), CHANGELOGS, ids=[q for _, q, _ in CHANGELOGS])
def test_the_changelog_is_pyflinks(tmp_path: Path, source: str, query: str, changelog: list[str]) -> None:
    table = _environment(tmp_path, source).sql_query(query)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        printed = [
            " ".join(
                [
                    row.get_row_kind().short_string(),
                    *(format_value(t, v) for t, v in zip(types, row, strict=True)),
                ]
            )
            for row in rows
        ]
    assert printed == changelog


@pytest.mark.parametrize(("query", "message"), REFUSED, ids=[m for _, m in REFUSED])
def test_what_flink_refuses_is_refused_in_its_words(tmp_path: Path, query: str, message: str) -> None:
    with pytest.raises(ValueError) as failure:
        _environment(tmp_path, "values").explain_sql(query)
    assert str(failure.value) == message
