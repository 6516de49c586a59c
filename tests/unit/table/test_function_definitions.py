"""One definition per built-in function: each Arrow kernel gives its row implementation's
results value by value (NULLs and edge values included), and both give Flink's.

Flink 2.3's values below were printed by PyFlink 2.3.0 (batch mode) for

    SELECT LN(x), LOG10(x), SQRT(x), EXP(y), POWER(x, 0.5), LOG2(x), GREATEST(a, b),
           LEAST(a, b), TRIM(s), LTRIM(s), RTRIM(s), CONCAT(s, c)
    FROM (VALUES (0.0, 1000.0, 1, NULL, '\\t a\\t ', NULL), (-1.0, 1.0, 2, 3, ' b ', 'x'))

    <Row(-inf, -inf, 0.0, inf, 0.0, -inf, None, None, '\\t a\\t', '\\t a\\t ', '\\t a\\t', None)>
    <Row(nan, nan, nan, 2.718281828459045, nan, nan, 3, 2, 'b', 'b ', ' b', ' b x')>

(Java's ``Math`` never raises; TRIM removes spaces only; GREATEST of a NULL is NULL.)
"""

from __future__ import annotations

import itertools
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.api.expressions import col, lit
from millstream.table.functions.arrow_temporal import ltz_values
from millstream.table.functions.builtins import BUILTIN_FUNCTIONS, builtin_definition

