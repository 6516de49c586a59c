"""What only a fresh Python interpreter shows (each test starts ``python -c``, so none of them
is in the unit tier): undeclared keys reach the same key groups whatever the hash seed, and
a vectorized Calc or a columnar scan imports no pandas (0.3 s of a TaskManager's first job;
``tests/unit/table/test_vectorized_literals.py`` has the literals themselves)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from millstream.runtime.state.key_groups import assign_to_key_group
from tests.unit.runtime.test_key_groups import KEYS


def test_undeclared_keys_hash_alike_across_processes_with_different_hash_seeds() -> None:
    script = (
        "from millstream.runtime.state.key_groups import assign_to_key_group as g;"
        f"print([g(k, 128) for k in {KEYS!r}])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert outputs == {f"{[assign_to_key_group(k, 128) for k in KEYS]}\n"}


def test_a_calc_of_literals_and_columns_imports_no_pandas() -> None:
    program = (
        "import sys\n"
        "import pyarrow as pa\n"
        "from millstream.table.sql.expressions import parse_expression\n"
        "from millstream.table.runtime.vectorized import _evaluate\n"
        "from millstream.table.common.types import DataTypes\n"
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
from millstream.table.connectors.columnar_reader import ColumnarFormat, ColumnarReader
from millstream.table.planner.columnar import fuse
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.execute_sql('''CREATE TABLE t (id BIGINT, v INT, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem',
    'path' = '{path}', 'format' = 'json')''')
query = "SELECT id, v * 2 AS w, CASE WHEN v > 3 THEN 'hi' ELSE NULL END AS c FROM t WHERE v <> 1"
scan = fuse(t_env.sql_query(query)._plan)
fmt = ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 0)
reader = ColumnarReader([FileSourceSplit('{path}', 0, {path.stat().st_size}, {path.stat().st_size})], fmt)
rows = 0
while (polled := reader.poll_timestamped(1024)) is not None:
    rows += sum(len(element) for element in polled[0])
print(rows, 'pandas' in sys.modules)
"""
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["428", "False"]
