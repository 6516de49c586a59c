# ruff: noqa: E501 - PyFlink's printed tables and the statements are pasted as they ran
"""MATCH_RECOGNIZE in SQL (``table/sql/match_recognize.py`` -> ``planner/match.py`` ->
``runtime/match_recognize.py``) against PyFlink 2.3.0: each statement below ran on PyFlink
2.3.0 in streaming mode over the same rows (a CSV filesystem table with a watermark of one
second, parallelism 1), and the expected text is what its ``TableResult.print()`` printed, or
the message its error carried.

The tables are the examples of Flink's documentation (``Ticker``: the V shape; ``Greedy``:
greedy and reluctant quantifiers; ``Skips``: the AFTER MATCH strategies; ``Avgs``: aggregates;
``Drops``: WITHIN), and ``Q`` / ``S`` / ``N`` / ``P``: ids with values, to tell the
quantifiers, navigation and partitioning apart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.planner.match import MatchRecognize
from millstream.testing.operator_harness import OperatorHarness

_DOCS = "(symbol STRING, tax BIGINT, price BIGINT, rowtime TIMESTAMP(3), {watermark})"
_IDS = "(id INT, v INT, ts TIMESTAMP(3), {watermark})"
_VALUES = [1, 2, 5, 6, 7, 3, 8, 9, 70, 4, 5, 90, 2, 6, 6, 6, 1]
_KEYED = [
    ("a", 1, 1), ("a", 1, 9), ("b", 1, 2), ("a", 2, 3), ("a", 1, 4), ("b", 1, 8),
    ("a", 1, 2), ("a", 2, 7), ("b", 1, 1), ("a", 1, 8), ("a", 2, 1), ("b", 1, 9),
]  # fmt: skip
TABLES: dict[str, tuple[str, list[str]]] = {
    "Ticker": (
        "(symbol STRING, rowtime TIMESTAMP(3), price BIGINT, tax BIGINT, {watermark})",
        [
            f"ACME,2011-04-01 10:00:{s:02d},{p},{t}"
            for s, (p, t) in enumerate(
                [(12, 1), (17, 2), (19, 1), (21, 3), (25, 2), (18, 1), (15, 1), (14, 2), (24, 2), (25, 2), (19, 1)]
            )
        ],
    ),
    "Greedy": (
        _DOCS,
        [f"XYZ,{t},{p},2018-09-17 10:00:{s:02d}" for s, (t, p) in
         enumerate([(1, 10), (2, 11), (1, 12), (2, 13), (1, 14), (2, 16)], start=2)],
    ),
    "Skips": (
        _DOCS,
        [f"XYZ,{t},{p},2018-09-17 10:00:{s:02d}" for s, (t, p) in
         enumerate([(1, 7), (2, 9), (1, 10), (2, 5), (2, 10), (2, 7), (2, 14)], start=1)],
    ),
    "Avgs": (
        _DOCS,
        [f"ACME,{t},{p},2011-04-01 10:00:{s:02d}" for s, (t, p) in
         enumerate([(1, 12), (2, 17), (1, 13), (3, 16), (2, 25), (1, 2), (1, 4), (2, 10), (2, 15), (2, 25),
                    (1, 25), (1, 30)])],
    ),
    "Drops": (
        _DOCS,
        [f"ACME,{t},{p},2011-04-01 {10 + m // 60}:{m % 60:02d}:00" for m, (t, p) in
         zip(range(0, 220, 20), [(1, 20), (2, 17), (1, 18), (3, 11), (2, 14), (1, 9), (1, 15), (2, 14), (2, 24),
                                 (2, 1), (1, 19)], strict=True)],
    ),
    "Q": (_IDS, [f"{i + 1},{v},2024-01-01 00:00:{i:02d}" for i, v in enumerate(_VALUES)]),
    "S": (_IDS, [f"{i + 1},{v},2024-01-01 00:00:{i:02d}" for i, v in enumerate(_VALUES)]),
    "N": (
        "(id INT NOT NULL, v INT, ts TIMESTAMP(3), {watermark})",
        [f"{i + 1},{v},2024-01-01 00:00:{i:02d}" for i, v in enumerate(_VALUES)],
    ),
    "P": (
        "(k1 STRING, k2 INT, id INT NOT NULL, v INT, ts TIMESTAMP(3), pt AS PROCTIME(), {watermark})",
        [f"{k1},{k2},{i + 1},{v},2024-01-01 00:00:{i // 2:02d}" for i, (k1, k2, v) in enumerate(_KEYED)],
    ),
}  # fmt: skip


def _environment(tmp_path: Path, batch: bool = False) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for name, (columns, rows) in TABLES.items():
        path = tmp_path / f"{name}.csv"
        path.write_text("\n".join(rows) + "\n")
        watermark = columns.format(watermark="WATERMARK FOR {t} AS {t} - INTERVAL '1' SECOND")
        time = "rowtime" if "rowtime" in columns else "ts"
        t_env.execute_sql(
            f"CREATE TABLE {name} {watermark.format(t=time)} "
            f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
        )
    return t_env


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    return _environment(tmp_path_factory.mktemp("match"))


def _printed(t_env: TableEnvironment, sql: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    t_env.execute_sql(sql).print()
    return capsys.readouterr().out


RESULTS = [
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B* C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        """\
+----+--------------------------------+----------------------+
| op |                         symbol |            lastPrice |
+----+--------------------------------+----------------------+
| +I |                            XYZ |                   16 |
+----+--------------------------------+----------------------+
1 row in set
""",
        id="greedy-Bstar",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B*? C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        """\
