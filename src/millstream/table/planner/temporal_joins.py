"""Joins ``FOR SYSTEM_TIME AS OF`` the left table's time attribute, as Flink's planner plans
them (``StreamPhysicalTemporalJoin`` / ``StreamPhysicalLookupJoin`` and their exec nodes):

* **event-time temporal join** (``TemporalJoin``): ``AS OF`` the left's rowtime against a
  versioned table (a primary key and a rowtime: a changelog or upsert source, an insert-only
  table with a key, a view deduplicated to the last row per key). Both inputs are keyed by the
  equi-keys (the versioned table's key among them) and meet in
  :class:`~millstream.table.runtime.temporal_join.TemporalRowTimeJoinFunction`; the versioned
  side's update-befores are dropped (``DropUpdateBefore`` above a source that emits them, as
  Flink's planner asks only for update-afters);
* **lookup join** (``LookupJoin``): ``AS OF`` the left's processing-time attribute against a
  lookup table (a source implementing
  :class:`~millstream.table.common.lookup_source.LookupTableSource`): each left row fetches the
  rows of its key when it is processed (:mod:`millstream.table.runtime.lookup_join`), in the
  left's chain, no exchange.

The SQL front end checks what Flink refuses (``sql/temporal_join.py``); ``explain`` prints the
nodes as Flink does: ``TemporalJoin(joinType=[InnerJoin], where=[((currency = currency0) AND
__TEMPORAL_JOIN_CONDITION(...))], select=[...])``, ``LookupJoin(table=[...], joinType=[...],
lookup=[key=auction], select=[...])``. Neither runs on ``--target spark`` (Spark has no join
of a version valid at a row's time, nor a per-row lookup).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, cast

from millstream.common.config_option import ConfigurationError
from millstream.common.config_options import EXECUTION_TARGET
from millstream.table.common.lookup_source import LookupContext, LookupTableSource
from millstream.table.common.options import state_ttl_ms
from millstream.table.common.row_kind import UPDATE_BEFORE
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression, _Alias, _Column, col
from millstream.table.expression.logic import and_
from millstream.table.expression.walk import columns_of, replaced
from millstream.table.planner.explain_expressions import _literal, render
from millstream.table.planner.joins import _join_key_type, keyed_sides
from millstream.table.planner.nodes import ChangelogNormalize, Filter, PlanNode, Project, SourceScan
from millstream.table.planner.over import Rank
from millstream.table.planner.projection import project
from millstream.table.planner.windows import WatermarkAssigner
from millstream.table.runtime.lookup_join import LookupJoinRunner
from millstream.table.runtime.temporal_join import TemporalRowTimeJoinFunction

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = [
    "DropUpdateBefore",
    "LookupJoin",
    "LookupKey",
    "LookupTable",
    "TemporalJoin",
    "correlate_terms",
    "drop_update_before",
    "lookup_join",
    "lookup_join_terms",
    "prune_temporal_join_inputs",
    "temporal_join",
    "temporal_join_terms",
    "versioned_attributes",
]

_JOIN_TYPES = {"INNER": "InnerJoin", "LEFT": "LeftOuterJoin"}


def _refuse_on_spark(ctx: PlanningContext, feature: str) -> None:
    if ctx.env._configuration.get(EXECUTION_TARGET) == "spark":
        raise ConfigurationError(
            f"{feature} cannot run on --target spark: Spark has no equal of it; run the job on "
            "millstream's runtime (--target embedded or cluster://...)"
        )


@dataclass(frozen=True)
class DropUpdateBefore(PlanNode):
    """A changelog without its update-befores (Flink's ``DropUpdateBefore``): below an
    event-time temporal join's versioned side, whose operator needs only the new versions."""

    input: PlanNode | None = None

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        return self.input.translate(ctx).filter(lambda kv: kv[0] != UPDATE_BEFORE)


def drop_update_before(plan: PlanNode) -> PlanNode:
    """``plan`` with a ``DropUpdateBefore`` right above the scan of a source that emits
    update-befores (through the watermark assigner and Calc nodes above it), as Flink places it."""
    if isinstance(plan, SourceScan) and plan.source is not None and plan.source.changelog == "all":
        return DropUpdateBefore(list(plan.names), list(plan.types), True, input=plan)
    if isinstance(plan, (WatermarkAssigner, Project, Filter)) and plan.input is not None:
        below = drop_update_before(plan.input)
        return plan if below is plan.input else dataclasses.replace(cast(Any, plan), input=below)
    return plan


# -- versioned tables -------------------------------------------------------------------------------


def versioned_attributes(
    plan: PlanNode, declared_key: Callable[[SourceScan], list[str] | None]
) -> tuple[list[str] | None, str | None]:
    """The primary key (column names, None: none) and rowtime column (None: none) of ``plan``
    as a versioned table: a source's declared key (``declared_key``), an upsert source's
    normalized key, a deduplication's (``ROW_NUMBER() ... = 1``) partition keys, carried
    through watermark assigners, filters and projections that keep the columns (Flink's
    unique-key metadata of the versioned side)."""
    time = plan.names[plan.rowtime] if plan.rowtime is not None else None
    if isinstance(plan, SourceScan):
        return declared_key(plan), time
    if isinstance(plan, ChangelogNormalize):
        assert plan.input is not None
        below_key, _ = versioned_attributes(plan.input, declared_key)
        return below_key or [plan.names[i] for i in plan.key_indexes], time
    if isinstance(plan, Rank) and plan.input is not None:
        _, below_time = versioned_attributes(plan.input, declared_key)
        single = plan.limit == 1 and plan.rank_column is None and plan.dedup
        key = list(plan.partition_names) if single and plan.partition_names else None
        return key, time or below_time
    if isinstance(plan, (WatermarkAssigner, Filter, DropUpdateBefore)) and plan.input is not None:
        key, below_time = versioned_attributes(plan.input, declared_key)
        return key, time or below_time
    if isinstance(plan, Project) and plan.input is not None and plan.expressions is not None:
        key, below_time = versioned_attributes(plan.input, declared_key)
        renamed: dict[str, str] = {}  # input column -> the first output column passing it on
        for name, expression in zip(plan.names, plan.expressions, strict=True):
            inner = expression.operand if isinstance(expression, _Alias) else expression
            if isinstance(inner, _Column):
                renamed.setdefault(inner.name, name)
        mapped = [renamed.get(k) for k in key or []]
        return (
            [m for m in mapped if m is not None] if key and None not in mapped else None,
            time or (renamed.get(below_time) if below_time is not None else None),
        )
    return None, time


# -- event-time temporal join -----------------------------------------------------------------------


@dataclass(frozen=True)
class TemporalJoin(PlanNode):
    """``left [LEFT] JOIN right FOR SYSTEM_TIME AS OF left.rowtime ON ...`` (see the module
    docstring; ``temporal_join`` builds it). ``names``: the left's columns then the right's,
    renamed where the left has the name (``currency0``)."""

    left: PlanNode | None = None
    right: PlanNode | None = None
    join_type: str = "INNER"  # INNER or LEFT
    left_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    right_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    residual: Callable[[tuple[Any, ...]], Any] | None = None  # the condition but the equi-keys
    times: tuple[int, int] = (0, 0)  # the left's and the right's rowtime columns
    condition: Any = None  # the ON condition as written, over ``names`` (explain prints it)
    left_key_columns: tuple[str, ...] = ()  # the left's key columns
    right_key_expressions: tuple[Expression, ...] = ()  # the right's keys, over its names here
    rest: tuple[Expression, ...] = ()  # the conjuncts but the equi-keys, over ``names``
    primary_key: tuple[str, ...] = ()  # the versioned table's key, in ``names``
    compiled: ClassVar[dict[str, str]] = {
        "residual": "condition",
        "left_keys": "condition",
        "right_keys": "condition",
    }

    def right_names(self) -> list[str]:
        """The right input's columns as the join names them."""
        assert self.left is not None
        return list(self.names[len(self.left.names) :])

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.left is not None and self.right is not None
        _refuse_on_spark(ctx, "A temporal join (FOR SYSTEM_TIME AS OF a rowtime attribute)")
        roots = (self.left.types[self.times[0]].root, self.right.types[self.times[1]].root)
        widths = (len(self.left.names), len(self.right.names))
        function = TemporalRowTimeJoinFunction(
            self.join_type == "LEFT", widths, self.residual, self.times, roots
        )
        function.ttl_ms = state_ttl_ms(ctx.config)
        return keyed_sides(self, ctx).process(function).name("TemporalJoin")


def temporal_join(
    inputs: tuple[PlanNode, PlanNode],
    right_names: list[str],
    join_type: str,
    condition: Expression,
    keys: tuple[list[str], list[Expression]],
    rest: list[Expression],
    versioned: tuple[list[str], str],
) -> TemporalJoin:
    """The temporal join of ``inputs`` (left, right; the right's columns named ``right_names``
    in the join) on ``condition``: its equi-keys ``keys`` (the left's key columns, the right's
    key expressions over ``right_names``) and the ``rest``; ``versioned``: the right's primary
    key (in ``right_names``) and its rowtime column (its own name). The left's rowtime is its
    time attribute."""
    left, right = inputs
    assert left.rowtime is not None
    right_types = [t.nullable() for t in right.types] if join_type == "LEFT" else list(right.types)
    names, types = list(left.names) + right_names, list(left.types) + right_types
    left_compiled = [col(n).resolve(list(left.names), list(left.types)) for n in keys[0]]
    right_compiled = [k.resolve(right_names, list(right.types)) for k in keys[1]]
    residual = None
    if rest:
        residual = (rest[0] if len(rest) == 1 else and_(*rest)).resolve(names, types).fn
    return TemporalJoin(
        names,
        types,
        left.updating,
        left=left,
        right=right,
        join_type=join_type,
        left_keys=[c.fn for c in left_compiled],
        right_keys=[c.fn for c in right_compiled],
        key_type=_join_key_type(left_compiled, right_compiled),
        residual=residual,
        times=(left.rowtime, right.names.index(versioned[1])),
        condition=condition,
        left_key_columns=tuple(keys[0]),
        right_key_expressions=tuple(keys[1]),
        rest=tuple(rest),
        primary_key=tuple(versioned[0]),
        rowtime=left.rowtime,
        proctime=left.proctime,
    )


def temporal_join_terms(node: TemporalJoin, infix: bool) -> tuple[list[str], tuple[str, str]]:
    """The terms Flink's explain prints for ``node``, and each input's Exchange distribution
    (the right's keys by its own column names)."""
    assert node.left is not None and node.right is not None

    def ref(name: str) -> str:
        return name

    right_names = node.right_names()
    original = dict(zip(right_names, node.right.names, strict=True))
    right_keys = [render(k, ref, infix) for k in node.right_key_expressions]
    temporal = (
        f"__TEMPORAL_JOIN_CONDITION({node.left.names[node.times[0]]}, {right_names[node.times[1]]}, "
        f"__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY({', '.join(node.primary_key)}), "
        f"__TEMPORAL_JOIN_LEFT_KEY({', '.join(node.left_key_columns)}), "
        f"__TEMPORAL_JOIN_RIGHT_KEY({', '.join(right_keys)}))"
    )
    parts = [render(c, ref, infix) for c in _conjuncts(node.condition)] + [temporal]
    where = f"({' AND '.join(parts)})" if infix else f"AND({', '.join(parts)})"
    terms = [
        f"joinType=[{_JOIN_TYPES[node.join_type]}]",
        f"where=[{where}]",
        f"select=[{', '.join(node.names)}]",
    ]
    exchanged = [render(k, lambda n: original.get(n, n), infix) for k in node.right_key_expressions]
    return terms, (f"hash[{', '.join(node.left_key_columns)}]", f"hash[{', '.join(exchanged)}]")


def _conjuncts(condition: Any) -> list[Any]:
    if condition is None:
        return []
    if type(condition).__name__ == "_Logic" and condition.op == "AND":
        return [c for operand in condition.operands for c in _conjuncts(operand)]
    return [condition]


# -- lookup join --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LookupKey:
    """A column of the lookup table a lookup binds: to a column of the left input (``left``)
    or to a constant (``value``, from a condition ``table.column = constant``)."""

    column: int  # of the lookup table
    left: str | None = None  # the left input's column
    value: Any = None
    value_expression: Expression | None = None  # the constant as written (explain prints it)


@dataclass(frozen=True)
class LookupTable:
    """The table a lookup join fetches from: its source, catalog path and columns."""

    source: LookupTableSource
    path: str  # catalog.database.table
    columns: tuple[str, ...]
    types: tuple[DataType, ...]


@dataclass(frozen=True)
class LookupJoin(PlanNode):
    """``left [LEFT] JOIN table FOR SYSTEM_TIME AS OF left.proctime ON ...`` against a lookup
    table (see the module docstring; ``lookup_join`` builds it): ``input`` is the left plan;
    ``names`` its columns then the table's kept ones (``projection``), renamed where the left
    has the name. A fetched row must pass ``table_filter`` (over the table's columns: Flink's
    calc on the temporal table), the joined row ``join_condition``."""

    input: PlanNode | None = None
    table: LookupTable | None = None
    join_type: str = "INNER"
    keys: tuple[LookupKey, ...] = ()  # in the order of a key row's values
    projection: tuple[int, ...] = ()  # the table's columns the join keeps
    on: Any = None  # the ON condition, over ``names`` (the abstract syntax tree prints it)
    table_filter: Any = None  # the conditions on the table's columns alone, over its own names
    join_condition: Any = None  # the other conditions the lookup keys leave, over ``names``
    filter_fn: Callable[[tuple[Any, ...]], Any] | None = None  # ``table_filter`` compiled
    residual: Callable[[tuple[Any, ...]], Any] | None = None  # ``join_condition`` compiled
    compiled: ClassVar[dict[str, str]] = {"filter_fn": "table_filter", "residual": "join_condition"}

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.table is not None
        _refuse_on_spark(ctx, "A lookup join (FOR SYSTEM_TIME AS OF a processing-time attribute)")
        context = LookupContext(tuple((k.column,) for k in self.keys))
        provider = self.table.source.get_lookup_runtime_provider(context)
        left_names = list(self.input.names)
        key_fns: list[Callable[[tuple[Any, ...]], Any]] = []
        for key in self.keys:
            if key.left is not None:
                key_fns.append(operator.itemgetter(left_names.index(key.left)))
            else:
                key_fns.append(functools.partial(_constant_of, key.value))
        runner = LookupJoinRunner(
            provider.function,
            key_fns,
            (self.filter_fn, self.projection, self.residual),
            self.join_type == "LEFT",
            self.table.path,
        )
        return self.input.translate(ctx)._map_batches(runner, method="__call__").name("LookupJoin")


def lookup_join(
    left: PlanNode,
    table: LookupTable,
    right_names: list[str],
    join_type: str,
    keys: list[LookupKey],
    conditions: tuple[Expression | None, Expression | None, Expression | None],
    projection: tuple[int, ...] | None = None,
) -> LookupJoin:
    """The lookup join of ``left`` with ``table`` by ``keys``, keeping the table's columns
    ``projection`` (None: all), named ``right_names`` in the join; ``conditions``: the ON
    condition, its conjuncts on the table's columns alone (over its own names) and the others
    the keys leave (None: none)."""
    kept = tuple(range(len(table.columns))) if projection is None else projection
    kept_types = [table.types[i] for i in kept]
    right_types = [t.nullable() for t in kept_types] if join_type == "LEFT" else kept_types
    names, types = list(left.names) + right_names, list(left.types) + right_types
    on, table_filter, join_condition = conditions
    return LookupJoin(
        names,
        types,
        left.updating,
        input=left,
        table=table,
        join_type=join_type,
        keys=tuple(keys),
        projection=kept,
        on=on,
        table_filter=table_filter,
        join_condition=join_condition,
        filter_fn=table_filter.resolve(list(table.columns), list(table.types)).fn if table_filter else None,
        residual=join_condition.resolve(names, types).fn if join_condition is not None else None,
        rowtime=left.rowtime,
        proctime=left.proctime,
    )


def _constant_of(value: Any, row: tuple[Any, ...]) -> Any:
    return value


def lookup_join_terms(node: LookupJoin, infix: bool) -> list[str]:
    """The terms Flink's explain prints for ``node``."""
    assert node.table is not None

    def ref(name: str) -> str:
        return name

    lookup = []
    for key in node.keys:
        bound = key.left if key.left is not None else _literal(key.value, infix)
        lookup.append(f"{node.table.columns[key.column]}={bound}")
    terms = [
        f"table=[{node.table.path}]",
        f"joinType=[{_JOIN_TYPES[node.join_type]}]",
        f"lookup=[{', '.join(lookup)}]",
    ]
    if node.table_filter is not None:
        terms.append(f"where=[{render(node.table_filter, ref, infix)}]")
    if node.join_condition is not None:
        terms.append(f"joinCondition=[{render(node.join_condition, ref, infix)}]")
    terms.append(f"select=[{', '.join(node.names)}]")
    return terms


def correlate_terms(node: TemporalJoin | LookupJoin) -> tuple[list[str], str, str]:
    """``node`` as Calcite's abstract syntax tree has it, a correlate of the left input with a
    filtered snapshot of the right: the LogicalCorrelate's terms, the LogicalFilter's condition
    (the left's columns as ``$cor0.name``, the right's as ``$i``) and the snapshot's period."""
    left = node.left if isinstance(node, TemporalJoin) else node.input
    assert left is not None
    left_names = list(left.names)
    right_names = list(node.names[len(left_names) :])
    condition = node.on if isinstance(node, LookupJoin) else node.condition

    def ref(name: str) -> str:
        if name in right_names:
            return f"${right_names.index(name)}"
        return f"$cor0.{name}"

    time = left.rowtime if isinstance(node, TemporalJoin) else left.proctime
    period = left_names[time if time is not None else 0]
    read = columns_of(condition) if condition is not None else set()
    required = sorted({i for i, n in enumerate(left_names) if n in read or n == period})
    terms = [
        "correlation=[$cor0]",
        f"joinType=[{node.join_type.lower()}]",
        f"requiredColumns=[{{{', '.join(map(str, required))}}}]",
    ]
    shown = render(condition, ref, False) if condition is not None else "true"
    return terms, shown, f"$cor0.{period}"


# -- projection push-down into the inputs ---------------------------------------------------------


def prune_temporal_join_inputs(node: PlanNode, shared: set[int]) -> PlanNode:
    """A projection over a temporal or lookup join (a filter between them), the join's inputs
    narrowed to the columns the projection, the filter and the join read (its keys, condition
    and time attributes; a lookup join's processing time is read by nobody), as Flink's
    ``ProjectJoinTransposeRule`` does for a correlate. An input with other consumers stays whole.
    A right column renamed for a left column that is gone gets its own name back (Calcite names
    the join's columns after the pruning)."""
    if not isinstance(node, Project) or node.expressions is None or node.input is None:
        return node
    middle = node.input if isinstance(node.input, Filter) and node.input.expression is not None else None
    join = middle.input if middle is not None else node.input
    if not isinstance(join, (TemporalJoin, LookupJoin)):
        return node
    read: set[str] = set()
    for expression in [*node.expressions, *([middle.expression] if middle is not None else [])]:
        read |= columns_of(expression)
    found = _narrowed(join, read, shared)
    if found is None:
        return node
    narrowed, renames = found
    top: PlanNode = narrowed
    if middle is not None and middle.expression is not None:
        top = Filter.over(narrowed, _renamed(middle.expression, renames))
    expressions = [_renamed(e, renames) for e in node.expressions]
    compiled = [e.resolve(list(top.names), list(top.types)) for e in expressions]
    if [c.data_type for c in compiled] != list(node.types):
        return node
    return dataclasses.replace(node, input=top, functions=[c.fn for c in compiled], expressions=expressions)


def _renamed(expression: Any, renames: dict[str, str]) -> Any:
    """``expression`` reading the columns ``renames`` names by their new names."""
    if not renames:
        return expression
    return replaced(
        expression, lambda x: col(renames[x.name]) if isinstance(x, _Column) and x.name in renames else None
    )


def _kept(side: PlanNode, needed: set[str], shared: set[int]) -> PlanNode | None:
    """``side`` cut to the columns ``needed`` (None: nothing to cut, or it feeds others too)."""
    keep = [n for n in side.names if n in needed]
    if id(side) in shared or len(keep) == len(side.names) or not keep:
        return None
    return project(side, [col(n) for n in keep], lambda i: f"EXPR${i}")


def _unique(left_names: list[str], right_names: list[str]) -> list[str]:
    """The right's columns named as Calcite names a join's: ``k0`` where ``k`` is taken."""
    taken = set(left_names)
    names = []
    for name in right_names:
        new, n = name, 0
        while new in taken:
            new, n = f"{name}{n}", n + 1
        taken.add(new)
        names.append(new)
    return names


def _narrowed(
    join: TemporalJoin | LookupJoin, read: set[str], shared: set[int]
) -> tuple[PlanNode, dict[str, str]] | None:
    """The join over its inputs cut to the columns needed, and its columns renamed on the way."""
    if isinstance(join, LookupJoin):
        return _narrowed_lookup(join, read, shared)
    assert join.left is not None and join.right is not None
    needed = read | set(join.left_key_columns) | set(join.primary_key) | columns_of(join.condition)
    needed |= {join.names[join.times[0]], join.right_names()[join.times[1]]}
    for key in join.right_key_expressions:
        needed |= columns_of(key)
    own = dict(zip(join.right_names(), join.right.names, strict=True))  # join's name -> the right's
    left = _kept(join.left, needed, shared)
    right = _kept(join.right, {own[n] for n in needed if n in own}, shared)
    if left is None and right is None:
        return None
    new_left, new_right = left or join.left, right or join.right
    right_names = _unique(list(new_left.names), list(new_right.names))
    own_to_joined = {r: n for n, r in own.items()}  # the right's name -> the join's, before
    renames = {own_to_joined[o]: n for o, n in zip(new_right.names, right_names, strict=True)}
    renames = {o: n for o, n in renames.items() if o != n}
    return temporal_join(
        (new_left, new_right),
        right_names,
        join.join_type,
        _renamed(join.condition, renames),
        (list(join.left_key_columns), [_renamed(k, renames) for k in join.right_key_expressions]),
        [_renamed(r, renames) for r in join.rest],
        ([renames.get(k, k) for k in join.primary_key], join.right.names[join.times[1]]),
    ), renames


def _narrowed_lookup(
    join: LookupJoin, read: set[str], shared: set[int]
) -> tuple[PlanNode, dict[str, str]] | None:
    """A lookup join over its input cut to the columns needed; with a condition on the table
    (Flink's calc on the temporal table), the table's columns cut to those read above too."""
    assert join.input is not None and join.table is not None
    needed = read | {k.left for k in join.keys if k.left is not None}
    needed |= columns_of(join.join_condition) if join.join_condition is not None else set()
    left = _kept(join.input, needed, shared) or join.input
    right_names = list(join.names[len(join.input.names) :])
    projection = join.projection
    if join.table_filter is not None:
        bound = {k.column for k in join.keys if k.left is not None}
        projection = tuple(
            i for i, n in zip(join.projection, right_names, strict=True) if n in needed or i in bound
        )
    if left is join.input and projection == join.projection:
        return None
    columns = [join.table.columns[i] for i in projection]
    new_names = _unique(list(left.names), columns)
    old_names = {i: n for i, n in zip(join.projection, right_names, strict=True)}
    renames = {old_names[i]: n for i, n in zip(projection, new_names, strict=True) if old_names[i] != n}
    on = _renamed(join.on, renames) if join.on is not None else None
    condition = _renamed(join.join_condition, renames) if join.join_condition is not None else None
    conditions = (on, join.table_filter, condition)
    joined = lookup_join(left, join.table, new_names, join.join_type, list(join.keys), conditions, projection)
    return joined, renames
