"""SQL data types (Flink's ``LogicalTypeParser`` over the DDL's grammar): a type as DDL writes it
(``INT NOT NULL``, ``DECIMAL(10, 2)``, ``ROW<a INT, b ARRAY<STRING>>``, ``TIMESTAMP_LTZ(3)``)
parsed into a ``DataType``, for column definitions, CASTs and PyFlink's ``Union[DataType, str]``
parameters."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from millstream.table.common.types import DataType, DataTypes
from millstream.table.common.variant import VARIANT
from millstream.table.sql.literals import (
    LiteralError,
    interval_qualifier,
)
from millstream.table.sql.parser import _DIALECT, SqlError, _parse

__all__ = ["column_type", "parse_data_type"]

_TYPES: dict[str, Callable[[exp.DataType], DataType]] = {
    "TINYINT": lambda t: DataTypes.TINYINT(),
    "SMALLINT": lambda t: DataTypes.SMALLINT(),
    "INT": lambda t: DataTypes.INT(),
    "BIGINT": lambda t: DataTypes.BIGINT(),
    "FLOAT": lambda t: DataTypes.FLOAT(),
    "DOUBLE": lambda t: DataTypes.DOUBLE(),
    "BOOLEAN": lambda t: DataTypes.BOOLEAN(),
    "TEXT": lambda t: DataTypes.STRING(),
    "VARCHAR": lambda t: _sized(t, DataTypes.VARCHAR, DataTypes.STRING),
    "CHAR": lambda t: DataTypes.CHAR(_params(t)[0] if _params(t) else 1),
    "DATE": lambda t: DataTypes.DATE(),
    "TIMESTAMP": lambda t: DataTypes.TIMESTAMP(_params(t)[0] if _params(t) else 6),
    "TIMESTAMPTZ": lambda t: DataTypes.TIMESTAMP(
        _params(t)[0] if _params(t) else 6
    ),  # sqlglot's Spark TIMESTAMP
    "TIMESTAMPNTZ": lambda t: DataTypes.TIMESTAMP(_params(t)[0] if _params(t) else 6),
    "TIMESTAMPLTZ": lambda t: DataTypes.TIMESTAMP_LTZ(_params(t)[0] if _params(t) else 6),
    # Flink keeps a TIME to the millisecond: TIME(9) is TIME(3)
    "TIME": lambda t: DataTypes.TIME(min(_params(t)[0], 3) if _params(t) else 0),
    "DECIMAL": lambda t: _decimal(_params(t)),
    "BINARY": lambda t: DataTypes.BINARY(_params(t)[0] if _params(t) else 1),
    "VARBINARY": lambda t: _sized(t, DataTypes.VARBINARY, DataTypes.BYTES),
    "MAP": lambda t: DataTypes.MAP(_data_type(t.expressions[0]), _data_type(t.expressions[1])),
    "ARRAY": lambda t: DataTypes.ARRAY(_data_type(t.expressions[0])),
    "STRUCT": lambda t: DataTypes.ROW([DataTypes.FIELD(f.name, column_type(f)) for f in t.expressions]),
    "VARIANT": lambda t: VARIANT(),
}


def _sized(t: exp.DataType, sized: Callable[[int], DataType], unbounded: Callable[[], DataType]) -> DataType:
    """VARCHAR(n) / VARBINARY(n); without a length, or of the largest, STRING / BYTES (Flink's)."""
    params = _params(t)
    return sized(params[0]) if params and params[0] < 2**31 - 1 else unbounded()


def _decimal(params: list[int]) -> DataType:
    """DECIMAL, DECIMAL(p) or DECIMAL(p, s) (defaults 10 and 0, as Flink's; a precision above
    38 is 38, the scale from 0 to the precision)."""
    precision = params[0] if params else 10
    scale = params[1] if len(params) > 1 else 0
    if precision < 1:
        raise SqlError("Decimal precision must be between 1 and 38 (both inclusive).")
    precision = min(precision, 38)
    if not 0 <= scale <= precision:
        raise SqlError(f"Decimal scale must be between 0 and the precision {precision} (both inclusive).")
    return DataTypes.DECIMAL(precision, scale)


def _params(t: exp.DataType) -> list[int]:
    return [int(p.this.this) for p in t.expressions]


def _data_type(node: exp.DataType) -> DataType:
    if isinstance(node.this, exp.Interval):  # INTERVAL DAY TO SECOND(3): INTERVAL SECOND(3)
        try:
            data_type = interval_qualifier(node.this.args["unit"].name).data_type(nullable=True)
        except LiteralError as err:
            raise SqlError(str(err)) from err
        return data_type.not_null() if node.args.get("nullable") is False else data_type
    name = node.this.name if hasattr(node.this, "name") else str(node.this)
    if name not in _TYPES:
        raise SqlError(f"unsupported type: {node.sql(dialect=_DIALECT)}")
    data_type = _TYPES[name](node)
    return data_type.not_null() if node.args.get("nullable") is False else data_type


def column_type(column: exp.ColumnDef) -> DataType:
    """The type of a column definition (a DDL column, a ROW field), NOT NULL when declared so."""
    data_type = _data_type(column.args["kind"])
    for constraint in column.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
            data_type = data_type.not_null()
    return data_type


def parse_data_type(text: str) -> DataType:
    """A data type written as in DDL (``'TIMESTAMP_LTZ(3)'``, ``'STRING NOT NULL'``,
    ``'ROW<a INT, b ARRAY<INT NOT NULL>>'``), parsed by the DDL's own parser: what PyFlink's
    ``Union[DataType, str]`` parameters accept."""
    try:
        tree = _parse(f"CREATE TABLE t (c {text})")
    except SqlError as err:
        raise SqlError(
            f"Could not parse type {text!r}: not a data type as DDL writes one (INT, STRING NOT NULL, "
            "TIMESTAMP_LTZ(3), ROW<a INT> ...)"
        ) from err
    columns = tree.this.expressions if isinstance(tree, exp.Create) else []
    kinds = [c.args.get("kind") for c in columns[0].args.get("constraints") or []] if columns else []
    if len(columns) != 1 or not isinstance(columns[0], exp.ColumnDef) or columns[0].args.get("kind") is None:
        raise SqlError(f"Could not parse type {text!r}: not one data type")
    if any(not isinstance(k, exp.NotNullColumnConstraint) for k in kinds):
        raise SqlError(f"Could not parse type {text!r}: only NULL or NOT NULL may follow a type")
    return column_type(columns[0])
