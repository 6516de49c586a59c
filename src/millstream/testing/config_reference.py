"""The configuration reference in ``docs/configuration.md``, generated from the
``ConfigOption`` declarations, as Flink generates its configuration pages from its option
classes: every key with its type, default and description, one table per group.

    python -m millstream.testing.config_reference            # print the page
    python -m millstream.testing.config_reference --write    # rewrite docs/configuration.md

``tests/docs/test_config_reference.py`` fails when the committed page is not what the
declarations give, or when an option has no description.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from millstream.common import (
    checkpointing_options,
    config_options,
    metrics_options,
    rest_options,
    state_backend_options,
)
from millstream.common.config_option import ConfigOption
from millstream.table.common import options as table_options
from millstream.table.connectors import jdbc_options

__all__ = ["GROUPS", "PAGE", "markdown", "options"]

PAGE = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def _table_options() -> ModuleType:
    return table_options


# (title, module declaring the options, what they are for)
GROUPS: list[tuple[str, Any, str]] = [
    (
        "Execution, TaskManagers and the network",
        lambda: config_options,
        "Set with `-D key=value`, in `$MILLSTREAM_CONF_DIR/config.yaml` or in the program's `Configuration`.",
    ),
    (
        "Checkpoints",
        lambda: checkpointing_options,
        "Also set by `env.enable_checkpointing(...)` and `CheckpointConfig`.",
    ),
    ("State backends", lambda: state_backend_options, "Also set by `env.set_state_backend(...)`."),
    ("REST API and dashboard", lambda: rest_options, "Read by the JobManager."),
    ("Metrics", lambda: metrics_options, "Read by the JobManager and every TaskManager."),
    ("Table API and SQL", _table_options, "Set with `t_env.get_config().set(key, value)` (or `-D`)."),
    (
        "The jdbc table connector",
        lambda: jdbc_options,
        "Set in a `'connector' = 'jdbc'` table's `WITH (...)` clause ([Connectors](connectors.md#jdbc)).",
    ),
]


def options(module: ModuleType) -> Iterator[ConfigOption[Any]]:
    """The public options a module declares (``$internal.`` keys left out), by key."""
    declared = {id(v): v for v in vars(module).values() if isinstance(v, ConfigOption)}
    for option in sorted(declared.values(), key=lambda o: o.key):
        if not option.key.startswith("$internal."):
            yield option


def _type(option: ConfigOption[Any]) -> str:
    if option.unit == "ms":
        return "Duration"
    if option.unit == "bytes":
        return "MemorySize"
    if option.choices:
        return "Enum"
    return {bool: "Boolean", int: "Integer", float: "Double", str: "String"}.get(
        option.kind, option.kind.__name__
    )


def _default(option: ConfigOption[Any]) -> str:
    value = option.default
    if value is None or value == "":
        return "(none)"
    if option.kind is bool:
        return f"`{str(value).lower()}`"
    if option.unit == "ms" and isinstance(value, int):
        for unit, size in (("min", 60_000), ("s", 1000)):
            if value >= size and value % size == 0:
                return f"`{value // size} {unit}`"
        return f"`{value} ms`"
    if option.unit == "bytes" and isinstance(value, int):
        for unit, size in (("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10)):
            if value >= size and value % size == 0:
                return f"`{value // size} {unit}`"
        return f"`{value} bytes`"
    return f"`{value}`"


def _description(option: ConfigOption[Any]) -> str:
    text = " ".join(option.description.split()).replace("|", "\\|")
    notes = []
    if option.choices:
        notes.append("One of " + ", ".join(f"`{c}`" for c in option.choices) + ".")
    if option.minimum is not None:
        notes.append(f"At least {option.minimum}.")
    if option.fallback_keys:
        notes.append("Also read from " + ", ".join(f"`{k}`" for k in option.fallback_keys) + ".")
    return " ".join([text, *notes])


def markdown() -> str:
    """The whole page."""
    lines = [
        "# Configuration reference",
        "",
        "Every option millstream reads, generated from its `ConfigOption` declarations by",
        "`python -m millstream.testing.config_reference --write` (a test fails when this page is",
        "stale or an option has no description). Keys are Flink's where Flink has the option.",
        "Durations take Flink's units (`500 ms`, `10 s`, `5 min`), memory sizes theirs (`32 kb`,",
        "`64 mb`). An unknown key given on the command line or in a conf file is an error naming",
        "the nearest known key; keys of your own go under `user.`, and `spark.*` keys go to the",
        "SparkSession as they are.",
        "",
    ]
    listed: set[str] = set()  # a module that imports another's option lists it under that one's group
    for title, module, note in GROUPS:
        declared = [o for o in options(module()) if o.key not in listed]
        listed.update(o.key for o in declared)
        lines += [f"## {title}", "", note, "", "| key | type | default | description |", "|---|---|---|---|"]
        lines += [f"| `{o.key}` | {_type(o)} | {_default(o)} | {_description(o)} |" for o in declared]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    page = markdown()
    if "--write" in argv:
        PAGE.write_text(page, encoding="utf-8")
        print(f"wrote {PAGE}")
    else:
        print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
