"""``Table``: the Table API's relational operations, as ``pyflink.table.Table``.

Each call returns a new Table over a larger plan (``planner/nodes.py``); nothing runs until
``execute()``. Column names follow Flink's: a column reference keeps its name, an unnamed
expression of a plain select is ``_c<position>``, an unnamed one over aggregates
``EXPR$<n>``.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from millstream.table.api.expression_functions import ColumnSelection
from millstream.table.api.expressions import col  # with the expression methods installed
from millstream.table.api.table_schema import TableSchema
from millstream.table.catalog.resolved_schema import ResolvedSchema
from millstream.table.expression.expression import Expression, _Column
from millstream.table.functions.pandas_values import data_frame_of
from millstream.table.planner import builder
from millstream.table.planner.explain import explain_plan
from millstream.table.planner.nodes import PlanNode

if TYPE_CHECKING:
    from millstream.table.api.table_environment import TableEnvironment
    from millstream.table.api.table_result import TableResult

__all__ = ["GroupWindowedTable", "GroupedTable", "Table", "TableSchema", "WindowGroupedTable"]


class ExplainDetail(enum.Enum):
    """Extra details ``explain`` may show (``pyflink.table.ExplainDetail``)."""

    ESTIMATED_COST = 0
    CHANGELOG_MODE = 1
    JSON_EXECUTION_PLAN = 2
    PLAN_ADVICE = 3


def _expressions(fields: tuple[Any, ...], names: list[str] | None = None) -> list[Expression]:
    """Expressions given as such or as column names (``select('a', 'b')``); ``with_columns``
    / ``without_columns`` expand to the columns of ``names`` they choose."""
    result: list[Expression] = []
    for f in fields:
        if isinstance(f, ColumnSelection):
            if names is None:
                raise ValueError(
                    "with_columns / without_columns choose among a table's columns: use them in select"
                )
            result.extend(col(n) for n in f.names(names))
        elif isinstance(f, Expression):
            result.extend(_star(f, names))
        elif isinstance(f, str):
            result.extend(e for name in f.split(",") for e in _star(col(name.strip()), names))
        else:
            raise TypeError(f"expected an Expression or a column name, got {f!r}")
    return result


def _star(expression: Expression, names: list[str] | None) -> list[Expression]:
    """``col('*')``: every column of the table (``names``), in order; any other expression as is."""
    if names is not None and isinstance(expression, _Column) and expression.name == "*":
        return [col(n) for n in names]
    return [expression]


class Table:
    """A (virtual) table: a plan and the environment that runs it."""

    def __init__(self, plan: PlanNode, t_env: TableEnvironment) -> None:
        self._plan = plan
        self._t_env = t_env
        self._declared: dict[str, Any] = {}  # a catalog table's computed columns and watermark

    # -- columns -------------------------------------------------------------------------------------------

    def get_schema(self) -> TableSchema:
        """The table's columns (the legacy ``TableSchema``)."""
        plan = self._plan
        return TableSchema(plan.names, plan.types, plan.rowtime, plan.proctime, self._declared)

    def get_resolved_schema(self) -> ResolvedSchema:
        """The table's columns as resolved (what ``print_schema`` prints)."""
        plan = self._plan
        return ResolvedSchema(plan.names, plan.types, plan.rowtime, plan.proctime, self._declared)

    def print_schema(self) -> None:
        """Print the columns as Flink does (``*ROWTIME*`` marks the event-time attribute)."""
        print(self.get_resolved_schema())

    def __getattr__(self, name: str) -> Expression:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._plan.names:
            raise AttributeError(
                f"The current table has no column named '{name}', available: {self._plan.names}"
            )
        return col(name)

    def __str__(self) -> str:
        """The table registered under a generated name, for SQL text: ``"SELECT * FROM %s" % t``."""
        name = getattr(self, "_registered_name", None)
        if name is None:
            name = f"UnnamedTable_{id(self):x}"
            self._t_env.create_temporary_view(name, self)
            self._registered_name = name
        return name

    def to_pandas(self) -> Any:
        """The table's rows as a pandas DataFrame (the job runs now), typed through Arrow as
        PyFlink's; an updating table's changes are applied first, as Flink's
        ``ArrowUtils.collectAsPandasDataFrame`` does: +I / +U append a row, -U / -D remove the
        first row equal to theirs."""
        rows: list[tuple[Any, ...]] = []
        with self.execute().collect() as changes:
            for change in changes:
                values = tuple(change)
                if str(change.get_row_kind()) in ("+I", "+U"):
                    rows.append(values)
                elif values in rows:
                    rows.remove(values)
                else:
                    raise ValueError(
                        f"to_pandas: the change {change.get_row_kind()}{list(values)} retracts no row"
                    )
        return data_frame_of(list(self._plan.names), list(self._plan.types), rows)

    def _with(self, plan: PlanNode) -> Table:
        return Table(plan, self._t_env)

    # -- relational operations -------------------------------------------------------------------------------

    @property
    def _batch(self) -> bool:
        return bool(self._t_env._batch)

    def select(self, *fields: Any) -> Table:
        """Computed columns; with aggregates, one row over the whole table."""
        return self._with(
            builder.select(self._plan, _expressions(fields, list(self._plan.names)), self._batch)
        )

    def where(self, predicate: Expression) -> Table:
        """The rows for which ``predicate`` is TRUE."""
        return self.filter(predicate)

    def filter(self, predicate: Expression) -> Table:
        """The rows for which ``predicate`` is TRUE."""
        return self._with(builder.filter_rows(self._plan, predicate))

    def group_by(self, *fields: Any) -> GroupedTable:
        """Groups for an aggregation (``.select(...)``)."""
        return GroupedTable(self, _expressions(fields))

    def aggregate(self, func: Any) -> Table:
        """A udaf over the whole table (no ``group_by``): its result's fields as columns."""
        return GroupedTable(self, []).aggregate(func)

    def flat_aggregate(self, func: Any) -> Table:
        """A table aggregate (``udtaf``) over the whole table: every row it emits."""
        return GroupedTable(self, []).flat_aggregate(func)

    def distinct(self) -> Table:
        """Each distinct row once."""
        return self._with(builder.distinct(self._plan, self._batch))

    def union_all(self, right: Table) -> Table:
        """The rows of both tables (SQL's UNION ALL); the tables must have as many columns,
        each of a common type (``planner/set_operations.py``)."""
        return self._with(builder.union_all(self._plan, right._plan))

    def union(self, right: Table) -> Table:
        """The distinct rows of both tables (SQL's UNION)."""
        return self._with(builder.union(self._plan, right._plan, self._batch))

    def intersect(self, right: Table) -> Table:
        """The distinct rows that are in both tables (SQL's INTERSECT; NULLs compare equal)."""
        return self._with(builder.intersect(self._plan, right._plan, self._batch))

    def intersect_all(self, right: Table) -> Table:
        """The rows in both tables, each as often as in the table that has it fewer times."""
        return self._with(builder.intersect_all(self._plan, right._plan, self._batch))

    def minus(self, right: Table) -> Table:
        """The distinct rows of this table that are not in ``right`` (SQL's EXCEPT)."""
        return self._with(builder.minus(self._plan, right._plan, self._batch))

    def minus_all(self, right: Table) -> Table:
        """This table's rows, each as many times more often as it is here than in ``right``."""
        return self._with(builder.minus_all(self._plan, right._plan, self._batch))

    def add_columns(self, *fields: Expression) -> Table:
        """The table's columns and computed ones after them."""
        existing = [col(name) for name in self._plan.names]
        return self.select(*existing, *_expressions(fields))

    def add_or_replace_columns(self, *fields: Expression) -> Table:
        """Computed columns: one named as an existing column takes its place, others follow."""
        added = _expressions(fields)
        by_name = {e.resolve(self._plan.names, self._plan.types).name: e for e in added}
        kept = [by_name.pop(n) if n in by_name else col(n) for n in self._plan.names]
        return self.select(*kept, *(e for e in added if any(e is v for v in by_name.values())))

    def drop_columns(self, *fields: Any) -> Table:
        """The table without these columns."""
        dropped = {e.resolve(self._plan.names, self._plan.types).name for e in _expressions(fields)}
        return self.select(*(col(n) for n in self._plan.names if n not in dropped))

    def rename_columns(self, *fields: Expression) -> Table:
        """Columns renamed (``col('x').alias('y')``)."""
        renames: dict[str, str] = {}
        for e in fields:
            source = getattr(e, "operand", None)
            if source is None or not hasattr(source, "name") or not hasattr(e, "name"):
                raise ValueError("rename_columns expects col('old').alias('new')")
            renames[source.name] = e.name
        return self.select(*(col(n).alias(renames[n]) if n in renames else col(n) for n in self._plan.names))

    def alias(self, field: str, *fields: str) -> Table:
        """The columns renamed, in order."""
        return self._with(builder.alias(self._plan, [field, *fields]))

    def join(self, right: Table, join_predicate: Expression | None = None) -> Table:
        """Inner join with ``right`` on ``join_predicate`` (column names must differ)."""
        return self._with(builder.join(self._plan, right._plan, "INNER", join_predicate))

    def left_outer_join(self, right: Table, join_predicate: Expression | None = None) -> Table:
        """Left outer join: every left row, NULL-padded without a match."""
        return self._with(builder.join(self._plan, right._plan, "LEFT", join_predicate))

    def right_outer_join(self, right: Table, join_predicate: Expression) -> Table:
        """Right outer join: every right row, NULL-padded without a match."""
        return self._with(builder.join(self._plan, right._plan, "RIGHT", join_predicate))

    def full_outer_join(self, right: Table, join_predicate: Expression) -> Table:
        """Full outer join: every row of both, NULL-padded without a match."""
        return self._with(builder.join(self._plan, right._plan, "FULL", join_predicate))

    def join_lateral(self, table_function_call: Any, join_predicate: Expression | None = None) -> Table:
        """Each row joined with the rows a table function (``udtf``) yields for it."""
        return self._with(builder.lateral(self._plan, table_function_call, outer=False))

    def left_outer_join_lateral(
        self, table_function_call: Any, join_predicate: Expression | None = None
    ) -> Table:
        """As join_lateral, keeping rows the function yields nothing for (NULL-padded)."""
        return self._with(builder.lateral(self._plan, table_function_call, outer=True))

    def over_window(self, *over_windows: Any) -> OverWindowedTable:
        """Over windows (``Over.partition_by(...).order_by(...).preceding(...).alias('w')``) for
        aggregates in the next select (``col('x').max.over(col('w'))``)."""
        return OverWindowedTable(self, list(over_windows))

    def window(self, window: Any) -> GroupWindowedTable:
        """A group window (``Tumble``, ``Slide``, ``Session`` ... ``.alias('w')``) to aggregate in."""
        return GroupWindowedTable(self, window)

    def order_by(self, *fields: Any) -> Table:
        """The rows sorted (``col('x').desc``; batch mode, as Flink's streaming mode sorts only
        on time); ``fetch`` / ``offset`` / ``limit`` after it cut the sorted rows."""
        return self._with(builder.order_by(self._plan, _expressions(fields), self._batch))

    def limit(self, fetch: int | None, offset: int = 0) -> Table:
        """The first ``fetch`` rows after ``offset`` (in arrival order, or the sort's)."""
        return self._with(builder.limit(self._plan, fetch, offset))

    def fetch(self, fetch: int) -> Table:
        """The first ``fetch`` rows."""
        return self.limit(fetch)

    def offset(self, offset: int) -> Table:
        """The rows after the first ``offset``."""
        return self.limit(None, offset)

    def flat_map(self, func: Any) -> Table:
        """The rows a table function (``udtf``) yields for each row (its columns only)."""
        return self._with(builder.flat_map(self._plan, func))

    def map(self, func: Any) -> Table:
        """Each row through a scalar function (``udf``) of the whole row, or a call of one over
        columns (``map(f(col('a'), col('b')))``); a ROW result type gives its fields as columns."""
        return self._with(builder.map_rows(self._plan, func))

    # -- running ---------------------------------------------------------------------------------

    def execute_insert(self, table_path_or_descriptor: Any, overwrite: bool = False) -> TableResult:
        """Write the table into the sink table named ``table_path_or_descriptor``, or into the
        anonymous table a TableDescriptor describes (the job starts now; ``wait()``)."""
        return self._t_env._insert(self._plan, self._t_env._sink_path(table_path_or_descriptor))

    def execute(self) -> TableResult:
        """Run the table's job and return its result (collect or print it)."""
        return self._t_env._execute(self._plan)

    def explain(self, *extra_details: ExplainDetail) -> str:
        """The plan millstream runs, as Flink's ``explain`` sections: the plan tree (an operator
        per line, its output columns; ``CHANGELOG_MODE`` adds whether it inserts only or updates)."""
        changelog_mode = ExplainDetail.CHANGELOG_MODE in extra_details
        return explain_plan(self._plan, self._t_env._planner_options(), changelog_mode)


