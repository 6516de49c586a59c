"""ConfigOption: one configuration key with its type, default, unit and bounds, parsed and
checked as Flink parses its options (``50 s``, ``32 kb``; one-line errors naming the key)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["ConfigOption", "ConfigOptions", "ConfigurationError", "parse_duration_ms"]

T = TypeVar("T")


class ConfigurationError(ValueError):
    """A configuration key that does not exist, or a value its option cannot take."""


_DURATION_UNITS: dict[str, float] = {
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-6),
    **dict.fromkeys(("us", "µs", "micro", "micros", "microsecond", "microseconds"), 1e-3),
    **dict.fromkeys(("ms", "milli", "millis", "millisecond", "milliseconds"), 1),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("m", "min", "minute", "minutes"), 60_000),
    **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
    **dict.fromkeys(("d", "day", "days"), 86_400_000),
}
_MEMORY_UNITS: dict[str, float] = {
    **dict.fromkeys(("b", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kibibytes"), 1 << 10),
    **dict.fromkeys(("m", "mb", "mebibytes"), 1 << 20),
    **dict.fromkeys(("g", "gb", "gibibytes"), 1 << 30),
    **dict.fromkeys(("t", "tb", "tebibytes"), 1 << 40),
}
_AMOUNT = re.compile(r"\s*(-?\d+)\s*([a-zA-Zµ]*)\s*")
_EXPECTED = {
    "ms": "a duration (milliseconds, or with a unit: 500 ms, 10 s, 5 min)",
    "bytes": "a memory size (bytes, or with a unit: 32 kb, 64 mb)",
}


def parse_duration_ms(text: Any) -> int:
    """Flink's duration text (``3600000``, ``500 ms``, ``10 min``, ``1 h``, ``1d``) in ms, as
    duration options parse it (a table option's value, say)."""
    match = _AMOUNT.fullmatch(str(text))
    if match is None or (match.group(2) and match.group(2).lower() not in _DURATION_UNITS):
        raise ConfigurationError(f"not a duration: {text!r} (e.g. '1 h', '10 min', '5000 ms')")
    return int(int(match.group(1)) * _DURATION_UNITS.get(match.group(2).lower(), 1))


@dataclass(frozen=True, slots=True)
class ConfigOption(Generic[T]):
    """A configuration key with a typed default value.

    ``unit`` makes an integer option a duration in milliseconds (``"ms"``: Flink's
    ``50 s``, ``5 min`` syntax) or a memory size in bytes (``"bytes"``: ``32 kb``);
    ``minimum`` and ``choices`` bound the values, checked as Flink checks its options.
    """

    key: str
    default: T
    kind: type
    description: str = ""
    unit: str = ""
    minimum: int | None = None
    choices: tuple[str, ...] = ()
    fallback_keys: tuple[str, ...] = ()  # other names of the option (read when the key is unset)

    def parse(self, raw: Any) -> T:
        """Convert a raw (often string) value to this option's type.

        Raises:
            ConfigurationError: one line naming the key, the value and what it must be.
        """
        if raw is None:
            return None  # type: ignore[return-value]
        if self.kind is bool:
            return self._parse_bool(raw)  # type: ignore[return-value]
        if self.kind is int:
            value = self._parse_int(raw)
            if self.minimum is not None and value < self.minimum:
                unit = " ms" if self.unit == "ms" else ""
                raise ConfigurationError(f"{self.key}={raw!r}: must be at least {self.minimum}{unit}")
            return value  # type: ignore[return-value]
        if self.kind is float:
            try:
                return float(raw)  # type: ignore[return-value]
            except (TypeError, ValueError):
                raise ConfigurationError(f"{self.key}={raw!r}: expected a number") from None
        if self.choices and str(raw).strip().upper() not in {c.upper() for c in self.choices}:
            raise ConfigurationError(f"{self.key}={raw!r}: expected one of {', '.join(self.choices)}")
        return self.kind(raw)

    def _parse_bool(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text not in ("true", "false"):
            raise ConfigurationError(f"{self.key}={raw!r}: expected true or false")
        return text == "true"

    def _parse_int(self, raw: Any) -> int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        units = {"ms": _DURATION_UNITS, "bytes": _MEMORY_UNITS}.get(self.unit, {})
        match = _AMOUNT.fullmatch(str(raw))
        if match is not None and (not match.group(2) or match.group(2).lower() in units):
            factor = units.get(match.group(2).lower(), 1) if match.group(2) else 1
            return int(int(match.group(1)) * factor)
        raise ConfigurationError(f"{self.key}={raw!r}: expected {_EXPECTED.get(self.unit, 'an integer')}")


class ConfigOptions:
    """Builder in PyFlink's style: ``ConfigOptions.key("k").int_type().default_value(1)``."""

    def __init__(self, key: str) -> None:
        self._key = key
        self._kind: type = str

    @staticmethod
    def key(key: str) -> ConfigOptions:
        """Start declaring the option ``key``."""
        return ConfigOptions(key)

    def string_type(self) -> ConfigOptions:
        """The option holds a string."""
        self._kind = str
        return self

    def int_type(self) -> ConfigOptions:
        """The option holds an integer."""
        self._kind = int
        return self

    def boolean_type(self) -> ConfigOptions:
        """The option holds a boolean."""
        self._kind = bool
        return self

    def float_type(self) -> ConfigOptions:
        """The option holds a float."""
        self._kind = float
        return self

    def default_value(self, value: Any) -> ConfigOption[Any]:
        """Finish the declaration with a default value."""
        return ConfigOption(self._key, value, self._kind)

    def no_default_value(self) -> ConfigOption[Any]:
        """Finish the declaration without a default."""
        return ConfigOption(self._key, None, self._kind)
