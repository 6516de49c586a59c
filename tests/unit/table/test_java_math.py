"""SINH, COSH, TANH, ASIN, ACOS, ATAN and ATAN2 give Java's ``StrictMath`` (fdlibm) values to
the last bit (``functions/java_math.py``), where Python's libm differs in the last digit.

The SQL cases are what PyFlink 2.3.0 printed for each expression over a CSV table's DOUBLE
column x = 0.0 (``f(x + <literal>)``: computed when the job runs, not folded by the
planner); the direct ones are Java 17's ``StrictMath``. Before, millstream gave Python's
(COSH(1.0) 1.5430806348152437, ATAN(2.92) 1.2408492346483417, ASIN(0.792)
0.9140779620461926 ...).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.functions import java_math

# (function, arguments, what PyFlink 2.3.0 gave)
CASES = [
    ("COSH", (1.0,), 1.543080634815244),
    ("COSH", (5.94,), 189.9687807838965),
    ("COSH", (3.69,), 20.0349094796645),
    ("SINH", (3.69,), 20.009937477622223),
    ("TANH", (0.3,), 0.2913126124515909),
    ("ATAN", (2.92,), 1.240849234648342),
    ("ATAN", (4.43,), 1.3487837105541014),
    ("ATAN2", (3.69, 1.3), 1.2320708468327197),
    ("ATAN2", (6.33, 1.3), 1.368241480400842),
    ("ASIN", (0.792,), 0.9140779620461925),
    ("ASIN", (0.766,), 0.8725954876263349),
    ("ACOS", (0.29,), 1.2765694890459143),
    ("ACOS", (0.254,), 1.3139826719870773),
]


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    path: Path = tmp_path_factory.mktemp("x")
    (path / "a.csv").write_text("0.0\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.execute_sql(
        f"CREATE TABLE f (x DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    return t_env


@pytest.mark.parametrize(("function", "arguments", "flink"), CASES)
def test_sql_gives_javas_value(
    t_env: TableEnvironment, function: str, arguments: tuple[float, ...], flink: float
) -> None:
    over_column = ", ".join(f"x + CAST({a!r} AS DOUBLE)" for a in arguments)
    literals = ", ".join(f"CAST({a!r} AS DOUBLE)" for a in arguments)
    with t_env.execute_sql(
        f"SELECT {function}({over_column}), {function}({literals}) FROM f"
    ).collect() as rows:
        assert [tuple(r) for r in rows] == [(flink, flink)]


def test_the_edges_are_javas() -> None:
    # Java 17: StrictMath.exp(1.0) 2.7182818284590455 (Math.exp's 2.718281828459045),
    # Math.cosh(710.4758600739439) 1.7976931348621744E308, Math.sinh(-711.0) -Infinity,
    # Math.tanh(-0.0) -0.0, Math.asin(1.0) 1.5707963267948966, Math.acos(-1.0) 3.141592653589793,
    # Math.atan2(-0.0, -1.0) -3.141592653589793, Math.atan2(1e300, 1e-300) 1.5707963267948966
    assert java_math.exp(1.0) == 2.7182818284590455
    assert java_math.cosh(710.4758600739439) == 1.7976931348621744e308
    assert java_math.sinh(-711.0) == -math.inf
    assert math.copysign(1.0, java_math.tanh(-0.0)) == -1.0
    assert java_math.asin(1.0) == 1.5707963267948966
    assert java_math.acos(-1.0) == math.pi
    assert java_math.atan2(-0.0, -1.0) == -math.pi
    assert java_math.atan2(1e300, 1e-300) == math.pi / 2
    assert all(math.isnan(f(math.nan)) for f in (java_math.cosh, java_math.asin, java_math.atan))
    assert math.isnan(java_math.asin(1.5)) and math.isnan(java_math.acos(-1.5))
