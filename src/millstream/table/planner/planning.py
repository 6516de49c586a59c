"""A table job's planning, phase by phase, and the context its translation reads.

::

    plan nodes (Table API / SQL)
      └─► optimize        rewrite phases (planner/rules.py): push-downs, Calc merging
      └─► PlanReuse       the sub-plans computed once for several consumers (planner/reuse.py)
      └─► physical_plan   how each node runs, and the exec nodes (planner/exec_nodes.py)
      └─► translate       DataStream transformations, reading the above (PlanNode.translate)

``plan_job`` runs the phases for one job's plans (the sinks of a statement set share them)
and returns a ``PlanningContext``: frozen, made once per job, it is all a node's
``translate`` reads besides the node itself. ``explain`` runs the same phases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from millstream.common.config_options import RUNTIME_MODE
from millstream.table.common.options import REUSE_SOURCE, REUSE_SUB_PLAN, option_value
from millstream.table.functions.query_time import start_query
from millstream.table.planner.exec_nodes import PhysicalPlan, physical_plan
from millstream.table.planner.nodes import PlanNode
from millstream.table.planner.reuse import PlanReuse
from millstream.table.planner.rules import optimize

__all__ = ["PlanningContext", "plan_job", "plan_phases"]


@dataclass(frozen=True)
class PlanningContext:
    """What the translation of one job's plans reads.

    Attributes:
        env: the StreamExecutionEnvironment the job's transformations are added to.
        config: the TableConfig of the job (``table.*`` options, read with ``option_value``);
            None: every option at its default.
        reuse: the job's sub-plan reuse (the streams translated so far, by key); None when
            ``table.optimizer.reuse-sub-plan-enabled`` is off.
        physical: how each node runs (``exec_plan.physical_plan``).
    """

    env: Any
    config: Any
    reuse: PlanReuse | None
    physical: PhysicalPlan


def plan_phases(plans: list[PlanNode], config: Any) -> tuple[list[PlanNode], PlanReuse | None, PhysicalPlan]:
    """``plans`` (one job's) through the rewrite phases, the job's sub-plan reuse and its
    physical plan, as ``config`` (a TableConfig, None: defaults) sets them."""
    plans = optimize(plans)
    reuse = None
    if option_value(config, REUSE_SUB_PLAN):
        reuse = PlanReuse(sources=option_value(config, REUSE_SOURCE))
        reuse.count_uses(plans)
    return plans, reuse, physical_plan(plans, config, reuse)


def plan_job(env: Any, config: Any, plans: list[PlanNode]) -> tuple[list[PlanNode], PlanningContext]:
    """The optimized ``plans`` and the context to translate them on ``env`` with; the query
    starts (in BATCH mode its time functions read this instant: ``functions/query_time.py``)."""
    plans, reuse, physical = plan_phases(plans, config)
    start_query(plans, batch=option_value(config, RUNTIME_MODE).upper() == "BATCH")
    return plans, PlanningContext(env, config, reuse, physical)