class GroupedTable:
    """A table grouped by keys, waiting for its aggregation's select list."""

    def __init__(self, table: Table, keys: list[Expression]) -> None:
        self._table = table
        self._keys = keys

    def select(self, *fields: Any) -> Table:
        """The aggregation: group keys and aggregate calls (``col('x').sum``)."""
        table = self._table
        return table._with(builder.group_select(table._plan, self._keys, _expressions(fields), table._batch))

    def aggregate(self, func: Any) -> Table:
        """A udaf with a ROW result (called with each whole row unless called with columns):
        the keys and the result's fields as columns (``.select(...)`` next)."""
        table = self._table
        return table._with(builder.aggregate_function(table._plan, self._keys, func, table._batch))

    def flat_aggregate(self, func: Any) -> Table:
        """A table aggregate (``udtaf``): the keys and every row it emits for the group; each
        update of a group retracts the rows it emitted before (``.select(...)`` next)."""
        return self._table._with(builder.flat_aggregate(self._table._plan, self._keys, func))


class GroupWindowedTable:
    """A table with a group window, waiting for ``group_by(..., col('w'))``."""

    def __init__(self, table: Table, window: Any) -> None:
        self._table, self._window = table, window

    def group_by(self, *fields: Any) -> WindowGroupedTable:
        """Keys of the window aggregation; one of them is the window's alias."""
        return WindowGroupedTable(self._table, self._window, _expressions(fields))


class WindowGroupedTable:
    """A table grouped by keys and a group window, waiting for its select list."""

    def __init__(self, table: Table, window: Any, keys: list[Expression]) -> None:
        self._table, self._window = table, window
        alias = window.alias_name
        self._keys = [k for k in keys if getattr(k, "name", None) != alias]
        if len(self._keys) == len(keys):
            raise ValueError(f"group_by(...) of a windowed table must include the window alias '{alias}'")

    def select(self, *fields: Any) -> Table:
        """Keys, aggregates and window properties (``col('w').start`` / ``.end`` / ``.rowtime``)."""
        table = self._table
        plan = builder.window_select(
            table._plan, self._window, self._keys, _expressions(fields), table._batch
        )
        return table._with(plan)


class OverWindowedTable:
    """A table with over windows, waiting for the select that uses them."""

    def __init__(self, table: Table, windows: list[Any]) -> None:
        self._table, self._windows = table, windows

    def select(self, *fields: Any) -> Table:
        """Columns and over aggregates (``col('x').sum.over(col('w'))``)."""
        table = self._table
        return table._with(builder.over_select(table._plan, self._windows, _expressions(fields)))