+----+--------------------------------+----------------------+
| op |                         symbol |            lastPrice |
+----+--------------------------------+----------------------+
| +I |                            XYZ |                   13 |
| +I |                            XYZ |                   16 |
+----+--------------------------------+----------------------+
2 rows in set
""",
        id="reluctant-Bstarq",
    ),
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        """\
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| op |                         symbol |             sumPrice |               startTime |                 endTime |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| +I |                            XYZ |                   26 | 2018-09-17 10:00:01.000 | 2018-09-17 10:00:04.000 |
| +I |                            XYZ |                   17 | 2018-09-17 10:00:05.000 | 2018-09-17 10:00:07.000 |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
2 rows in set
""",
        id="skip-past",
    ),
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        """\
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| op |                         symbol |             sumPrice |               startTime |                 endTime |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| +I |                            XYZ |                   26 | 2018-09-17 10:00:01.000 | 2018-09-17 10:00:04.000 |
| +I |                            XYZ |                   24 | 2018-09-17 10:00:02.000 | 2018-09-17 10:00:05.000 |
| +I |                            XYZ |                   25 | 2018-09-17 10:00:03.000 | 2018-09-17 10:00:06.000 |
| +I |                            XYZ |                   22 | 2018-09-17 10:00:04.000 | 2018-09-17 10:00:07.000 |
| +I |                            XYZ |                   17 | 2018-09-17 10:00:05.000 | 2018-09-17 10:00:07.000 |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
5 rows in set
""",
        id="skip-next",
    ),
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime ONE ROW PER MATCH AFTER MATCH SKIP TO LAST A PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        """\
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| op |                         symbol |             sumPrice |               startTime |                 endTime |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| +I |                            XYZ |                   26 | 2018-09-17 10:00:01.000 | 2018-09-17 10:00:04.000 |
| +I |                            XYZ |                   25 | 2018-09-17 10:00:03.000 | 2018-09-17 10:00:06.000 |
| +I |                            XYZ |                   17 | 2018-09-17 10:00:05.000 | 2018-09-17 10:00:07.000 |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
3 rows in set
""",
        id="skip-last-A",
    ),
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime ONE ROW PER MATCH AFTER MATCH SKIP TO FIRST C PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        """\
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| op |                         symbol |             sumPrice |               startTime |                 endTime |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| +I |                            XYZ |                   26 | 2018-09-17 10:00:01.000 | 2018-09-17 10:00:04.000 |
| +I |                            XYZ |                   22 | 2018-09-17 10:00:04.000 | 2018-09-17 10:00:07.000 |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
2 rows in set
""",
        id="skip-first-C",
    ),
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime ONE ROW PER MATCH PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        """\
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| op |                         symbol |             sumPrice |               startTime |                 endTime |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
| +I |                            XYZ |                   26 | 2018-09-17 10:00:01.000 | 2018-09-17 10:00:04.000 |
| +I |                            XYZ |                   24 | 2018-09-17 10:00:02.000 | 2018-09-17 10:00:05.000 |
| +I |                            XYZ |                   25 | 2018-09-17 10:00:03.000 | 2018-09-17 10:00:06.000 |
| +I |                            XYZ |                   22 | 2018-09-17 10:00:04.000 | 2018-09-17 10:00:07.000 |
| +I |                            XYZ |                   17 | 2018-09-17 10:00:05.000 | 2018-09-17 10:00:07.000 |
+----+--------------------------------+----------------------+-------------------------+-------------------------+
5 rows in set
""",
        id="default-skip",
    ),
    pytest.param(
        "SELECT * FROM Avgs MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime MEASURES FIRST(A.rowtime) AS start_tstamp, LAST(A.rowtime) AS end_tstamp, AVG(A.price) AS avgPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A+ B) DEFINE A AS AVG(A.price) < 15) MR",
        """\
+----+--------------------------------+-------------------------+-------------------------+----------------------+
| op |                         symbol |            start_tstamp |              end_tstamp |             avgPrice |
+----+--------------------------------+-------------------------+-------------------------+----------------------+
| +I |                           ACME | 2011-04-01 10:00:00.000 | 2011-04-01 10:00:03.000 |                   14 |
| +I |                           ACME | 2011-04-01 10:00:05.000 | 2011-04-01 10:00:10.000 |                   13 |
+----+--------------------------------+-------------------------+-------------------------+----------------------+
2 rows in set
""",
        id="avg",
    ),
    pytest.param(
        "SELECT * FROM Drops MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.rowtime AS dropTime, A.price - C.price AS dropDiff ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B* C) WITHIN INTERVAL '1' HOUR DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10)",
        """\
+----+--------------------------------+-------------------------+----------------------+
| op |                         symbol |                dropTime |             dropDiff |
+----+--------------------------------+-------------------------+----------------------+
| +I |                           ACME | 2011-04-01 13:00:00.000 |                   13 |
+----+--------------------------------+-------------------------+----------------------+
1 row in set
""",
        id="within",
    ),
    pytest.param(
        "SELECT * FROM Drops MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.rowtime AS dropTime, A.price - C.price AS dropDiff ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B* C) DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10)",
        """\
+----+--------------------------------+-------------------------+----------------------+
| op |                         symbol |                dropTime |             dropDiff |
+----+--------------------------------+-------------------------+----------------------+
| +I |                           ACME | 2011-04-01 11:40:00.000 |                   11 |
| +I |                           ACME | 2011-04-01 13:00:00.000 |                   14 |
+----+--------------------------------+-------------------------+----------------------+
2 rows in set
""",
        id="no-within",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A C) DEFINE C AS C.price > PREV(A.price, 0))",
        """\
+----+--------------------------------+----------------------+
| op |                         symbol |            lastPrice |
+----+--------------------------------+----------------------+
| +I |                            XYZ |                   11 |
| +I |                            XYZ |                   13 |
| +I |                            XYZ |                   16 |
+----+--------------------------------+----------------------+
3 rows in set
""",
        id="prev0",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES price AS p, FIRST(price) AS fp, LAST(price, 1) AS lp1, FIRST(A.price, 1) AS fa1, COUNT(*) AS cnt, COUNT(A.price) AS ca, SUM(price) AS s, MAX(B.tax) AS mb, MIN(price * tax) AS mpt, MATCH_PROCTIME() IS NULL AS pt ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        """\
+----+--------------------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+--------+
| op |                         symbol |                    p |                   fp |                  lp1 |                  fa1 |                  cnt |                   ca |                    s |                   mb |                  mpt |     pt |
+----+--------------------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+--------+
| +I |                            XYZ |                   16 |                   11 |                   14 |               <NULL> |                    5 |                    1 |                   66 |                    2 |                   12 |  FALSE |
+----+--------------------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+----------------------+--------+
1 row in set
""",
        id="unqualified-measure",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |           3 |           3 |                    1 |           4 |
| +I |           6 |           7 |           7 |                    1 |           8 |
| +I |          10 |          11 |          11 |                    1 |          12 |
| +I |          13 |          14 |          14 |                    1 |          15 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-B-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |      <NULL> |      <NULL> |                    0 |           3 |
| +I |           6 |      <NULL> |      <NULL> |                    0 |           7 |
| +I |          10 |      <NULL> |      <NULL> |                    0 |          11 |
| +I |          13 |      <NULL> |      <NULL> |                    0 |          14 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-Bq-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B* C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-Bstar-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B*? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |      <NULL> |      <NULL> |                    0 |           3 |
| +I |           6 |      <NULL> |      <NULL> |                    0 |           7 |
| +I |          10 |      <NULL> |      <NULL> |                    0 |          11 |
| +I |          13 |      <NULL> |      <NULL> |                    0 |          14 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-Bstarq-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-Bplus-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |           3 |           3 |                    1 |           4 |
| +I |           6 |           7 |           7 |                    1 |           8 |
| +I |          10 |          11 |          11 |                    1 |          12 |
| +I |          13 |          14 |          14 |                    1 |          15 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-Bplusq-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{2} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           3 |                    2 |           4 |
| +I |           2 |           3 |           4 |                    2 |           5 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          13 |          14 |          15 |                    2 |          16 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-B2-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{2}? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           3 |                    2 |           4 |
| +I |           2 |           3 |           4 |                    2 |           5 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          13 |          14 |          15 |                    2 |          16 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-B2q-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{2,} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
+----+-------------+-------------+-------------+----------------------+-------------+
3 rows in set
""",
        id="A-B2_-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{2,}? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           3 |                    2 |           4 |
