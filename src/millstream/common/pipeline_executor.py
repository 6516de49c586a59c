"""How ``execute()`` reaches a runner without importing it.

Runners register a factory under a name (``execution.target``); the registry maps the
name to a module path that is imported only when a job runs, so the API layer never
imports the runtime.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from millstream.common.config_option import ConfigurationError

__all__ = ["PipelineExecutor", "get_executor", "get_table_runner", "register_executor"]


class PipelineExecutor(Protocol):
    """Runs a JobGraph and returns a JobExecutionResult."""

    def execute(self, job_graph: Any, configuration: Any) -> Any:
        """Run ``job_graph`` to completion."""
        ...


_REGISTRY: dict[str, str] = {
    "embedded": "millstream.runtime.minicluster:MiniClusterExecutor",
    "local": "millstream.runtime.minicluster:MiniClusterExecutor",
    "spark": "millstream.spark.runner:SparkExecutor",
}


# Targets with an address: the factory receives the whole target string.
_SCHEMES: dict[str, str] = {
    "cluster": "millstream.runtime.cluster_client:ClusterExecutor",
}


def register_executor(name: str, target: str) -> None:
    """Register ``target`` ("module:attribute", a PipelineExecutor factory) under ``name``."""
    _REGISTRY[name] = target


def get_executor(name: str) -> PipelineExecutor:
    """Instantiate the executor registered under ``name`` (``scheme://...`` names by scheme)."""
    scheme, sep, _ = name.partition("://")
    if sep and scheme in _SCHEMES:
        module_name, _, attribute = _SCHEMES[scheme].partition(":")
        scheme_factory = getattr(importlib.import_module(module_name), attribute)
        scheme_executor: PipelineExecutor = scheme_factory(name)
        return scheme_executor
    try:
        target = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY) + [f"{s}://HOST:PORT" for s in _SCHEMES])
        raise ConfigurationError(f"unknown execution.target {name!r}; known targets: {known}") from None
    module_name, _, attribute = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    executor: PipelineExecutor = factory()
    return executor


# Runners that run a bounded table plan in their own SQL engine (instead of through the
# DataStream translation): execution.target -> "module:function(plan, t_env) -> rows or None".
_TABLE_RUNNERS: dict[str, str] = {
    "spark": "millstream.spark.table:run_table_plan",
}


def get_table_runner(name: str) -> Any:
    """The table-plan runner of ``execution.target`` ``name``, or None (use the DataStream path)."""
    target = _TABLE_RUNNERS.get(name)
    if target is None:
        return None
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
