"""Plugins the operations tools add to a JobManager or TaskManager process.

A plugin is named by ``"module:function"`` and imported only when its process starts (the
runtime never imports the tools: REST API, dashboard, metric reporters); ``function(host)``
gets the process's services object, reads its own options, and returns an object with
``close()`` when it started, or None when it is switched off. Coordinating code.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

__all__ = ["close_plugins", "start_plugins"]

log = logging.getLogger(__name__)


def start_plugins(registry: dict[str, str], host: Any) -> dict[str, Any]:
    """Start every plugin of ``registry`` (name -> "module:function") for ``host``; the
    started ones by name. A plugin's error propagates (a port it cannot bind: one line)."""
    started: dict[str, Any] = {}
    try:
        for name, target in registry.items():
            module_name, _, attribute = target.partition(":")
            plugin = getattr(importlib.import_module(module_name), attribute)(host)
            if plugin is not None:
                started[name] = plugin
    except BaseException:
        close_plugins(started)
        raise
    return started


def close_plugins(plugins: dict[str, Any]) -> None:
    """Close the started plugins (a failure is logged; the others still close)."""
    for name, plugin in list(plugins.items()):
        try:
            plugin.close()
        except Exception:
            log.warning("closing the %s plugin failed", name, exc_info=True)
    plugins.clear()