| +I |           2 |           3 |           4 |                    2 |           5 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          13 |          14 |          15 |                    2 |          16 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-B2_q-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{1,3} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
2 rows in set
""",
        id="A-B1_3-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{1,3}? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |           3 |           3 |                    1 |           4 |
| +I |           6 |           7 |           7 |                    1 |           8 |
| +I |          10 |          11 |          11 |                    1 |          12 |
| +I |          13 |          14 |          14 |                    1 |          15 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-B1_3q-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{0,} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-B0_-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{0,1} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |      <NULL> |      <NULL> |                    0 |           3 |
| +I |           6 |      <NULL> |      <NULL> |                    0 |           7 |
| +I |          10 |      <NULL> |      <NULL> |                    0 |          11 |
| +I |          13 |      <NULL> |      <NULL> |                    0 |          14 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-B0_1-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{0,2}? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |      <NULL> |      <NULL> |                    0 |           3 |
| +I |           6 |      <NULL> |      <NULL> |                    0 |           7 |
| +I |          10 |      <NULL> |      <NULL> |                    0 |          11 |
| +I |          13 |      <NULL> |      <NULL> |                    0 |          14 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-B0_2q-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{2} C{2}) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           3 |                    2 |           5 |
+----+-------------+-------------+-------------+----------------------+-------------+
1 row in set
""",
        id="A-B2-C2",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+ C{1,2}?) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="A-Bplus-C1_2q",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+? C+?) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           2 |           3 |           3 |                    1 |           4 |
| +I |           6 |           7 |           7 |                    1 |           8 |
| +I |          10 |          11 |          11 |                    1 |          12 |
| +I |          13 |          14 |          14 |                    1 |          15 |
+----+-------------+-------------+-------------+----------------------+-------------+
5 rows in set
""",
        id="A-Bplusq-Cplusq",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A{2,} B C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           2 |           3 |           3 |                    1 |           4 |
+----+-------------+-------------+-------------+----------------------+-------------+
1 row in set
""",
        id="A2_-B-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A+ B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="Aplus-Bplus-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
2 rows in set
""",
        id="past-A-Bplus-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           2 |                    1 |           3 |
| +I |           6 |           7 |           7 |                    1 |           8 |
| +I |          10 |          11 |          11 |                    1 |          12 |
| +I |          13 |          14 |          14 |                    1 |          15 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="past-A-Bplusq-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO LAST B PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
2 rows in set
""",
        id="last-B-A-Bplus-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO FIRST B PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |           2 |           3 |           8 |                    6 |           9 |