_SAMPLES: dict[str, tuple[pa.DataType, list[Any]]] = {
    "STRING": (pa.string(), ["", " a ", "\t a\t ", "ÄbC", "  ", None]),
    "BIGINT": (pa.int64(), [0, 1, -7, 12, 2**40, None]),
    "INT": (pa.int32(), [0, 3, -4, 9, None]),
    "DOUBLE": (pa.float64(), [0.0, -0.0, 1.5, -1.0, 1000.0, math.inf, -math.inf, math.nan, None]),
    "DECIMAL": (pa.decimal128(5, 2), [Decimal("0.50"), Decimal("-1.25"), Decimal("0.00"), None]),
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


def _row_value(definition: Any, values: tuple[Any, ...]) -> Any:
    if not definition.null_aware and None in values:
        return None
    return definition.impl(*values)


@pytest.mark.parametrize("name", sorted(n for n, d in BUILTIN_FUNCTIONS.items() if d.arrow is not None))
def test_each_arrow_kernel_gives_the_row_implementations_values(name: str) -> None:
    definition = BUILTIN_FUNCTIONS[name]
    checked = 0
    for arity in (1, 2, 3):
        for roots in itertools.product(sorted(_SAMPLES), repeat=arity):
            if not definition.arrow_applies(list(roots)):
                continue
            rows = list(itertools.product(*(_SAMPLES[r][1] for r in roots)))
            if name == "MOD":  # Java's % of integers by 0 fails: both paths raise
                rows = [r for r in rows if r[1] != 0]
            kernel = definition.arrow
            assert kernel is not None
            for row, arrow_value in _kernel_values(kernel, roots, rows):
                expected = _row_value(definition, row)
                if isinstance(expected, float) or isinstance(arrow_value, float):
                    assert (
                        _same(float(expected), float(arrow_value))
                        if expected is not None
                        else arrow_value is None
                    )
                else:
                    assert arrow_value == expected, (name, row, arrow_value, expected)
            checked += len(rows)
    assert checked > 0, f"{name}'s Arrow kernel applies to no sample type"


def _kernel_values(kernel: Any, roots: tuple[str, ...], rows: list[Any]) -> list[tuple[Any, Any]]:
    """Each row with the kernel's value of it, as the row path holds values (a TIMESTAMP_LTZ's
    instant as the session's wall clock); a kernel that takes only some literals as its later
    arguments (``accepts``, as TO_TIMESTAMP_LTZ's precision) gets them as literals, each it
    takes alone."""
    accepts = getattr(kernel, "accepts", None)
    groups = [(rows, None)]
    if accepts is not None and len(roots) > 1:
        literal_rows = dict.fromkeys(r[1:] for r in rows)
        groups = [
            ([r for r in rows if r[1:] == literals], literals)
            for literals in literal_rows
            if accepts([col("x"), *(lit(v) for v in literals)])
        ]
    found: list[tuple[Any, Any]] = []
    for group, literals in groups:
        if literals is None:
            arguments = [
                pa.array([r[i] for r in group], type=_SAMPLES[root][0]) for i, root in enumerate(roots)
            ]
        else:
            first = pa.array([r[0] for r in group], type=_SAMPLES[roots[0]][0])
            arguments = [
                first,
                *(pa.scalar(v, _SAMPLES[root][0]) for v, root in zip(literals, roots[1:], strict=True)),
            ]
        result = kernel(*arguments)
        values = result.to_pylist()
        if pa.types.is_timestamp(result.type) and result.type.tz is not None:
            values = ltz_values(values)
        found.extend(zip(group, values, strict=True))
    return found


def test_a_function_is_found_by_any_of_its_sql_spellings() -> None:
    assert builtin_definition("ceiling") is BUILTIN_FUNCTIONS["CEIL"]
    assert builtin_definition("substr") is BUILTIN_FUNCTIONS["SUBSTRING"]
    assert builtin_definition("no_such_function") is None


_FLINK = [
    (-math.inf, -math.inf, 0.0, math.inf, 0.0, -math.inf, None, None, "\t a\t", "\t a\t ", "\t a\t", None),
    (math.nan, math.nan, math.nan, math.e, math.nan, math.nan, 3, 2, "b", "b ", " b", " b x"),
]
_SELECT = (
    "SELECT LN(x), LOG10(x), SQRT(x), EXP(y), POWER(x, 0.5), LOG2(x), GREATEST(a, b), LEAST(a, b), "
    "TRIM(s), LTRIM(s), RTRIM(s), CONCAT(s, c) FROM {source}"
)


def _assert_flinks(rows: list[tuple[Any, ...]]) -> None:
    assert len(rows) == len(_FLINK)
    for row, expected in zip(rows, _FLINK, strict=True):
        assert all(
            _same(a, b) if isinstance(b, float) else a == b for a, b in zip(row, expected, strict=True)
        ), row


def test_values_give_flinks_edge_results() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    source = (
        "(VALUES (CAST(0.0 AS DOUBLE), CAST(1000.0 AS DOUBLE), 1, CAST(NULL AS INT), '\t a\t ', "
        "CAST(NULL AS STRING)), (CAST(-1.0 AS DOUBLE), CAST(1.0 AS DOUBLE), 2, 3, ' b ', 'x')) "
        "AS v(x, y, a, b, s, c)"
    )
    with t_env.execute_sql(_SELECT.format(source=source)).collect() as rows:
        _assert_flinks([tuple(r) for r in rows])


@pytest.mark.parametrize("columnar", ["true", "false"])
def test_a_json_table_gives_flinks_edge_results_on_arrow_and_on_rows(tmp_path: Path, columnar: str) -> None:
    data = tmp_path / "t.json"
    rows = [
        {"n": 1, "x": 0.0, "y": 1000.0, "a": 1, "b": None, "s": "\t a\t ", "c": None},
        {"n": 2, "x": -1.0, "y": 1.0, "a": 2, "b": 3, "s": " b ", "c": "x"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("table.exec.columnar.enabled", columnar)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE t (n INT, x DOUBLE, y DOUBLE, a INT, b INT, s STRING, c STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json')"
    )
    sql = _SELECT.format(source="t WHERE n > 0")
    assert ("columnar=[arrow]" in t_env.explain_sql(sql)) == (columnar == "true")
    with t_env.execute_sql(sql).collect() as result:
        _assert_flinks(sorted((tuple(r) for r in result), key=lambda r: r[-3]))


def test_floor_and_ceil_of_a_decimal_keep_its_precision() -> None:
    """PyFlink 2.3.0 types CEIL(CAST(-2.50 AS DECIMAL(3, 2))) DECIMAL(3, 0) NOT NULL (printing
    -2) and FLOOR of a DECIMAL(9, 4) DECIMAL(9, 0)."""
    from millstream.table.common.printing import summary_string
    from millstream.table.common.types import DataTypes

    assert (
        summary_string(BUILTIN_FUNCTIONS["CEIL"].result([DataTypes.DECIMAL(3, 2, False)]))
        == "DECIMAL(3, 0) NOT NULL"
    )
    assert summary_string(BUILTIN_FUNCTIONS["FLOOR"].result([DataTypes.DECIMAL(9, 4)])) == "DECIMAL(9, 0)"
