"""``StatementSet``, as ``pyflink.table.statement_set``: INSERT statements run as one job."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from millstream.table.api.table_result import TableResult
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.catalog_tables import sink_plan
from millstream.table.sql.statements import insert_operation

if TYPE_CHECKING:
    from millstream.table.api.table import Table
    from millstream.table.api.table_environment import TableEnvironment

__all__ = ["StatementSet"]


class StatementSet:
    """INSERT statements run together as one job (``TableEnvironment.create_statement_set``)."""

    def __init__(self, t_env: TableEnvironment) -> None:
        self._t_env = t_env
        self._sinks: list[PlanNode] = []

    def add_insert_sql(self, stmt: str) -> StatementSet:
        """Add ``INSERT INTO sink SELECT ...``."""
        t_env = self._t_env
        self._sinks.append(insert_operation(t_env._catalog, t_env._batch, stmt).plan)
        return self

    def add_insert(
        self, target_path_or_descriptor: Any, table: Table, overwrite: bool = False
    ) -> StatementSet:
        """Add writing ``table`` into the sink table named ``target_path_or_descriptor``, or into
        the anonymous table a TableDescriptor describes."""
        path = self._t_env._sink_path(target_path_or_descriptor)
        self._sinks.append(sink_plan(self._t_env._catalog, table._plan, path))
        return self

    def execute(self) -> TableResult:
        """Run every added INSERT in one job (``.wait()`` for it)."""
        if not self._sinks:
            raise ValueError("No operators defined in the statement set: add_insert_sql / add_insert first")
        sinks, self._sinks = self._sinks, []
        return self._t_env._run_many(sinks)