| +I |           6 |           7 |           8 |                    2 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
4 rows in set
""",
        id="first-B-A-Bplus-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO LAST B PATTERN (A B* C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+-------------+----------------------+-------------+
| op |           a |          b1 |          bn |                   nb |           c |
+----+-------------+-------------+-------------+----------------------+-------------+
| +I |           1 |           2 |           8 |                    7 |           9 |
| +I |          10 |          11 |          11 |                    1 |          12 |
+----+-------------+-------------+-------------+----------------------+-------------+
2 rows in set
""",
        id="last-B-A-Bstar-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES FIRST(A.id) AS a, LAST(C.id) AS c, SUM(v) AS s ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS SUM(v) < 20 AND LAST(v, 1) < v, C AS C.v > 4 AND FIRST(v) < 3)",
        """\
+----+-------------+-------------+-------------+
| op |           a |           c |           s |
+----+-------------+-------------+-------------+
| +I |           1 |           5 |          21 |
| +I |           2 |           5 |          20 |
| +I |          13 |          15 |          14 |
+----+-------------+-------------+-------------+
3 rows in set
""",
        id="define-star-agg",
    ),
    pytest.param(
        "SELECT a * 2 AS a2, T.b FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) DEFINE A AS A.v < 5) AS T WHERE b > 3",
        """\
+----+-------------+-------------+
| op |          a2 |           b |
+----+-------------+-------------+
| +I |          12 |           7 |
| +I |          20 |          11 |
| +I |          26 |          14 |
+----+-------------+-------------+
3 rows in set
""",
        id="select-expr",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1, k2 ORDER BY ts MEASURES A.id AS a, B.id AS b, A.id + 0 AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) WITHIN INTERVAL '10' SECOND DEFINE A AS A.v < 5, B AS B.v > A.v)",
        """\
+----+--------------------------------+-------------+-------------+-------------+-------------+
| op |                             k1 |          k2 |           a |           b |           c |
+----+--------------------------------+-------------+-------------+-------------+-------------+
| +I |                              a |           1 |           1 |           2 |           1 |
| +I |                              b |           1 |           3 |           6 |           3 |
| +I |                              a |           2 |           4 |           8 |           4 |
| +I |                              a |           1 |           7 |          10 |           7 |
| +I |                              b |           1 |           9 |          12 |           9 |
+----+--------------------------------+-------------+-------------+-------------+-------------+
5 rows in set
""",
        id="two-keys",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1 ORDER BY ts, v DESC MEASURES A.id AS a, B.id AS b ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) WITHIN INTERVAL '1:30' MINUTE TO SECOND DEFINE B AS B.v < A.v)",
        """\
+----+--------------------------------+-------------+-------------+
| op |                             k1 |           a |           b |
+----+--------------------------------+-------------+-------------+
| +I |                              a |           2 |           1 |
| +I |                              a |           8 |           7 |
| +I |                              b |           6 |           9 |
| +I |                              a |          10 |          11 |
+----+--------------------------------+-------------+-------------+
4 rows in set
""",
        id="secondary-order",
    ),
    pytest.param(
        "SELECT k1, a, b FROM P MATCH_RECOGNIZE(PARTITION BY k1 ORDER BY pt MEASURES A.id AS a, B.id AS b ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.v > A.v)",
        """\
+----+--------------------------------+-------------+-------------+
| op |                             k1 |           a |           b |
+----+--------------------------------+-------------+-------------+
| +I |                              a |           1 |           2 |
| +I |                              a |           4 |           5 |
| +I |                              b |           3 |           6 |
| +I |                              a |           7 |           8 |
| +I |                              b |           9 |          12 |
+----+--------------------------------+-------------+-------------+
5 rows in set
""",
        id="proctime",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) DEFINE B AS CAST(NULL AS BOOLEAN))",
        """\
Empty set
""",
        id="define-null",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1 ORDER BY ts MEASURES A.id AS a, LAST(B.id) AS b AFTER MATCH SKIP TO FIRST B PATTERN (A B+? C) DEFINE B AS B.v > 1, C AS C.v < 3)",
        """\
+----+--------------------------------+-------------+-------------+
| op |                             k1 |           a |           b |
+----+--------------------------------+-------------+-------------+
| +I |                              a |           1 |           5 |
| +I |                              a |           2 |           5 |
| +I |                              a |           4 |           5 |
| +I |                              b |           3 |           6 |
| +I |                              a |           5 |          10 |
| +I |                              a |           7 |          10 |
| +I |                              a |           8 |          10 |
+----+--------------------------------+-------------+-------------+
7 rows in set
""",
        id="after-first-var-then-within",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a ONE ROW PER MATCH PATTERN (A B) DEFINE X AS X.v > 1)",
        """\
+----+-------------+
| op |           a |
+----+-------------+
| +I |           1 |
| +I |           2 |
| +I |           3 |
| +I |           4 |
| +I |           5 |
| +I |           6 |
| +I |           7 |
| +I |           8 |
| +I |           9 |
| +I |          10 |
| +I |          11 |
+----+-------------+
11 rows in set
""",
        id="unknown-define-var",
    ),
    pytest.param(
        "SELECT * FROM N MATCH_RECOGNIZE(ORDER BY ts MEASURES LAST(B.id, 1) AS l1, FIRST(B.id, 2) AS f2, FIRST(B.id) AS f0, LAST(id) AS li, id AS i, SUM(B.id) AS s, MIN(id) AS m, LAST(B.id * 2, 1) AS lx ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE C AS C.v > 40, A AS A.v < 5 AND LAST(v, 1) IS NULL, B AS B.v < 10 AND SUM(v) < 100 AND LAST(B.id, 1) IS NULL)",
        """\
Empty set
""",
        id="types",
    ),
    pytest.param(
        "SELECT * FROM (SELECT id, v * 10 AS w, ts FROM N WHERE v < 50) MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.w AS b PATTERN (A B) DEFINE B AS B.w > A.w) T",
        """\
+----+-------------+-------------+
| op |           a |           b |
+----+-------------+-------------+
| +I |           1 |          20 |
| +I |           2 |          50 |
| +I |           3 |          60 |
| +I |           4 |          70 |
| +I |           6 |          80 |
| +I |           7 |          90 |
| +I |          10 |          50 |
| +I |          13 |          60 |
+----+-------------+-------------+
8 rows in set
""",
        id="in-view",
    ),
    pytest.param(
        "SELECT * FROM N MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, LAST(B.id) AS b AFTER MATCH SKIP TO B PATTERN (A B+? C) DEFINE A AS A.v < 5, C AS C.v > 20)",
        """\
+----+-------------+-------------+
| op |           a |           b |
+----+-------------+-------------+
| +I |           1 |           8 |
| +I |          10 |          11 |
+----+-------------+-------------+
2 rows in set
""",
        id="skip-to-var",
    ),
    pytest.param(
        "SELECT * FROM N MATCH_RECOGNIZE(ORDER BY ts MEASURES FIRST(A.id) AS a, COUNT(*) AS n PATTERN (A+? B) DEFINE A AS COUNT(*) < 4 AND COUNT(A.id) < 3, B AS COUNT(*) = 3)",
        """\
+----+-------------+----------------------+
| op |           a |                    n |
+----+-------------+----------------------+
| +I |           1 |                    3 |
| +I |           2 |                    3 |
| +I |           3 |                    3 |
| +I |           4 |                    3 |
| +I |           5 |                    3 |
| +I |           6 |                    3 |
| +I |           7 |                    3 |
| +I |           8 |                    3 |
| +I |           9 |                    3 |
| +I |          10 |                    3 |
| +I |          11 |                    3 |
| +I |          12 |                    3 |
| +I |          13 |                    3 |
| +I |          14 |                    3 |
| +I |          15 |                    3 |
+----+-------------+----------------------+
15 rows in set
""",
        id="count-star-define",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES FIRST(S1.id) AS f, LAST(S1.id) AS l, COUNT(S1.id) AS n PATTERN (A B+ C) SUBSET S1 = (A, C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        """\
+----+-------------+-------------+----------------------+
| op |           f |           l |                    n |
+----+-------------+-------------+----------------------+
| +I |      <NULL> |      <NULL> |                    0 |
| +I |      <NULL> |      <NULL> |                    0 |
| +I |      <NULL> |      <NULL> |                    0 |
| +I |      <NULL> |      <NULL> |                    0 |
+----+-------------+-------------+----------------------+
4 rows in set
""",
        id="subset-used",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (^A B) DEFINE A AS A.v < 5)",
        """\
+----+-------------+
| op |           a |
+----+-------------+
| +I |           1 |
| +I |           2 |
| +I |           6 |
| +I |          10 |
| +I |          13 |
+----+-------------+
5 rows in set
""",
        id="anchor-start",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A B) DEFINE B AS B.v > 1 AND B.v < 9 AND B.id > 0 OR B.v = 70, A AS v < 5)",
        """\
+----+-------------+
| op |           a |
+----+-------------+
| +I |           1 |
| +I |           2 |
| +I |           6 |
| +I |          10 |
| +I |          13 |
+----+-------------+
5 rows in set
""",
        id="define-order-and-flat",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) DEFINE B AS B.v > FIRST(v) AND v > 3)",
        """\
+----+-------------+-------------+
| op |           a |           b |
+----+-------------+-------------+
| +I |           2 |           3 |
| +I |           3 |           4 |
| +I |           4 |           5 |
| +I |           6 |           7 |
| +I |           7 |           8 |
| +I |           8 |           9 |
| +I |          10 |          11 |
| +I |          11 |          12 |
| +I |          13 |          14 |
+----+-------------+-------------+
9 rows in set
""",
        id="first-in-define-unqual",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A B) DEFINE B AS MATCH_ROWTIME() IS NOT NULL)",
        """\
+----+-------------+
| op |           a |
+----+-------------+
| +I |           1 |
| +I |           2 |
| +I |           3 |
| +I |           4 |
| +I |           5 |
| +I |           6 |
| +I |           7 |
| +I |           8 |
| +I |           9 |
| +I |          10 |
| +I |          11 |
| +I |          12 |
| +I |          13 |
| +I |          14 |
| +I |          15 |
| +I |          16 |
+----+-------------+
16 rows in set
""",
        id="match_rowtime-in-define",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES UPPER(CAST(A.id AS STRING)) AS a, CASE WHEN B.v > 5 THEN 'big' ELSE 'small' END AS b PATTERN (A B) DEFINE A AS A.v < 5)",
        """\
+----+--------------------------------+--------------------------------+
| op |                              a |                              b |
+----+--------------------------------+--------------------------------+
| +I |                              1 |                          small |
| +I |                              2 |                          small |
| +I |                              6 |                            big |
| +I |                             10 |                          small |
| +I |                             13 |                            big |
+----+--------------------------------+--------------------------------+
5 rows in set
""",
        id="udf-ish-builtin",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) DEFINE B AS MATCH_ROWTIME() > TIMESTAMP '2024-01-01 00:00:10' AND A.v < 5)",
        """\
+----+-------------+-------------+
| op |           a |           b |
+----+-------------+-------------+
| +I |          13 |          14 |
+----+-------------+-------------+
1 row in set
""",
        id="rowtime-in-define",
    ),
]
ERRORS = [
    pytest.param(
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime\n MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime\n ONE ROW PER MATCH ALL ROWS PER MATCH PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)",
        'org.apache.flink.table.api.SqlParserException: SQL parse failed. Encountered "ALL" at line 3, column 20.',
        id="all-rows",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B*) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish your pattern with either a simple variable or reluctant quantifier.",
        id="greedy-last",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A* B?) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.cep.pattern.MalformedPatternException: Optional pattern cannot be preceded by greedy pattern",
        id="empty",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B?? C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Reluctant optional variables are not supported yet.",
        id="reluctant-optional",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A (B | C)) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Expression not supported: |(_UTF-16LE'B', _UTF-16LE'C'). Currently, CEP doesn't support branching patterns.",
        id="alternation",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A B | C) C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Expression not supported: |((_UTF-16LE'A', _UTF-16LE'B'), _UTF-16LE'C'). Currently, CEP doesn't support branching patterns.",
        id="alternation2",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A (B C)+ C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Expression not supported: (_UTF-16LE'B', _UTF-16LE'C') Group patterns are not supported yet.",
        id="group",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (PERMUTE(A, B) C) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Expression not supported: PATTERN_PERMUTE(_UTF-16LE'A', _UTF-16LE'B'). Currently, CEP doesn't support PERMUTE patterns.",
        id="permute",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B A) DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)",
        "org.apache.flink.table.api.TableException: Pattern variables must be unique. That might change in the future.",
        id="dup-var",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES C.price AS lastPrice ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A C) DEFINE C AS C.price > PREV(C.price))",
        "org.apache.flink.table.api.TableException: Flink does not support physical offsets within partition.",
        id="prev",
    ),
    pytest.param(
        "SELECT * FROM Greedy MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES CLASSIFIER() AS c ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A C) DEFINE C AS C.price > 12)",
        "org.apache.flink.table.planner.codegen.CodeGenException: Unsupported call: CLASSIFIER() ",
        id="classifier",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{,2} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "java.lang.IllegalArgumentException: The from should be a positive number greater than 0.",
        id="A-B_2-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{3,2} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "java.lang.IllegalArgumentException: The to should be a number greater than or equal to from: 3.",
        id="A-B3_2-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{0} C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "java.lang.IllegalArgumentException: The to should be a number greater than or equal to from: 1.",
        id="A-B0-C",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c ONE ROW PER MATCH AFTER MATCH SKIP TO LAST X PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. At line 3, column 45: Unknown pattern 'X'",
        id="last-X",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES RUNNING LAST(B.v) AS rl ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "org.apache.flink.table.planner.codegen.CodeGenException: Unsupported call: RUNNING(INT) ",
        id="running",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES COUNT(DISTINCT B.v) AS d ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 54 to line 1, column 72: DISTINCT/ALL not allowed with COUNT(DISTINCT `B`.`v`) function",
        id="distinct-agg",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES SUM(A.v + B.v) AS d ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 54 to line 1, column 67: Multiple pattern variables in 'SUM(`A`.`v` + `B`.`v`)'",
        id="mixed-agg",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES LAST(A.v + B.v) AS d ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 54 to line 1, column 68: Multiple pattern variables in 'LAST(`A`.`v` + `B`.`v`, 0)'",
        id="mixed-last",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(MEASURES A.id AS a ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.TableException: You must specify either rowtime or proctime for order by.",
        id="no-order",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts DESC MEASURES A.id AS a ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.TableException: Primary sort order of a streaming table must be ascending on time.",
        id="order-desc",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY v MEASURES A.id AS a ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.TableException: You must specify either rowtime or proctime for order by as the first one.",
        id="order-non-time",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(PARTITION BY v ORDER BY ts ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.ValidationException: Columns ambiguously defined: {}",
        id="no-measures",
    ),
    pytest.param(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B))",
        'org.apache.flink.table.api.SqlParserException: SQL parse failed. Encountered ")" at line 1, column 88.',
        id="no-define",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES X.id AS a ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.v > 1)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. At line 1, column 54: Table 'X' not found",
        id="unknown-measure-var",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES A.nope AS a ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.v > 1)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 56 to line 1, column 59: Column 'nope' not found in table 'A'",
        id="unknown-column",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts PATTERN (A B) DEFINE B AS B.v > 1)",
        "org.apache.flink.table.api.ValidationException: Columns ambiguously defined: {}",
        id="no-measures-no-partition",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1 ORDER BY ts MEASURES A.k1 AS k1 PATTERN (A B) DEFINE B AS B.v > 1)",
        "org.apache.flink.table.api.ValidationException: Columns ambiguously defined: {k1}",
        id="measure-same-name-as-key",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id PATTERN (A B) DEFINE B AS B.v > 1)",
        'org.apache.flink.table.api.SqlParserException: SQL parse failed. Encountered "PATTERN" at line 1, column 59.',
        id="measure-no-alias",
    ),
    pytest.param(
        "SELECT * FROM P MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A B) DEFINE B AS B.v)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 0, column 0 to line 1, column 92: DEFINE clause must be a condition",
        id="define-non-bool",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A B+ C) SUBSET S1 = (A, B) DEFINE A AS A.v < 5, B AS B.v < 10 AND SUM(S1.v) < 20, C AS C.v > 4)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 143 to line 1, column 144: Table 'S1' not found",
        id="subset-define",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A {- B -} C) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.TableException: Expression not supported: PATTERN_EXCLUDE(_UTF-16LE'B'). Currently, CEP doesn't support '{-' '-}' patterns.",
        id="exclude",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES nope AS a PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 54 to line 1, column 57: Column 'nope' not found in any table",
        id="unknown-unqualified",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a PATTERN (A B) WITHIN INTERVAL '1' MONTH DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.TableException: Only constant intervals with millisecond resolution are supported as time constraints of patterns.",
        id="year-interval",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES PREV(B.v, 0) AS p, NEXT(B.v, 0) AS nx PATTERN (A B) DEFINE A AS A.v < 5)",
        "org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 54 to line 1, column 65: Cannot use PREV/NEXT in MEASURE 'PREV(`B`.`v`, 0)'",
        id="prev-measures",
    ),
    pytest.param(
        "SELECT * FROM S MATCH_RECOGNIZE(ORDER BY ts MEASURES COUNT(B.v) FILTER (WHERE B.v > 3) AS a PATTERN (A B+? C) DEFINE A AS A.v < 5, C AS C.v > 50)",
        "org.apache.flink.table.planner.codegen.CodeGenException: Unsupported call: FILTER(BIGINT NOT NULL, BOOLEAN) ",
        id="filter-agg",
    ),
]


