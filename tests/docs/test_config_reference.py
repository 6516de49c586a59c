"""``docs/configuration.md`` is generated from the ``ConfigOption`` declarations: it must be
what they give today, cover every option declared anywhere in the source, and every option
must say what it does."""

from __future__ import annotations

import re
from pathlib import Path

from millstream.testing.config_reference import GROUPS, PAGE, markdown, options

SOURCE = Path(__file__).resolve().parents[2] / "src" / "millstream"


def test_the_configuration_reference_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == markdown(), (
        "docs/configuration.md is stale: run python -m millstream.testing.config_reference --write"
    )


def test_each_option_is_listed_once() -> None:
    keys = re.findall(r"^\| `([^`]+)` \|", markdown(), re.M)
    assert len(keys) > 50 and len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


def test_every_option_has_a_description() -> None:
    undocumented = [
        o.key for _, module, _ in GROUPS for o in options(module()) if len(o.description.split()) < 3
    ]
    assert not undocumented, f"options without a description: {undocumented}"


def test_every_option_declared_in_the_source_is_on_the_page() -> None:
    declared = set()
    for path in SOURCE.rglob("*.py"):
        declared |= set(re.findall(r'ConfigOption\(\s*"([^"$][^"]*)"', path.read_text(encoding="utf-8")))
    listed = {o.key for _, module, _ in GROUPS for o in options(module())}
    assert len(declared) > 50
    assert declared <= listed, (
        f"declared but not in the reference (add the module to GROUPS): {declared - listed}"
    )
