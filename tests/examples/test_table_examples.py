"""The Table API examples under examples/table/ print exactly what Flink's semantics say, and
what PyFlink 2.3.0 printed for the same programs (imports swapped to pyflink).

``word_count.py``: with one subtask a group aggregation's changelog is determined by the
input order: a word's first occurrence is ``+I[w, 1]``, each later one ``-U[w, n-1]`` then
``+U[w, n]``, written as Flink's print connector writes rows. (PyFlink 2.3.0 running its own
table word count, imports swapped to millstream, printed the same 353 lines as PyFlink.)
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from millstream.testing.tables import printed_parts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.timeout(180)


def expected_changelog(lines: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    out = []
    for line in lines:
        for word in line.split():
            n = counts.get(word, 0)
            if n:
                out += [f"-U[{word}, {n}]", f"+U[{word}, {n + 1}]"]
            else:
                out.append(f"+I[{word}, 1]")
            counts[word] = n + 1
    return out


@pytest.mark.parametrize("own_input", [False, True])
def test_table_word_count_prints_the_changelog(tmp_path, own_input):
    args = [sys.executable, os.path.join(ROOT, "examples", "table", "word_count.py")]
    lines = [
        "a stream is a table in motion",
        "a table is a stream at rest",
        "every change to the table is a record in the stream",
    ]
    if own_input:
        lines = ["to be or not to be", "that is the question", "to be"]
        (tmp_path / "in.txt").write_text("\n".join(lines) + "\n")
        args += ["--input", str(tmp_path / "in.txt")]
    result = subprocess.run(args, capture_output=True, text=True, timeout=150)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected_changelog(lines)


# examples/table/windowing.py with its imports swapped to pyflink, run on PyFlink 2.3.0 on
# 2026-11-24 (parallelism 1). Windows ending at the same time fire in an order Flink leaves to
# its timer heap, so lines are compared per sink as multisets, and every line must match.
PYFLINK_WINDOWING = """\
tumble> +I[Alice, 130.1, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
tumble> +I[Bob, 86.4, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
tumble> +I[Bob, 16.1, 1970-01-01T00:00:05Z, 1970-01-01T00:00:10Z]
tumble> +I[Alice, 13.1, 1970-01-01T00:00:05Z, 1970-01-01T00:00:10Z]
tumble> +I[Alice, 20.1, 1970-01-01T00:00:10Z, 1970-01-01T00:00:15Z]
slide> +I[Alice, 110.1, 1969-12-31T23:59:58Z, 1970-01-01T00:00:03Z]
slide> +I[Bob, 53.1, 1969-12-31T23:59:58Z, 1970-01-01T00:00:03Z]
slide> +I[Alice, 130.1, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
slide> +I[Bob, 86.399994, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
slide> +I[Bob, 86.399994, 1970-01-01T00:00:02Z, 1970-01-01T00:00:07Z]
slide> +I[Alice, 33.1, 1970-01-01T00:00:02Z, 1970-01-01T00:00:07Z]
slide> +I[Alice, 13.1, 1970-01-01T00:00:04Z, 1970-01-01T00:00:09Z]
slide> +I[Bob, 46.300003, 1970-01-01T00:00:04Z, 1970-01-01T00:00:09Z]
slide> +I[Bob, 16.1, 1970-01-01T00:00:06Z, 1970-01-01T00:00:11Z]
slide> +I[Alice, 20.1, 1970-01-01T00:00:06Z, 1970-01-01T00:00:11Z]
slide> +I[Alice, 20.1, 1970-01-01T00:00:08Z, 1970-01-01T00:00:13Z]
slide> +I[Alice, 20.1, 1970-01-01T00:00:10Z, 1970-01-01T00:00:15Z]
session> +I[Bob, 102.5, 1970-01-01T00:00:02Z, 1970-01-01T00:00:12Z]
session> +I[Alice, 163.30002, 1970-01-01T00:00:01Z, 1970-01-01T00:00:15Z]
over> +I[Alice, 110.1]
over> +I[Bob, 53.1]
over> +I[Alice, 110.1]
over> +I[Bob, 53.1]
over> +I[Bob, 53.1]
over> +I[Alice, 110.1]
over> +I[Bob, 30.2]
over> +I[Alice, 20.1]
+----+-------------------------+--------------------------------+--------------------------------+
| op |            window_start |                           name |                          total |
+----+-------------------------+--------------------------------+--------------------------------+
| +I | 1970-01-01 00:00:00.000 |                          Alice |                          130.1 |
| +I | 1970-01-01 00:00:00.000 |                            Bob |                           86.4 |
| +I | 1970-01-01 00:00:05.000 |                            Bob |                           16.1 |
| +I | 1970-01-01 00:00:05.000 |                          Alice |                           13.1 |
| +I | 1970-01-01 00:00:10.000 |                          Alice |                           20.1 |
+----+-------------------------+--------------------------------+--------------------------------+
5 rows in set
"""


def _by_part(text: str) -> dict[str, list[str]]:
    parts: dict[str, list[str]] = {}
    for line in text.splitlines():
        name = line.split(">", 1)[0] if "> " in line else "tableau"
        parts.setdefault(name, []).append(line)
    return {name: sorted(lines) if name != "over" else lines for name, lines in parts.items()}


def test_table_windowing_prints_what_pyflink_prints():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "table", "windowing.py")],
        capture_output=True,
        text=True,
        timeout=150,
        check=True,
    )
    assert _by_part(result.stdout) == _by_part(PYFLINK_WINDOWING)


# examples/table/basic_operations.py with its imports swapped to pyflink, run on PyFlink 2.3.0
# on 2026-11-24 (parallelism 1). PyFlink runs a group aggregation with a Python aggregate
# function (udaf) in bundles and prints each bundle's last result per key; so does millstream.
PYFLINK_BASIC_OPERATIONS = """\
(
  `id` BIGINT,
  `name` STRING,
  `tel` INT,
  `country` STRING
)
+----+----------------------+--------------------------------+-------------+--------------------------------+
| op |                   id |                           name |         tel |                        country |
+----+----------------------+--------------------------------+-------------+--------------------------------+
| +I |                    1 |                          Flink |         123 |                        Germany |
| +I |                    2 |                          hello |         135 |                          China |
| +I |                    3 |                          world |         124 |                            USA |
+----+----------------------+--------------------------------+-------------+--------------------------------+
3 rows in set
+----+--------------------------------+----------------------+-------------+
| op |                        country |               EXPR$0 |      EXPR$1 |
+----+--------------------------------+----------------------+-------------+
| +I |                        Germany |                    1 |         123 |
| +I |                          China |                    1 |         135 |
| +I |                            USA |                    1 |         124 |
| -U |                          China |                    1 |         135 |
| +U |                          China |                    2 |         135 |
+----+--------------------------------+----------------------+-------------+
5 rows in set
+----+--------------------------------+----------------------+----------------------+
| op |                        country |                  cnt |                total |
+----+--------------------------------+----------------------+----------------------+
| +I |                        Germany |                    1 |                  123 |
| +I |                          China |                    2 |                  167 |
| +I |                            USA |                    1 |                  124 |
+----+--------------------------------+----------------------+----------------------+
3 rows in set
+----+--------------------------------+
| op |                        country |
+----+--------------------------------+
| +I |                        Germany |
| +I |                          China |
| +I |                            USA |
+----+--------------------------------+
3 rows in set
+----+--------------------------------+----------------------+--------------------------------+
| op |                           name |                  age |                            tag |
+----+--------------------------------+----------------------+--------------------------------+
| +I |                          Flink |                   18 |                  Flink@Germany |
| +I |                          hello |                   30 |                    hello@China |
| +I |                          world |                   25 |                      world@USA |
| +I |                        PyFlink |                   10 |                  PyFlink@China |
+----+--------------------------------+----------------------+--------------------------------+
4 rows in set
+----+----------------------+--------------------------------+
| op |                   id |                          piece |
+----+----------------------+--------------------------------+
| +I |                    1 |                              F |
| +I |                    1 |                            ink |
| +I |                    2 |                             he |
| +I |                    2 |                                |
| +I |                    2 |                              o |
| +I |                    3 |                            wor |
| +I |                    3 |                              d |
| +I |                    4 |                            PyF |
| +I |                    4 |                            ink |
+----+----------------------+--------------------------------+
9 rows in set
+----+----------------------+--------------------------------+-------------+
| op |                   id |                           name |         tel |
+----+----------------------+--------------------------------+-------------+
| +I |                    1 |                          Flink |         123 |
| +I |                    2 |                          hello |         135 |
| +I |                    3 |                          world |         124 |
+----+----------------------+--------------------------------+-------------+
3 rows in set
"""


def test_table_basic_operations_print_what_pyflink_prints():
    assert printed_parts(_run("basic_operations.py")) == printed_parts(PYFLINK_BASIC_OPERATIONS)


def _run(example: str) -> str:
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "table", example)],
        capture_output=True,
        text=True,
        timeout=150,
        check=True,
    )
    return result.stdout


# The three programs below, imports swapped to pyflink, run on PyFlink 2.3.0 on 2026-11-24
# (/work/pyflink-venv, parallelism 1): what they printed.

PYFLINK_MIXING = """\
+I[1,ann,large]
+I[4,cid,large]
+I[6,ann,large]
+I ann: 30 over 1 orders
+I bob: 12 over 1 orders
-U ann: 30 over 1 orders
+U ann: 35 over 2 orders
+I cid: 44 over 1 orders
-U bob: 12 over 1 orders
+U bob: 20 over 2 orders
-U ann: 35 over 2 orders
+U ann: 55 over 3 orders
"""


def test_mixing_datastream_and_table_prints_what_pyflink_prints():
    """Two sinks print from two tasks (the sized orders chained to the source, the changelog
    behind the keyed aggregation), so only each sink's own lines keep their order."""

    def by_sink(text: str) -> tuple[list[str], list[str]]:
        lines = text.splitlines()
        return [x for x in lines if x.startswith("+I[")], [x for x in lines if not x.startswith("+I[")]

    assert by_sink(_run("mixing_datastream_and_table.py")) == by_sink(PYFLINK_MIXING)


PYFLINK_JSON = """\
+----+----------------------+--------------------------------+-------------+--------------------------------+
| op |                   id |                            who |     version |                      first_tag |
+----+----------------------+--------------------------------+-------------+--------------------------------+
| +I |                    1 |                            ann |           6 |                              a |
| +I |                    2 |                            bob |          17 |                         <NULL> |
| +I |                    3 |                            ann |      <NULL> |                              c |
| +I |                    4 |                         <NULL> |      <NULL> |                         <NULL> |
| +I |                    5 |                            cid |           5 |                              a |
+----+----------------------+--------------------------------+-------------+--------------------------------+
5 rows in set
+----+--------------------------------+----------------------+-------------+
| op |                             os |               events |      newest |
+----+--------------------------------+----------------------+-------------+
| +I |                          linux |                    1 |           6 |
| +I |                            ios |                    1 |          17 |
| +I |                        android |                    1 |      <NULL> |
| -U |                          linux |                    1 |           6 |
| +U |                          linux |                    2 |           6 |
+----+--------------------------------+----------------------+-------------+
5 rows in set
+----+----------------------+--------------------------------+
| op |                   id |                        summary |
+----+----------------------+--------------------------------+
| +I |                    1 | {"device": "linux", "tag_co... |
| +I |                    2 | {"device": "ios", "tag_coun... |
| +I |                    3 | {"device": "android", "tag_... |
| +I |                    4 | {"error": "malformed", "len... |
| +I |                    5 | {"device": "linux", "tag_co... |
+----+----------------------+--------------------------------+
5 rows in set
"""


def test_json_processing_prints_what_pyflink_prints():
    assert _run("json_processing.py") == PYFLINK_JSON


PYFLINK_PANDAS_UDFS = """\
+--------------------------------+-------------------------+--------------------------------+
|                         sensor |                      ts |                     fahrenheit |
+--------------------------------+-------------------------+--------------------------------+
|                             s1 | 2024-03-01 12:00:01.000 |                           70.7 |
|                             s2 | 2024-03-01 12:00:03.000 |                           66.2 |
|                             s1 | 2024-03-01 12:00:07.000 |                           72.5 |
|                             s3 | 2024-03-01 12:00:08.000 |                           86.0 |
|                             s2 | 2024-03-01 12:00:12.000 |                           65.3 |
|                             s1 | 2024-03-01 12:00:14.000 |                           73.4 |
|                             s3 | 2024-03-01 12:00:15.000 |                           88.7 |
|                             s2 | 2024-03-01 12:00:19.000 |                           64.4 |
+--------------------------------+-------------------------+--------------------------------+
8 rows in set
+--------------------------------+--------------------------------+--------------------------------+
|                         sensor |                         spread |                         median |
+--------------------------------+--------------------------------+--------------------------------+
|                             s1 |                            1.5 |                           22.5 |
|                             s2 |                            1.0 |                           18.5 |
|                             s3 |                            1.5 |                          30.75 |
+--------------------------------+--------------------------------+--------------------------------+
3 rows in set
       window_start  median
2024-03-01 12:00:00   22.00
2024-03-01 12:00:10   20.75
"""


def test_pandas_udfs_print_what_pyflink_prints():
    assert _run("pandas_udfs.py") == PYFLINK_PANDAS_UDFS


# examples/table/async_lookup.py: each row's tier from its own customer, in the rows' order.
# PyFlink 2.3.0 ran the same program (imports swapped, 2026-11-27) and printed the same rows
# with other rows' tiers (c3 "gold", c1 "silver", c4 "silver"): its Python worker reuses the
# input row while calls are in flight. This is Flink's documented result instead.
ASYNC_LOOKUP = """\
+----+----------------------+--------------------------------+--------------------------------+----------------------+
| op |                   id |                       customer |                           tier |               amount |
+----+----------------------+--------------------------------+--------------------------------+----------------------+
| +I |                    1 |                             c1 |                           gold |                   30 |
| +I |                    2 |                             c3 |                         bronze |                   12 |
| +I |                    4 |                             c1 |                           gold |                   55 |
| +I |                    5 |                             c4 |                           none |                   20 |
| +I |                    6 |                             c2 |                         silver |                   41 |
+----+----------------------+--------------------------------+--------------------------------+----------------------+
5 rows in set
"""  # noqa: E501


def test_async_lookup_prints_each_rows_own_result_in_order():
    assert _run("async_lookup.py") == ASYNC_LOOKUP
