"""Literals of a vectorized Calc are Arrow scalars built from their bytes: the same scalars
``pa.scalar`` makes (random values, hypothesis), without pyarrow's conversion of Python
values, which imports pandas (0.3 s of a TaskManager's first job); a columnar scan reads
its rowtimes and watermarks from Arrow buffers for the same reason."""

from __future__ import annotations

import decimal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from millstream.table import expression as e
from millstream.table.types import DataTypes
from millstream.table.vectorized import _literal

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(),
)


@given(value=values)
def test_a_literal_is_the_scalar_pyarrow_makes_of_it(value: object) -> None:
    made = _literal(e._Literal(value))
    expected = pa.scalar(value)
    assert made.type == expected.type and made.equals(expected)


@given(
    value=st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False, allow_infinity=False)
)
def test_a_decimal_literal_has_its_declared_precision_and_scale(value: decimal.Decimal) -> None:
    declared = DataTypes.DECIMAL(12, 3)
    made = _literal(e._Literal(value, declared))
    assert made.equals(pa.scalar(value, type=declared.to_arrow()))


def test_a_calc_of_literals_and_columns_imports_no_pandas() -> None:
    program = (
        "import sys\n"
        "import pyarrow as pa\n"
        "from millstream.table.sql_expressions import parse_expression\n"
        "from millstream.table.vectorized import _evaluate\n"
        "from millstream.table.types import DataTypes\n"
        "x = pa.Array.from_buffers(pa.int64(), 2, [None, pa.py_buffer(bytes(16))])\n"
        "expression = parse_expression(\"CASE WHEN x > 2 THEN 'big' ELSE NULL END\")\n"
        "_evaluate(expression, ['x'], [x].__getitem__, 2, [DataTypes.BIGINT()])\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_columnar_scan_with_a_watermark_and_a_filter_imports_no_pandas(tmp_path: Path) -> None:
    """A columnar scan's Calc, filter, rowtimes and watermark cuts read Arrow buffers directly:
    a TaskManager running Nexmark q0's shape imports no pandas (0.3 s of its first job)."""
    path = tmp_path / "events.json"
    path.write_text(
        "".join(
            f'{{"id": {i}, "v": {i % 7}, "ts": "2024-01-01 00:00:{i % 60:02d}.000"}}\n' for i in range(500)
        )
    )
    program = f"""
import sys
from millstream.connectors.file.readers import FileSourceSplit
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.columnar_scan import _ColumnarFormat, _ColumnarReader, fuse
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.execute_sql('''CREATE TABLE t (id BIGINT, v INT, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem',
    'path' = '{path}', 'format' = 'json')''')
query = "SELECT id, v * 2 AS w, CASE WHEN v > 3 THEN 'hi' ELSE NULL END AS c FROM t WHERE v <> 1"
scan = fuse(t_env.sql_query(query)._plan)
fmt = _ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 0)
reader = _ColumnarReader([FileSourceSplit('{path}', 0, {path.stat().st_size}, {path.stat().st_size})], fmt)
rows = 0
while (polled := reader.poll_timestamped(1024)) is not None:
    rows += sum(len(element) for element in polled[0])
print(rows, 'pandas' in sys.modules)
"""
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["428", "False"]
