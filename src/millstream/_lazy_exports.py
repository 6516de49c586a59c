"""Lazy re-exports for the API packages (PEP 562 module ``__getattr__``).

``millstream.datastream``, like ``pyflink.datastream``, offers the classes of its
modules under the package's name. Importing them eagerly in the package's
``__init__`` puts every submodule in an import cycle with its package: importing
``millstream.datastream.join`` first imports the package, which imports
``data_stream``, which imports ``join``. A single thread never notices; two task
threads unpickling user functions that reference different submodules take CPython's
per-module import locks in opposite orders, CPython breaks the deadlock by handing one
of them a partially initialized module, and the task fails with ``ImportError``.

A package built with :func:`lazy_exports` imports none of its submodules: a name is
resolved on first access (and then cached on the package), so the package is a leaf of
the import graph and the graph stays acyclic
(``tests/unit/test_import_graph.py`` locks that in).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, modules: Mapping[str, Iterable[str]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for a package re-exporting names lazily.

    Args:
        package: the package's ``__name__``.
        modules: for each defining module, the names the package re-exports from it.

    Returns:
        The sorted public names, and the module-level ``__getattr__`` and ``__dir__``.
    """
    origin = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = origin.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
        elif importlib.util.find_spec(f"{package}.{name}") is not None:
            # ``import millstream.datastream as ds; ds.window`` works as with an eager package.
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(origin) | set(vars(sys.modules[package])))

    return sorted(origin), __getattr__, __dir__
