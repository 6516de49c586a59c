"""``TableConfig``, as ``pyflink.table.table_config``: the options of a TableEnvironment's
queries (``common/options.py`` declares the planner's), over its configuration."""

from __future__ import annotations

from typing import Any

from millstream.common import Configuration

__all__ = ["TableConfig"]


class TableConfig:
    """Configuration of a TableEnvironment (``get_config().set(key, value)``)."""

    def __init__(self, configuration: Configuration) -> None:
        self._configuration = configuration

    def set(self, key: str, value: str) -> TableConfig:
        """Set an option (``parallelism.default``, ``table.exec.state.ttl`` ...)."""
        self._configuration.set_string(key, str(value))
        return self

    def get(self, key: str, default_value: Any = None) -> Any:
        """An option's value (``default_value`` when it is not set)."""
        return self._configuration.get_string(key, default_value)

    def get_configuration(self) -> Configuration:
        """The options."""
        return self._configuration
