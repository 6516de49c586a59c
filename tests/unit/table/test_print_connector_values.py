"""The print connector writes each value as the Java object it is outside Flink's runtime
prints inside a ``Row`` (``RowUtils.deepToStringRow``), nested ones included, as PyFlink 2.3.0
does; ``TableResult.print()`` keeps SQL's text (``x'010000'``, ``[x'01', x'ff']``,
``(x'0a', 1)``, ``{x'01'=x'02'}``, as PyFlink 2.3.0 prints them too).

Each expected line is what PyFlink 2.3.0 printed for the same DDL and INSERT (batch mode,
parallelism 1, UTC). Before, the print connector wrote bytes as ``x'010000'`` (Java's
``Arrays.toString`` of the signed bytes: ``[1, 0, 0]``), and every nested value as the
tableau does: ``TRUE``, ``NULL``, ``(x, 1)`` for a ROW (``+I[x, 1]``), ``2024-01-02
03:04:05.500`` for a nested TIMESTAMP (``2024-01-02T03:04:05.500``), ``0.00000001`` for a
DECIMAL (``BigDecimal``'s ``1E-8``), ``03:04:00`` for a TIME (``03:04``), and maps in their
insertion order (a ``java.util.HashMap``'s: ``{zz=4, Aa=5, BB=6, a=2, b=1, c=3}``).
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

CASES = [
    (
        "a BYTES, b BINARY(3), c VARBINARY(5), e BYTES, f BYTES, g ARRAY<BYTES>, h ROW<x BYTES, y INT>, "
        "m MAP<BYTES, BYTES>",
        "X'010000', CAST(X'0102' AS BINARY(3)), CAST(X'' AS VARBINARY(5)), CAST(NULL AS BYTES), X'FF80', "
        "ARRAY[X'01', X'ff'], ROW(X'0a', 1), MAP[X'01', X'02']",
        "+I[[1, 0, 0], [1, 2, 0], [], null, [-1, -128], [[1], [-1]], +I[[10], 1], {[1]=[2]}]",
    ),
    (
        "a ARRAY<DOUBLE>, b ARRAY<BOOLEAN>, r ROW<s STRING, d DOUBLE, b BOOLEAN, t TIMESTAMP(3), n INT>, "
        "m MAP<STRING, INT>, ar ARRAY<ROW<x INT, y STRING>>, dc DECIMAL(5, 2), dt DATE, tm TIME, "
        "ts TIMESTAMP(3), tl TIMESTAMP_LTZ(3), f FLOAT, ad ARRAY<DECIMAL(5,2)>, ats ARRAY<TIMESTAMP(3)>, "
        "ad2 ARRAY<DATE>, mb MAP<INT, BOOLEAN>, aa ARRAY<ARRAY<INT>>, rb ROW<x BYTES>, ab ARRAY<BYTES>",
        "ARRAY[1.5e0, 2e0], ARRAY[TRUE, FALSE], ROW('x', 0.1e0, TRUE, TIMESTAMP '2024-01-02 03:04:05.5', "
        "CAST(NULL AS INT)), MAP['k', 1], ARRAY[ROW(1, 'a')], CAST(1.5 AS DECIMAL(5, 2)), DATE '2024-01-02', "
        "TIME '03:04:05', TIMESTAMP '2024-01-02 03:04:05', CAST(TIMESTAMP '2024-01-02 03:04:05' AS "
        "TIMESTAMP_LTZ(3)), CAST(0.1 AS FLOAT), ARRAY[CAST(1.5 AS DECIMAL(5,2))], "
        "ARRAY[TIMESTAMP '2024-01-02 03:04:00'], ARRAY[DATE '2024-01-02'], MAP[1, TRUE], ARRAY[ARRAY[1, 2]], "
        "ROW(X'0102'), ARRAY[CAST(NULL AS BYTES), X'7f']",
        "+I[[1.5, 2.0], [true, false], +I[x, 0.1, true, 2024-01-02T03:04:05.500, null], {k=1}, [+I[1, a]], "
        "1.50, 2024-01-02, 03:04:05, 2024-01-02T03:04:05, 2024-01-02T03:04:05Z, 0.1, [1.50], "
        "[2024-01-02T03:04], [2024-01-02], {1=true}, [[1, 2]], +I[[1, 2]], [null, [127]]]",
    ),
    (
        "m MAP<STRING, INT>, d DECIMAL(10, 8), ad ARRAY<DECIMAL(10, 8)>, tm TIME(3), atm ARRAY<TIME(0)>, "
        "af ARRAY<FLOAT>, atl ARRAY<TIMESTAMP_LTZ(3)>, mi MAP<INT, STRING>, d2 DECIMAL(20, 0), s STRING, "
        "aas ARRAY<STRING>",
        "MAP['b', 1, 'a', 2, 'c', 3, 'zz', 4, 'Aa', 5, 'BB', 6], CAST(0.00000001 AS DECIMAL(10, 8)), "
        "ARRAY[CAST(0.00000001 AS DECIMAL(10, 8))], TIME '03:04:05.5', ARRAY[TIME '03:04:00'], "
        "ARRAY[CAST(0.1 AS FLOAT)], ARRAY[CAST(TIMESTAMP '2024-01-02 03:04:05.123' AS TIMESTAMP_LTZ(3))], "
        "MAP[30, 'x', 1, 'y', 17, 'z'], CAST('10000000000000000000' AS DECIMAL(20, 0)), 'a, b', "
        "ARRAY['x', CAST(NULL AS STRING)]",
        "+I[{zz=4, Aa=5, BB=6, a=2, b=1, c=3}, 1E-8, [1E-8], 03:04:05.500, [03:04], [0.1], "
        "[2024-01-02T03:04:05.123Z], {1=y, 17=z, 30=x}, 10000000000000000000, a, b, [x, null]]",
    ),
    (
        "ts9 TIMESTAMP(9), ats9 ARRAY<TIMESTAMP(9)>, t0 TIME(0), ts0 TIMESTAMP(0), "
        "md MAP<DECIMAL(5,2), INT>, mdt MAP<DATE, INT>, mts MAP<TIMESTAMP(3), INT>, mb MAP<BOOLEAN, INT>, "
        "mdb MAP<DOUBLE, INT>, mbi MAP<BIGINT, INT>",
        "TIMESTAMP '2024-01-02 03:04:05.123456789', ARRAY[TIMESTAMP '2024-01-02 03:04:05.123456789', "
        "TIMESTAMP '2024-01-02 03:04:05.1234'], TIME '03:04:00', TIMESTAMP '2024-01-02 00:00:00', "
        "MAP[CAST(1.5 AS DECIMAL(5,2)), 1, CAST(-2 AS DECIMAL(5,2)), 2, CAST(100 AS DECIMAL(5,2)), 3, "
        "CAST(0.01 AS DECIMAL(5,2)), 4], "
        "MAP[DATE '2024-01-02', 1, DATE '1999-12-31', 2, DATE '1970-01-01', 3, DATE '2024-06-15', 4], "
        "MAP[TIMESTAMP '2024-01-02 03:04:05.123', 1, TIMESTAMP '1999-12-31 00:00:00', 2, "
        "TIMESTAMP '1970-01-01 00:00:01', 3], MAP[TRUE, 1, FALSE, 2], "
        "MAP[1.5e0, 1, 0e0, 2, 100e0, 3, 3.25e0, 4], "
        "MAP[CAST(5000000000 AS BIGINT), 1, CAST(-1 AS BIGINT), 2, CAST(17 AS BIGINT), 3]",
        "+I[2024-01-02T03:04:05.123456789, [2024-01-02T03:04:05.123456789, 2024-01-02T03:04:05.123400], "
        "03:04, 2024-01-02T00:00, {0.01=4, -2.00=2, 100.00=3, 1.50=1}, "
        "{2024-06-15=4, 1999-12-31=2, 1970-01-01=3, 2024-01-02=1}, "
        "{1999-12-31T00:00=2, 2024-01-02T03:04:05.123=1, 1970-01-01T00:00:01=3}, {false=2, true=1}, "
        "{0.0=2, 1.5=1, 100.0=3, 3.25=4}, {-1=2, 17=3, 5000000000=1}]",
    ),
]


@pytest.mark.parametrize(("columns", "values", "printed"), CASES)
def test_the_print_connector_writes_javas_text(
    columns: str, values: str, printed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.execute_sql(f"CREATE TABLE p ({columns}) WITH ('connector' = 'print')")
    t_env.execute_sql(f"INSERT INTO p SELECT {values}").wait()
    assert [line for line in capsys.readouterr().out.splitlines() if line.startswith("+I")] == [printed]


def test_print_shows_bytes_as_sql_text(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")
    t_env.execute_sql(
        "SELECT X'010000' AS a, CAST(X'0102' AS BINARY(3)) AS b, X'FF80' AS f, ARRAY[X'01', X'ff'] AS g, "
        "ROW(X'0a', 1) AS h, MAP[X'01', X'02'] AS m"
    ).print()
    row = capsys.readouterr().out.splitlines()[3]
    assert [cell.strip() for cell in row.split("|")[1:-1]] == [
        "x'010000'",
        "x'010200'",
        "x'ff80'",
        "[x'01', x'ff']",
        "(x'0a', 1)",
        "{x'01'=x'02'}",
    ]
