"""What a postgres-cdc source reads and how: the database, the tables, the slot and the
publication, where it starts (Flink CDC's ``StartupOptions``), and the Debezium properties
that mean something here.

Debezium properties (``debezium.*`` table options, ``debezium_properties`` of the builder):
``publication.name`` (``dbz_publication``), ``publication.autocreate.mode`` (``all_tables``:
``CREATE PUBLICATION ... FOR ALL TABLES`` when it is missing; ``filtered``: for the captured
tables, which are added to an existing one; ``disabled``: it must exist and publish every
captured table), ``status.update.interval.ms`` (10000: how often the slot hears the confirmed
position), ``snapshot.fetch.size`` (the rows of one snapshot fetch, 1024),
``decimal.handling.mode`` (``precise``, ``double`` or ``string``: DECIMAL values of the
table's Debezium JSON). Any other is logged as having no effect (Debezium's engine does not
run here).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "DEFAULT_PUBLICATION",
    "PostgresCdcError",
    "PostgresSourceConfig",
    "StartupMode",
    "StartupOptions",
]

log = logging.getLogger(__name__)

DEFAULT_PUBLICATION = "dbz_publication"  # Debezium's publication.name default
_AUTOCREATE_MODES = ("all_tables", "filtered", "disabled")
_DECIMAL_MODES = ("precise", "double", "string")
_UNDERSTOOD = frozenset(
    {
        "publication.name",
        "publication.autocreate.mode",
        "status.update.interval.ms",
        "snapshot.fetch.size",
        "decimal.handling.mode",
    }
)
_SLOT_NAME = re.compile(r"[a-z0-9_]{1,63}")


class PostgresCdcError(RuntimeError):
    """The postgres-cdc source cannot go on (the message names the option, table or slot)."""


class StartupMode(Enum):
    """Where a new source starts (a restored one goes on from its checkpoint)."""

    INITIAL = "initial"  # a snapshot of the tables, then their changes from that moment
    LATEST_OFFSET = "latest-offset"  # only the changes committed from now on


@dataclass(frozen=True)
class StartupOptions:
    """Flink CDC's ``StartupOptions``: ``initial()`` or ``latest()``."""

    startup_mode: StartupMode

    @staticmethod
    def initial() -> StartupOptions:
        """Snapshot the tables, then read their changes (the default)."""
        return StartupOptions(StartupMode.INITIAL)

    @staticmethod
    def latest() -> StartupOptions:
        """Skip the snapshot: read the changes committed after the source started."""
        return StartupOptions(StartupMode.LATEST_OFFSET)

    @staticmethod
    def of(mode: str) -> StartupOptions:
        """The options of a ``scan.startup.mode`` value."""
        for known in StartupMode:
            if mode.lower() == known.value:
                return StartupOptions(known)
        raise ValueError(
            f"Invalid value for option 'scan.startup.mode'. Supported values are [initial, "
            f"latest-offset], but was: {mode} (millstream's postgres-cdc has no 'snapshot' mode)"
        )


@dataclass(frozen=True)
class PostgresSourceConfig:
    """A source's settings (plain data: it travels to the TaskManagers with the job)."""

    hostname: str
    port: int
    database: str
    username: str
    password: str
    schema_list: tuple[str, ...]  # regular expressions of schema names (empty: every one)
    table_list: tuple[str, ...]  # regular expressions of "schema.table" (empty: every one)
    slot_name: str
    startup: StartupOptions = field(default_factory=StartupOptions.initial)
    debezium: dict[str, str] = field(default_factory=dict)
    connect_timeout_s: int = 30

    def __post_init__(self) -> None:
        if not _SLOT_NAME.fullmatch(self.slot_name):
            raise ValueError(
                f"'slot.name' {self.slot_name!r} is not a replication slot name: lower-case letters, "
                "digits and underscores, at most 63"
            )
        mode = self.autocreate_mode
        if mode not in _AUTOCREATE_MODES:
            raise ValueError(
                f"'debezium.publication.autocreate.mode' must be one of {', '.join(_AUTOCREATE_MODES)}, "
                f"got {mode!r}"
            )
        if self.decimal_handling not in _DECIMAL_MODES:
            raise ValueError(
                f"'debezium.decimal.handling.mode' must be one of {', '.join(_DECIMAL_MODES)}, "
                f"got {self.decimal_handling!r}"
            )
        for pattern in self.schema_list + self.table_list:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"{pattern!r} is not a regular expression: {err}") from err
        for key in ("status.update.interval.ms", "snapshot.fetch.size"):
            value = self.debezium.get(key, "1")
            if not value.strip().isdigit() or int(value) < 1:
                raise ValueError(f"Debezium property '{key}' must be a positive integer, got {value!r}")
        for key in self.debezium:
            if key not in _UNDERSTOOD:
                log.warning("postgres-cdc: the Debezium property %r has no effect in millstream", key)

    @property
    def address(self) -> str:
        """``host:port/database`` for messages."""
        return f"{self.hostname}:{self.port}/{self.database}"

    @property
    def publication(self) -> str:
        """The publication the slot decodes with."""
        return self.debezium.get("publication.name", DEFAULT_PUBLICATION)

    @property
    def autocreate_mode(self) -> str:
        """How a missing publication is created."""
        return self.debezium.get("publication.autocreate.mode", "all_tables").lower()

    @property
    def decimal_handling(self) -> str:
        """DECIMAL values in Debezium JSON."""
        return self.debezium.get("decimal.handling.mode", "precise").lower()

    @property
    def status_interval_s(self) -> float:
        """How often the slot hears the confirmed position."""
        return int(self.debezium.get("status.update.interval.ms", "10000")) / 1000.0

    @property
    def fetch_size(self) -> int:
        """The rows of one snapshot fetch."""
        return max(1, int(self.debezium.get("snapshot.fetch.size", "1024")))

    def captures(self, schema: str, table: str) -> bool:
        """Whether ``schema.table`` is one of the source's tables."""
        if self.schema_list and not any(re.fullmatch(p, schema) for p in self.schema_list):
            return False
        qualified = f"{schema}.{table}"
        return not self.table_list or any(re.fullmatch(p, qualified) for p in self.table_list)

    def describe_tables(self) -> str:
        """The table patterns, for messages."""
        schemas = ", ".join(self.schema_list) or "any schema"
        tables = ", ".join(self.table_list) or "any table"
        return f"schema-name {schemas!r} and table-name {tables!r}"

    def connection_kwargs(self) -> dict[str, Any]:
        """psycopg's connection arguments."""
        return {
            "host": self.hostname,
            "port": self.port,
            "dbname": self.database,
            "user": self.username,
            "password": self.password,
            "connect_timeout": self.connect_timeout_s,
            "application_name": f"millstream postgres-cdc {self.slot_name}",
        }