@pytest.mark.parametrize(("sql", "pyflink"), RESULTS)
def test_prints_what_pyflink_prints(
    t_env: TableEnvironment, sql: str, pyflink: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _printed(t_env, sql, capsys) == pyflink


def _message(flink: str) -> str:
    """Flink's message without its Java exception class and Calcite's position (millstream's
    errors name neither)."""
    message = re.sub(r"^([a-z]+\.)+[A-Za-z]+(Exception|Error): ", "", flink)
    return re.sub(
        r"^SQL validation failed\. (From line \d+, column \d+ to line \d+, column \d+|At line \d+, column \d+): ",
        "",
        message,
    )


@pytest.mark.parametrize(("sql", "pyflink"), ERRORS)
def test_refuses_what_pyflink_refuses_with_its_message(
    t_env: TableEnvironment, sql: str, pyflink: str
) -> None:
    with pytest.raises(ValueError) as raised:
        t_env.execute_sql(sql).collect()
    assert str(raised.value) == _message(pyflink)


V_SHAPE = """
SELECT *
FROM Ticker
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            START_ROW.rowtime AS start_tstamp,
            LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
            LAST(PRICE_UP.rowtime) AS end_tstamp,
            MATCH_ROWTIME() AS mt
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO LAST PRICE_UP
        PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE
            PRICE_DOWN AS
                (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR
                    PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
            PRICE_UP AS
                PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
    ) MR"""

# PyFlink 2.3.0 prints, for V_SHAPE in streaming and in batch mode:
V_SHAPE_ROW = (
    "|                           ACME | 2011-04-01 10:00:04.000 | 2011-04-01 10:00:07.000 "
    "| 2011-04-01 10:00:08.000 | 2011-04-01 10:00:08.000 |"
)
V_SHAPE_MATCH = (
    "Match(partitionBy=[symbol], orderBy=[rowtime ASC], measures=[FINAL(CAST(START_ROW.rowtime AS "
    "TIMESTAMP(3))) AS start_tstamp, FINAL(LAST(CAST(PRICE_DOWN.rowtime AS TIMESTAMP(3)), 0)) AS "
    "bottom_tstamp, FINAL(LAST(CAST(PRICE_UP.rowtime AS TIMESTAMP(3)), 0)) AS end_tstamp, "
    "FINAL(MATCH_ROWTIME()) AS mt], rowsPerMatch=[ONE ROW PER MATCH], after=[SKIP TO LAST "
    "_UTF-16LE'PRICE_UP'], pattern=[((_UTF-16LE'START_ROW', PATTERN_QUANTIFIER(_UTF-16LE'PRICE_DOWN', "
    "1, -1, false)), _UTF-16LE'PRICE_UP')], define=[{PRICE_DOWN=OR(AND(IS NULL(LAST(PRICE_DOWN.$2, 1)), "
    "<(PREV(PRICE_DOWN.$2, 0), LAST(START_ROW.$2, 0))), <(PREV(PRICE_DOWN.$2, 0), LAST(PRICE_DOWN.$2, "
    "1))), PRICE_UP=>(PREV(PRICE_UP.$2, 0), LAST(PRICE_DOWN.$2, 1))}])"
)


def test_the_v_shape_of_flinks_docs_prints_its_row_and_plan(
    t_env: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = _printed(t_env, V_SHAPE, capsys)
    assert "| +I " + V_SHAPE_ROW in printed
    assert printed.endswith("1 row in set\n")
    plan = t_env.explain_sql(V_SHAPE)
    # PyFlink 2.3.0's abstract syntax tree and optimized physical plan, line for line
    assert (
        "+- LogicalMatch(partition=[[0]], order=[[1 ASC-nulls-first]], outputFields=[[symbol, "
        "start_tstamp, bottom_tstamp, end_tstamp, mt]], allRows=[false], after=[SKIP TO "
        "LAST(_UTF-16LE'PRICE_UP')], pattern=[((_UTF-16LE'START_ROW', PATTERN_QUANTIFIER("
        "_UTF-16LE'PRICE_DOWN', 1, -1, false)), _UTF-16LE'PRICE_UP')], isStrictStarts=[false], "
        "isStrictEnds=[false], subsets=[[]], patternDefinitions=[[OR(AND(IS NULL(LAST(PRICE_DOWN.$2, "
        "1)), <(PREV(PRICE_DOWN.$2, 0), LAST(START_ROW.$2, 0))), <(PREV(PRICE_DOWN.$2, 0), "
        "LAST(PRICE_DOWN.$2, 1))), >(PREV(PRICE_UP.$2, 0), LAST(PRICE_DOWN.$2, 1))]], "
        "inputFields=[[symbol, rowtime, price, tax]])"
    ) in plan.splitlines()
    physical = plan.split("== Optimized Physical Plan ==\n")[1].splitlines()
    assert physical[:2] == [V_SHAPE_MATCH, "+- Exchange(distribution=[hash[symbol]])"]


def test_the_plan_names_the_partition_keys_the_order_and_within(t_env: TableEnvironment) -> None:
    plan = t_env.explain_sql(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1, k2 ORDER BY ts MEASURES A.id AS a, "
        "B.id AS b, A.id + 0 AS c ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) "
        "WITHIN INTERVAL '10' SECOND DEFINE A AS A.v < 5, B AS B.v > A.v)"
    )
    # PyFlink 2.3.0 prints these lines
    assert (
        "+- LogicalMatch(partition=[[0, 1]], order=[[4 ASC-nulls-first]], outputFields=[[k1, k2, a, "
        "b, c]], allRows=[false], after=[FLAG(SKIP TO NEXT ROW)], pattern=[(_UTF-16LE'A', "
        "_UTF-16LE'B')], isStrictStarts=[false], isStrictEnds=[false], interval=[10000:INTERVAL "
        "SECOND], subsets=[[]], patternDefinitions=[[<(PREV(A.$3, 0), 5), >(PREV(B.$3, 0), "
        "LAST(A.$3, 0))]], inputFields=[[k1, k2, id, v, ts, pt]])"
    ) in plan.splitlines()
    assert (
        "Match(partitionBy=[k1, k2], orderBy=[ts ASC], measures=[FINAL(A.id) AS a, FINAL(B.id) AS b, "
        "FINAL(+(A.id, 0)) AS c], rowsPerMatch=[ONE ROW PER MATCH], after=[SKIP TO NEXT ROW], "
        "pattern=[(_UTF-16LE'A', _UTF-16LE'B')], define=[{A=<(PREV(A.$3, 0), 5), B=>(PREV(B.$3, 0), "
        "LAST(A.$3, 0))}])"
    ) in plan.splitlines()
    assert "+- Exchange(distribution=[hash[k1, k2]])" in plan.splitlines()


def test_measures_are_typed_as_flink_types_them(
    t_env: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    table = t_env.sql_query(
        "SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, A.ts AS ats, FIRST(B.v) AS fb, "
        "COUNT(B.id) AS nb, COUNT(*) AS n, SUM(B.v) AS sb, AVG(B.v) AS ab, MIN(B.v) AS mn, MAX(C.ts) AS mt, "
        "MATCH_ROWTIME() AS rt, MATCH_ROWTIME(ts) AS rt2, MATCH_PROCTIME() AS pt, A.v + 1.5 AS d, "
        "LAST(C.v * 2) AS lc, FINAL LAST(B.v) AS fl ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW "
        "PATTERN (A B+ C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)"
    )
    capsys.readouterr()
    table.print_schema()
    # PyFlink 2.3.0 prints this schema, and marks ats, mt and rt2 *ROWTIME* too (values of the
    # rowtime its plan materializes as plain TIMESTAMP(3)); millstream marks MATCH_ROWTIME()'s only
    assert capsys.readouterr().out == (
        "(\n  `a` INT,\n  `ats` TIMESTAMP(3),\n  `fb` INT,\n  `nb` BIGINT NOT NULL,\n"
        "  `n` BIGINT NOT NULL,\n  `sb` INT,\n  `ab` INT,\n  `mn` INT,\n  `mt` TIMESTAMP(3),\n"
        "  `rt` TIMESTAMP(3) NOT NULL *ROWTIME*,\n  `rt2` TIMESTAMP(3),\n"
        "  `pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*,\n  `d` DECIMAL(12, 1),\n  `lc` INT,\n  `fl` INT\n)\n"
    )
    not_null = (
        "SELECT * FROM N MATCH_RECOGNIZE(ORDER BY ts MEASURES LAST(B.id, 1) AS l1, FIRST(B.id, 2) AS f2, "
        "LAST(id) AS li, id AS i, SUM(B.id) AS s, MIN(id) AS m, LAST(B.id * 2, 1) AS lx "
        "PATTERN (A B+ C) DEFINE C AS C.v > 40, A AS A.v < 5 AND LAST(v, 1) IS NULL)"
    )
    t_env.sql_query(not_null).print_schema()
    # PyFlink 2.3.0: navigation keeps a column NOT NULL (id INT NOT NULL), aggregates are nullable
    assert capsys.readouterr().out == (
        "(\n  `l1` INT NOT NULL,\n  `f2` INT NOT NULL,\n  `li` INT NOT NULL,\n  `i` INT NOT NULL,\n"
        "  `s` INT,\n  `m` INT,\n  `lx` INT NOT NULL\n)\n"
    )
    plan = t_env.explain_sql(not_null)
    # PyFlink 2.3.0 prints the measures and conditions so (DEFINE's order kept)
    assert (
        "measures=[FINAL(LAST(B.id, 1)) AS l1, FINAL(FIRST(B.id, 2)) AS f2, FINAL(LAST(*.id, 0)) AS li, "
        "FINAL(*.id) AS i, FINAL(SUM(B.id)) AS s, FINAL(MIN(*.id)) AS m, FINAL(*(LAST(B.id, 1), "
        "LAST(2, 1))) AS lx]"
    ) in plan
    assert "define=[{C=>(PREV(C.$1, 0), 40), A=AND(<(PREV(A.$1, 0), 5), IS NULL(LAST(*.$1, 1)))}]" in plan


def test_skipping_to_the_first_row_of_a_match_fails_the_job_as_flinks(t_env: TableEnvironment) -> None:
    """PyFlink 2.3.0 fails the job: 'org.apache.flink.util.FlinkRuntimeException: Could not skip
    to first element of a match.'"""
    sql = (
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) "
        "AS sumPrice ONE ROW PER MATCH AFTER MATCH SKIP TO FIRST A PATTERN (A+ C) DEFINE A AS "
        "SUM(A.price) < 30)"
    )
    with pytest.raises(Exception) as raised:
        list(t_env.execute_sql(sql).collect())
    causes = []
    cause: BaseException | None = raised.value
    while cause is not None:
        causes.append(str(cause))
        cause = cause.__cause__
    assert "Could not skip to first element of a match." in causes


def test_batch_mode_matches_as_flinks_batch_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PyFlink 2.3.0 runs MATCH_RECOGNIZE in batch mode too (BatchExecMatch: the rows sorted by
    time, then the same automaton), printing the V shape's row without the op column."""
    batch = _environment(tmp_path, batch=True)
    printed = _printed(batch, V_SHAPE, capsys)
    assert V_SHAPE_ROW in printed.splitlines()
    with pytest.raises(ValueError, match=r"You must specify time point for order by as the first one\."):
        batch.sql_query(
            "SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY price MEASURES A.price "
            "AS p ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.price > A.price) MR"
        )


def test_the_spark_target_refuses_match_recognize_in_one_line(tmp_path: Path) -> None:
    t_env = _environment(tmp_path)
    t_env.get_config().set("execution.target", "spark")
    with pytest.raises(ValueError, match=r"^MATCH_RECOGNIZE cannot run on --target spark: Spark SQL has no"):
        t_env.execute_sql(V_SHAPE).collect()


# -- the operator: late rows, state, snapshot and restore -----------------------------------------------------


def _match_node(t_env: TableEnvironment, sql: str) -> MatchRecognize:
    node: Any = t_env.sql_query(sql)._plan
    while not isinstance(node, MatchRecognize):
        node = node.plan_inputs()[0]
    return node


_OPERATOR_QUERY = (
    "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES SUM(A.price) "
    "AS sumPrice, FIRST(A.tax) AS firstTax ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW "
    "PATTERN (A+ C) WITHIN INTERVAL '1' HOUR DEFINE A AS SUM(A.price) < 30)"
)


def _harness(function: Any, **kwargs: Any) -> OperatorHarness:
    stream = StreamExecutionEnvironment().from_collection([]).key_by(lambda kv: (kv[1][0],))
    return OperatorHarness.of(stream.process(function), **kwargs)


def _skips_rows() -> list[tuple[tuple[str, tuple[Any, ...]], int]]:
    import datetime

    rows = []
    for line in TABLES["Skips"][1]:
        symbol, tax, price, stamp = line.split(",")
        time = datetime.datetime.fromisoformat(stamp)
        millis = int((time - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)
        rows.append((("+I", (symbol, int(tax), int(price), time)), millis))
    return rows


def test_a_snapshot_restores_the_open_runs_and_waiting_rows(t_env: TableEnvironment) -> None:
    """The NFA state and the rows waiting for the watermark are keyed state: a harness restored
    from a snapshot taken mid-way emits what an uninterrupted one emits (PyFlink 2.3.0's rows for
    SKIP TO NEXT ROW: sums 26, 24, 25, 22, 17)."""
    node = _match_node(t_env, _OPERATOR_QUERY)
    rows = _skips_rows()

    whole = _harness(node.function())
    for value, millis in rows:
        whole.process_element(value, millis)
        whole.process_watermark(millis)
    whole.process_watermark(2**63 - 1)
    expected = [v for v, _ in whole.records()]
    assert [v[1][1] for v in expected] == [26, 24, 25, 22, 17]

    first = _harness(node.function())
    for value, millis in rows[:4]:
        first.process_element(value, millis)
        first.process_watermark(millis - 1)  # the last row still waits for its watermark
    emitted = [v for v, _ in first.records()]
    snapshot = first.snapshot()
    first.close()
    second = _harness(node.function(), restored_state=snapshot)
    second.process_watermark(rows[3][1] - 1)
    for value, millis in rows[4:]:
        second.process_element(value, millis)
        second.process_watermark(millis)
    second.process_watermark(2**63 - 1)
    assert emitted + [v for v, _ in second.records()] == expected


def test_a_late_row_is_dropped_and_state_is_cleared_when_no_run_is_open(t_env: TableEnvironment) -> None:
    """Flink's CepOperator buffers a row only when its time is after the watermark; a row at or
    behind it is dropped. Once the watermark passed every row and no run is open, the key
    holds no state (no NFA state, no waiting rows) and no timer."""
    node = _match_node(
        t_env,
        "SELECT * FROM Skips MATCH_RECOGNIZE(PARTITION BY symbol ORDER BY rowtime MEASURES A.price AS a, "
        "B.price AS b ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.price < 6, B AS B.price > A.price)",
    )
    rows = _skips_rows()  # prices 7, 9, 10, 5, 10, 7, 14
    harness = _harness(node.function())
    harness.process_element(*rows[0])
    harness.process_watermark(rows[2][1])
    harness.process_element(*rows[1])  # 9, behind the watermark: late
    harness.process_element(*rows[3])  # 5
    harness.process_element(*rows[4])  # 10
    before = harness.snapshot()
    assert before.keyed.groups  # the rows wait for the watermark
    harness.process_watermark(rows[4][1])
    assert [v[1] for v, _ in harness.records()] == [("XYZ", 5, 10)]
    after = harness.snapshot()
    assert not any(entries for entries in after.keyed.groups.values()), after.keyed.groups
    assert after.event_timers == []


def test_match_rowtime_is_a_rowtime_attribute_windows_over_the_matches_read(
    t_env: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    t_env.execute_sql(
        "CREATE TEMPORARY VIEW matched AS SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts MEASURES A.id AS a, "
        "C.id AS c, MATCH_ROWTIME() AS mt ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW "
        "PATTERN (A B+? C) DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)"
    )
    tumbled = (
        "SELECT window_start, window_end, COUNT(*) AS n, MAX(c) AS last_c FROM TABLE(TUMBLE(TABLE matched, "
        "DESCRIPTOR(mt), INTERVAL '5' SECOND)) GROUP BY window_start, window_end"
    )
    # PyFlink 2.3.0 prints:
    assert (
        _printed(t_env, tumbled, capsys)
        == """\
+----+-------------------------+-------------------------+----------------------+-------------+
| op |            window_start |              window_end |                    n |      last_c |
+----+-------------------------+-------------------------+----------------------+-------------+
| +I | 2024-01-01 00:00:00.000 | 2024-01-01 00:00:05.000 |                    2 |           4 |
| +I | 2024-01-01 00:00:05.000 | 2024-01-01 00:00:10.000 |                    1 |           8 |
| +I | 2024-01-01 00:00:10.000 | 2024-01-01 00:00:15.000 |                    2 |          15 |
+----+-------------------------+-------------------------+----------------------+-------------+
3 rows in set
"""
    )


def test_partitions_spread_over_subtasks_match_as_in_one(tmp_path: Path) -> None:
    t_env = _environment(tmp_path)
    t_env.get_config().set("parallelism.default", "2")
    rows = t_env.execute_sql(
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1, k2 ORDER BY ts MEASURES A.id AS a, B.id AS b "
        "ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) WITHIN INTERVAL '10' SECOND "
        "DEFINE A AS A.v < 5, B AS B.v > A.v)"
    ).collect()
    # PyFlink 2.3.0's rows (at parallelism 1, in this order): a 1 1 2, b 1 3 6, a 2 4 8, a 1 7 10, b 1 9 12
    assert sorted(tuple(r) for r in rows) == [
        ("a", 1, 1, 2),
        ("a", 1, 7, 10),
        ("a", 2, 4, 8),
        ("b", 1, 3, 6),
        ("b", 1, 9, 12),
    ]


def test_rows_of_one_processing_time_are_sorted_by_the_further_order_keys(t_env: TableEnvironment) -> None:
    """Ordered by a processing-time attribute and another key, the rows of one millisecond wait
    for a processing-time timer and go through the pattern in that key's order (Flink's
    CepOperator with a comparator), as rows of one rowtime do: PyFlink 2.3.0 matches rows 1
    (v 1) and 2 (v 9) of one time ordered by v DESC as A = 2, B = 1."""
    node = _match_node(
        t_env,
        "SELECT * FROM P MATCH_RECOGNIZE(PARTITION BY k1 ORDER BY pt, v DESC MEASURES A.id AS a, B.id AS b "
        "ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS B.v < A.v)",
    )
    harness = _harness(node.function(), processing_time=1000)
    harness.process_element(("+I", ("a", 1, 1, 1, None, None)))
    harness.process_element(("+I", ("a", 1, 2, 9, None, None)))
    assert harness.records() == []
    harness.set_processing_time(1000)
    assert [v[1] for v, _ in harness.records()] == [("a", 2, 1)]
