"""What translating one SQL statement reads besides its text (Flink's ``SqlToOperationConverter``
context): the catalog its names resolve in, whether the job runs in BATCH mode, and the entry of
the SELECT translation, which the translation of subqueries and Top-N recurses into."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from millstream.table.catalog.catalog_manager import CatalogManager
from millstream.table.planner.nodes import PlanNode

__all__ = ["SqlContext"]


@dataclass(frozen=True)
class SqlContext:
    """The catalog names resolve in, the job's mode, ``plan_select(ctx, select)``: the plan of
    a SELECT (``sql/query.py``'s), and ``derived``: plans the statement's translation named
    for itself (the ranked rows of a Top-N, read by the select around it)."""

    catalog: CatalogManager
    batch: bool
    plan_select: Callable[[SqlContext, Any], PlanNode]
    derived: dict[str, PlanNode] = field(default_factory=dict)
