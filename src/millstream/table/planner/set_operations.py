"""Set operations: ``UNION [ALL]``, ``INTERSECT [ALL]``, ``EXCEPT [ALL]`` (SQL) and
``union_all`` / ``union`` / ``intersect`` / ``intersect_all`` / ``minus`` / ``minus_all``
(Table API), planned as Flink's planner rewrites them:

- UNION ALL is a ``Union`` of the inputs' rows (Flink's Union: a DataStream union); UNION
  is the distinct rows of that union (a group aggregation on every column).
- INTERSECT is the distinct rows of a semi join of the left input with the right one on all
  columns compared as ``IS NOT DISTINCT FROM`` (NULL meets NULL), EXCEPT an anti join (Flink's
  ``ReplaceIntersectWithSemiJoinRule`` / ``ReplaceMinusWithAntiJoinRule``).
- INTERSECT ALL and EXCEPT ALL count each row on both sides (a group aggregation over the
  union of the inputs tagged 1/0 and 0/1) and repeat it ``min(l, r)`` / ``l - r`` times
  (Flink's ``RewriteIntersectAllRule`` / ``RewriteMinusAllRule`` with ``ReplicateRows``); in
  streaming the repetitions follow the counts' updates as retractions and insertions.

The inputs must have as many columns; each output column has the common type of the inputs'
(the wider number, a string for strings; nullable if either is), and an input whose values
need converting to it gets a projection casting them. The names are the left input's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.expression import col, lit
from millstream.table.expression.resolved import NUMERIC_ORDER
from millstream.table.planner.joins import Join
from millstream.table.planner.nodes import FlatMap, PlanNode
from millstream.table.planner.projection import aggregate, project

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["Union", "intersect_or_except", "intersect_or_except_all", "union_all"]

_TEXT = {"STRING", "VARCHAR", "CHAR"}


@dataclass(frozen=True)
class Union(PlanNode):
    """``UNION ALL``: every input's rows (and changes), as they come."""

    inputs: tuple[PlanNode, ...] = field(default_factory=tuple)

    def plan_inputs(self) -> list[PlanNode]:
        return list(self.inputs)

    def translate(self, ctx: PlanningContext) -> Any:
        streams = [child.translate(ctx) for child in self.inputs]
        return streams[0].union(*streams[1:])


def _common_type(operation: str, position: int, a: DataType, b: DataType) -> DataType:
    """The type both inputs' column ``position`` take (Flink's least restrictive type)."""
    nullable = a.is_nullable() or b.is_nullable()
    if a.root == "NULL" or b.root == "NULL":
        chosen = b if a.root == "NULL" else a
        return chosen.nullable()
    if a.root in _TEXT and b.root in _TEXT:
        chosen = a if a == b or a.root == b.root == "STRING" else DataTypes.STRING()
    elif a.root == b.root and a.root != "DECIMAL":
        chosen = a
    elif a.root in NUMERIC_ORDER and b.root in NUMERIC_ORDER:
        chosen = _wider_number(a, b)
    else:
        raise ValueError(
            f"{operation}: column {position + 1} has types {a!r} and {b!r}, which have no common type"
        )
    return chosen.nullable() if nullable else chosen.not_null()


def _wider_number(a: DataType, b: DataType) -> DataType:
    """The wider of two numeric types; a DECIMAL with an integer or another DECIMAL keeps the
    digits of both (Flink's ``LogicalTypeMerging``)."""
    if a.root == "DECIMAL" or b.root == "DECIMAL":
        if {a.root, b.root} & {"FLOAT", "DOUBLE"}:
            return DataTypes.DOUBLE()
        digits = {"TINYINT": (3, 0), "SMALLINT": (5, 0), "INT": (10, 0), "BIGINT": (19, 0)}
        (pa, sa), (pb, sb) = (
            (int(t.params[0]), int(t.params[1])) if t.root == "DECIMAL" else digits[t.root] for t in (a, b)
        )
        scale = max(sa, sb)
        return DataTypes.DECIMAL(min(38, max(pa - sa, pb - sb) + scale), scale)
    return a if NUMERIC_ORDER.index(a.root) >= NUMERIC_ORDER.index(b.root) else b


