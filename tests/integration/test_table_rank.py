"""RANK() and DENSE_RANK() Top-N: in batch mode ties share a rank (RANK leaves a gap after
them, DENSE_RANK does not); on a streaming table Flink refuses them. PyFlink 2.3.0 printed
these tables and errors for the same program (2026-11-27, parallelism 1)."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

RANKED = """\
+--------------------------------+----------------------+----------------------+
|                              k |                    x |                    r |
+--------------------------------+----------------------+----------------------+
|                              a |                    1 |                    1 |
|                              a |                    1 |                    1 |
|                              b |                    5 |                    1 |
|                              b |                    5 |                    1 |
+--------------------------------+----------------------+----------------------+
4 rows in set
+--------------------------------+----------------------+----------------------+
|                              k |                    x |                    r |
+--------------------------------+----------------------+----------------------+
|                              a |                    1 |                    1 |
|                              a |                    1 |                    1 |
|                              a |                    2 |                    2 |
|                              b |                    5 |                    1 |
|                              b |                    5 |                    1 |
+--------------------------------+----------------------+----------------------+
5 rows in set
"""


def _environment(batch: bool) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    rows = [("a", 3), ("a", 1), ("a", 1), ("a", 2), ("b", 5), ("b", 5)]
    t_env.create_temporary_view("src", t_env.from_elements(rows, ["k", "x"]))
    return t_env


def _query(function: str) -> str:
    ranked = f"SELECT k, x, {function}() OVER (PARTITION BY k ORDER BY x) AS r FROM src"
    return f"SELECT k, x, r FROM ({ranked}) WHERE r <= 2"


def test_rank_and_dense_rank_in_batch_print_what_pyflink_prints(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _environment(batch=True)
    for function in ("RANK", "DENSE_RANK"):
        t_env.execute_sql(_query(function)).print()
    assert capsys.readouterr().out == RANKED


@pytest.mark.parametrize("function", ["RANK", "DENSE_RANK"])
def test_a_streaming_table_refuses_them_as_flink_does(function: str) -> None:
    with pytest.raises(ValueError, match=rf"^{function}\(\) on streaming table is not supported currently$"):
        _environment(batch=False).execute_sql(_query(function))
