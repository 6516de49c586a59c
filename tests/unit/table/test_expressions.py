"""Table API expressions: Flink's result types and SQL's semantics, evaluated on one row."""

from __future__ import annotations

import pytest

from millstream.table import DataTypes
from millstream.table.common.printing import summary_string
from millstream.table.expressions import and_, col, if_then_else, lit, not_, or_

NAMES = ["k", "x", "s", "b", "n"]
TYPES = [DataTypes.BIGINT(), DataTypes.DOUBLE(), DataTypes.STRING(), DataTypes.BOOLEAN(), DataTypes.INT()]


def evaluate(expression, row=(-7, 2.5, "12", None, 2)):  # type: ignore[no-untyped-def]
    compiled = expression.resolve(NAMES, TYPES)
    return compiled.fn(row), summary_string(compiled.data_type)


@pytest.mark.parametrize(
    ("expression", "value", "type_"),
    [
        (col("k") + 1, -6, "BIGINT"),  # BIGINT + INT NOT NULL: the wider, nullable
        (col("k") / 2, -3, "BIGINT"),  # integer division truncates toward zero (Java)
        (col("k") % 2, -1, "INT"),  # MOD: the dividend's sign, the divisor's type
        (col("k") * col("x"), -17.5, "DOUBLE"),
        (col("k") > col("n"), False, "BOOLEAN"),
        (lit(7), 7, "INT NOT NULL"),
        (lit("ab"), "ab", "CHAR(2) NOT NULL"),
        (lit(2**40), 2**40, "BIGINT NOT NULL"),
        (col("s").cast(DataTypes.BIGINT()), 12, "BIGINT"),
        (col("k").cast(DataTypes.STRING()), "-7", "STRING"),
        (col("b").is_null, True, "BOOLEAN NOT NULL"),
        (col("k") + col("b").cast(DataTypes.INT()), None, "BIGINT"),  # NULL in, NULL out
        (if_then_else(col("k") < 0, lit("neg"), lit("pos")), "neg", "CHAR(3) NOT NULL"),
    ],
)
def test_values_and_types_follow_flink(expression, value, type_):  # type: ignore[no-untyped-def]
    assert evaluate(expression) == (value, type_)


def test_logic_is_three_valued():
    null, true, false = col("b"), col("k") < 0, col("k") > 0
    assert evaluate(and_(null, false))[0] is False  # FALSE decides AND
    assert evaluate(and_(null, true))[0] is None
    assert evaluate(or_(null, true))[0] is True  # TRUE decides OR
    assert evaluate(or_(null, false))[0] is None
    assert evaluate(not_(null))[0] is None
    assert evaluate((col("k") < 0) & (col("n") == 2))[0] is True


def test_an_unknown_column_is_named_with_the_table_columns():
    with pytest.raises(ValueError, match=r"Cannot resolve field \[z\], input field list:\[k, x, s, b, n\]"):
        col("z").resolve(NAMES, TYPES)
