"""Configuration: string keys to values, as ``pyflink.common.Configuration``."""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Iterable
from typing import Any, NoReturn, TypeVar

from millstream.common.config_options import ConfigOption, ConfigurationError, validate_entry

__all__ = [
    "CONF_DIR_ENV",
    "PROPERTIES_ENV",
    "Configuration",
    "exit_on_bad_setting",
    "load_global_configuration",
    "load_process_configuration",
    "parse_defines",
    "parse_defines_or_exit",
]

T = TypeVar("T")


class Configuration:
    """A mutable map of configuration keys to values, with typed accessors."""

    def __init__(self, other: Configuration | None = None) -> None:
        self._data: dict[str, Any] = dict(other._data) if other is not None else {}

    @staticmethod
    def from_dict(map: dict[str, Any]) -> Configuration:  # PyFlink's parameter name (shadows map)
        """A configuration holding the entries of ``map``."""
        result = Configuration()
        for key, value in map.items():
            result._data[str(key)] = value
        return result

    def get(self, option: ConfigOption[T]) -> T:
        """The typed value of ``option`` (under its key or a fallback key), or its default."""
        for key in (option.key, *option.fallback_keys):
            if key in self._data:
                return option.parse(self._data[key])
        return option.default

    def set(self, option: ConfigOption[T] | str, value: Any) -> Configuration:
        """Set an option (or raw key) and return this configuration."""
        key = option if isinstance(option, str) else option.key
        self._data[key] = value
        return self

    def get_string(self, key: str, default_value: str | None) -> str | None:
        """The value of ``key`` as a string."""
        value = self._data.get(key)
        return default_value if value is None else str(value)

    def set_string(self, key: str, value: str) -> Configuration:
        """Set ``key`` to a string value."""
        self._data[key] = str(value)
        return self

    def get_integer(self, key: str, default_value: int) -> int:
        """The value of ``key`` as an integer."""
        value = self._data.get(key)
        return default_value if value is None else int(value)

    def set_integer(self, key: str, value: int) -> Configuration:
        """Set ``key`` to an integer value."""
        self._data[key] = int(value)
        return self

    def get_boolean(self, key: str, default_value: bool) -> bool:
        """The value of ``key`` as a boolean."""
        value = self._data.get(key)
        if value is None:
            return default_value
        if isinstance(value, bool):
            return value
        return str(value).strip().lower() == "true"

    def set_boolean(self, key: str, value: bool) -> Configuration:
        """Set ``key`` to a boolean value."""
        self._data[key] = bool(value)
        return self

    def get_float(self, key: str, default_value: float) -> float:
        """The value of ``key`` as a float."""
        value = self._data.get(key)
        return default_value if value is None else float(value)

    def set_float(self, key: str, value: float) -> Configuration:
        """Set ``key`` to a float value."""
        self._data[key] = float(value)
        return self

    def get_bytearray(self, key: str, default_value: bytes) -> bytes:
        """The value of ``key`` as bytes."""
        value = self._data.get(key)
        return default_value if value is None else bytes(value)

    def set_bytearray(self, key: str, value: bytes) -> Configuration:
        """Set ``key`` to a bytes value."""
        self._data[key] = bytes(value)
        return self

    def key_set(self) -> builtins.set[str]:
        """All keys set in this configuration."""
        return set(self._data)

    def contains_key(self, key: str) -> bool:
        """Whether ``key`` is set."""
        return key in self._data

    def to_dict(self) -> dict[str, str]:
        """The configuration as a dict of strings."""
        return {k: _to_string(v) for k, v in self._data.items()}

    def add_all(self, other: Configuration, prefix: str | None = None) -> Configuration:
        """Copy every entry of ``other`` into this configuration (keys optionally prefixed)."""
        for key, value in other._data.items():
            self._data[(prefix or "") + key] = value
        return self

    def remove_config(self, key: ConfigOption[Any] | str) -> bool:
        """Remove the option ``key`` (its name or a ConfigOption); True if it was set."""
        name = key if isinstance(key, str) else key.key
        return self._data.pop(name, None) is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Configuration) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Configuration({self.to_dict()!r})"


def _to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


CONF_DIR_ENV = "MILLSTREAM_CONF_DIR"
PROPERTIES_ENV = "MILLSTREAM_PROPERTIES"


def load_global_configuration() -> Configuration:
    """Deployment settings: ``$MILLSTREAM_CONF_DIR/config.yaml``, then ``$MILLSTREAM_PROPERTIES``.

    As Flink's ``FLINK_CONF_DIR`` and its images' ``FLINK_PROPERTIES``: flat ``key: value``
    lines (``#`` comments) that set ``execution.target``, ``spark.master`` or any other
    option without touching job programs; the variable's lines win over the file's.
    Empty when neither variable is set.
    """
    config = Configuration()
    directory = os.environ.get(CONF_DIR_ENV)
    if directory:
        path = os.path.join(directory, "config.yaml")
        if not os.path.isfile(path):
            raise ValueError(f"{CONF_DIR_ENV}={directory}: no config.yaml in that directory")
        with open(path, encoding="utf-8") as f:
            _parse_into(config, f.read(), path)
    properties = os.environ.get(PROPERTIES_ENV)
    if properties:
        _parse_into(config, properties, f"${PROPERTIES_ENV}")
    return config


def _parse_into(config: Configuration, text: str, origin: str) -> None:
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"{origin}:{number}: expected 'key: value', got {raw.strip()!r}")
        value = value.strip().strip("'\"")
        try:
            validate_entry(key.strip(), value)
        except ConfigurationError as err:
            raise ConfigurationError(f"{origin}:{number}: {err}") from None
        config.set_string(key.strip(), value)


def load_process_configuration(defines: Iterable[str], command: str) -> Configuration:
    """The configuration of a cluster process (``millstream jobmanager``, ``taskmanager``,
    ``cluster start``): ``load_global_configuration``, then its ``-D key=value`` settings on top,
    as Flink's processes read ``config.yaml`` and their dynamic properties. A bad file, line or
    setting ends the command (``exit_on_bad_setting``, naming the file and line)."""
    try:
        config = load_global_configuration()
        return config.add_all(parse_defines(defines))
    except (ValueError, OSError) as err:
        exit_on_bad_setting(f"{command}: {err}")


def exit_on_bad_setting(message: str) -> NoReturn:
    """End a command over a bad setting: its one-line message on stderr, exit status 2 (usage)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def parse_defines_or_exit(defines: Iterable[str], command: str) -> Configuration:
    """``parse_defines`` for a command: a bad setting ends it (``exit_on_bad_setting``)."""
    try:
        return parse_defines(defines)
    except ConfigurationError as err:
        exit_on_bad_setting(f"{command}: {err}")


def parse_defines(defines: Iterable[str]) -> Configuration:
    """``-D key=value`` settings of a command line, each validated as Flink validates options.

    Raises:
        ConfigurationError: an entry without ``=``, an unknown key or a malformed value.
    """
    config = Configuration()
    for item in defines:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigurationError(f"-D expects key=value, got {item!r}")
        try:
            validate_entry(key.strip(), value.strip())
        except ConfigurationError as err:
            raise ConfigurationError(f"-D {err}") from None
        config.set_string(key.strip(), value.strip())
    return config
