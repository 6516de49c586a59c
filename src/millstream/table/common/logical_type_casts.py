"""Which types cast to which without a word, as Flink's ``LogicalTypeCasts``: an implicit cast
widens without losing information (INT to BIGINT, DECIMAL or DOUBLE; CHAR(n) to VARCHAR; a
TIMESTAMP to a DATE; a NULL to anything), and a cast can be avoided when the value is already
of the type (a NOT NULL type stored in a nullable one, CHAR(2) in VARCHAR(3)). An INSERT's
query must cast implicitly to its sink (``sink_mismatch``: Flink's ``DynamicSinkUtils`` check and
message).

STRING is VARCHAR of the longest length and BYTES VARBINARY of it, as in Flink.
"""

from __future__ import annotations

from collections.abc import Sequence

from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType

__all__ = ["sink_mismatch", "supports_avoiding_cast", "supports_implicit_cast"]

_CHARACTER = {"CHAR", "VARCHAR", "STRING"}
_BINARY = {"BINARY", "VARBINARY", "BYTES"}
_EXACT = {"TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL"}
_NUMERIC = _EXACT | {"FLOAT", "DOUBLE"}
_INTERVALS = {"INTERVAL_YEAR_MONTH", "INTERVAL_DAY_TIME"}
_CONSTRUCTED = {"ARRAY", "MAP", "ROW", "MULTISET"}
_MAX_LENGTH = 2**31 - 1
_ROOTS = {"STRING": "VARCHAR", "BYTES": "VARBINARY"}

# target root -> the source roots that cast to it implicitly (besides itself)
_IMPLICIT: dict[str, set[str]] = {
    "VARCHAR": _CHARACTER,
    "VARBINARY": _BINARY,
    "DECIMAL": _NUMERIC,
    "SMALLINT": {"TINYINT"},
    "INT": {"TINYINT", "SMALLINT"},
    "BIGINT": {"TINYINT", "SMALLINT", "INT"},
    "FLOAT": {"TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL"},
    "DOUBLE": _NUMERIC,
    "DATE": {"TIMESTAMP"},
    "TIME": {"TIMESTAMP"},
    "TIMESTAMP": {"TIMESTAMP_LTZ"},
    "TIMESTAMP_LTZ": {"TIMESTAMP"},
}


def _root(t: DataType) -> str:
    return _ROOTS.get(t.root, t.root)


def _length(t: DataType) -> int:
    return int(t.params[0]) if t.params else _MAX_LENGTH


def _children(t: DataType) -> list[DataType]:
    if t.root == "ARRAY":
        return [t.element_type]  # type: ignore[attr-defined]
    if t.root == "MAP":
        return [t.key_type, t.value_type]  # type: ignore[attr-defined]
    if t.root == "ROW":
        return list(t.field_types())  # type: ignore[attr-defined]
    return []


def supports_implicit_cast(source: DataType, target: DataType) -> bool:
    """Whether ``source`` casts to ``target`` without losing information (``LogicalTypeCasts
    .supportsImplicitCast``)."""
    if source.is_nullable() and not target.is_nullable():
        return False
    s, t = _root(source), _root(target)
    if s == "NULL" or source.nullable() == target.nullable():
        return True
    if {s, t} & _INTERVALS and {s, t} & _EXACT:
        return True  # Flink's planner types every interval with one field
    if s in _CONSTRUCTED or t in _CONSTRUCTED:
        children, others = _children(source), _children(target)
        return (
            s == t
            and len(children) == len(others)
            and all(supports_implicit_cast(a, b) for a, b in zip(children, others, strict=True))
        )
    return s == t or s in _IMPLICIT.get(t, set())


def supports_avoiding_cast(source: DataType, target: DataType) -> bool:
    """Whether a ``source`` value already is a ``target`` value (``LogicalTypeCasts
    .supportsAvoidingCast``): the same type, or a NOT NULL one stored as nullable, or a string
    contained in the target's (CHAR(2) in VARCHAR(3); not VARCHAR(2) in CHAR(3))."""
    if source.is_nullable() and not target.is_nullable():
        return False
    s, t = _root(source), _root(target)
    contained = {"VARCHAR": ("CHAR", "VARCHAR"), "VARBINARY": ("BINARY", "VARBINARY")}
    if s in contained.get(t, ()):
        return _length(source) <= _length(target)
    if s in _CONSTRUCTED and s == t:
        children, others = _children(source), _children(target)
        return len(children) == len(others) and all(
            supports_avoiding_cast(a, b) for a, b in zip(children, others, strict=True)
        )
    return source.nullable() == target.nullable()


def sink_mismatch(
    table: str,
    query_names: Sequence[str],
    query_types: Sequence[DataType],
    sink_names: Sequence[str],
    sink_types: Sequence[DataType],
) -> str | None:
    """Flink's message when a query cannot be written into a sink (``DynamicSinkUtils
    .validateSchemaAndApplyImplicitCast``), or None when each column casts implicitly to the
    sink's (NOT NULL is checked when rows are written, not here: the sink's types are taken
    nullable)."""
    sinks = [t.nullable() for t in sink_types]
    if len(query_types) != len(sinks):
        cause = "Different number of columns."
    else:
        pairs = enumerate(zip(query_types, sinks, strict=True))
        wrong = [i for i, (q, s) in pairs if not supports_implicit_cast(q, s)]
        if not wrong:
            return None
        cause = f"Incompatible types for sink column '{sink_names[wrong[0]]}' at position {wrong[0] + 1}."
    query = ", ".join(f"{n}: {summary_string(t)}" for n, t in zip(query_names, query_types, strict=True))
    sink = ", ".join(f"{n}: {summary_string(t)}" for n, t in zip(sink_names, sinks, strict=True))
    return (
        f"Column types of query result and sink for '{table}' do not match.\n"
        f"Cause: {cause}\n\nQuery schema: [{query}]\nSink schema:  [{sink}]"
    )