def _cast_to(node: PlanNode, types: list[DataType]) -> PlanNode:
    """``node`` with each column whose type's kind differs from ``types`` cast to it."""
    if all(t.root == u.root and t.params == u.params for t, u in zip(node.types, types, strict=True)):
        return node
    columns = [
        col(name) if t.root == u.root and t.params == u.params else col(name).cast(u).alias(name)
        for name, t, u in zip(node.names, node.types, types, strict=True)
    ]
    return project(node, columns, lambda i: node.names[i])


def _aligned(operation: str, left: PlanNode, right: PlanNode) -> tuple[PlanNode, PlanNode, list[DataType]]:
    """Both inputs with their columns of the common types (checked to be as many)."""
    if len(left.names) != len(right.names):
        raise ValueError(
            f"{operation}: the inputs have {len(left.names)} and {len(right.names)} columns; "
            "they must have as many"
        )
    types = [
        _common_type(operation, i, a, b) for i, (a, b) in enumerate(zip(left.types, right.types, strict=True))
    ]
    return _cast_to(left, types), _cast_to(right, types), types


def union_all(left: PlanNode, right: PlanNode, operation: str = "UNION ALL") -> PlanNode:
    """``left UNION ALL right``: the left input's column names, the common types."""
    left, right, types = _aligned(operation, left, right)
    rowtime = left.rowtime if left.rowtime is not None and left.rowtime == right.rowtime else None
    proctime = left.proctime if left.proctime is not None and left.proctime == right.proctime else None
    return Union(
        list(left.names),
        types,
        left.updating or right.updating,
        rowtime=rowtime,
        proctime=proctime,
        label="Union",
        inputs=(left, right),
    )


def intersect_or_except(operation: str, left: PlanNode, right: PlanNode) -> PlanNode:
    """The left rows that (INTERSECT) or that do not (EXCEPT) occur among the right rows, every
    column compared as ``IS NOT DISTINCT FROM`` (the rows, not yet made distinct)."""
    left, right, types = _aligned(operation, left, right)
    everything = list(range(len(types)))
    keys = [_item(i) for i in everything]
    join_type = "SEMI" if operation == "INTERSECT" else "ANTI"
    updating = left.updating or right.updating or join_type == "ANTI"
    return Join(
        list(left.names),
        types,
        updating,
        left=left,
        right=right,
        join_type=join_type,
        left_keys=keys,
        right_keys=keys,
        key_type=BinaryRowKeyType.of(types),  # hash[every column], as Flink's
        null_safe=True,
    )


def _item(index: int) -> Any:
    return lambda row: row[index]


def intersect_or_except_all(operation: str, left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """INTERSECT ALL / EXCEPT ALL: each row as many times as it occurs on both sides (the
    fewer) / on the left more than on the right."""
    left, right, _ = _aligned(operation, left, right)
    names = list(left.names)
    tagged = [
        project(side, [*(col(n) for n in side.names), lit(ones).alias("$l"), lit(1 - ones).alias("$r")], str)
        for side, ones in ((left, 1), (right, 0))
    ]
    both = union_all(tagged[0], tagged[1], operation)
    keys = [col(n) for n in names]
    counted = aggregate(both, keys, [*keys, col("$l").sum.alias("$cl"), col("$r").sum.alias("$cr")], batch)
    width, intersect = len(names), operation == "INTERSECT ALL"

    def repeated(row: Any) -> list[tuple[Any, ...]]:
        values = tuple(row)
        lefts, rights = values[width], values[width + 1]
        times = min(lefts, rights) if intersect else lefts - rights
        return [values[:width]] * max(times, 0)

    return FlatMap(
        names,
        list(counted.types[:width]),
        counted.updating,
        input=counted,
        rows_of=repeated,
        label="ReplicateRows",
    )
