"""How ``execute()`` reaches a runner without importing it.

Runners register a factory under a name (``execution.target``); the registry maps the
name to a module path that is imported only when a job runs, so the API layer never
imports the runtime.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

__all__ = ["PipelineExecutor", "get_executor", "register_executor"]


class PipelineExecutor(Protocol):
    """Runs a JobGraph and returns a JobExecutionResult."""

    def execute(self, job_graph: Any, configuration: Any) -> Any:
        """Run ``job_graph`` to completion."""
        ...


_REGISTRY: dict[str, str] = {
    "embedded": "millstream.runtime.minicluster:MiniClusterExecutor",
    "local": "millstream.runtime.minicluster:MiniClusterExecutor",
}


def register_executor(name: str, target: str) -> None:
    """Register ``target`` ("module:attribute", a PipelineExecutor factory) under ``name``."""
    _REGISTRY[name] = target


def get_executor(name: str) -> PipelineExecutor:
    """Instantiate the executor registered under ``name``."""
    try:
        target = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown execution.target {name!r}; known targets: {known}") from None
    module_name, _, attribute = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    executor: PipelineExecutor = factory()
    return executor
