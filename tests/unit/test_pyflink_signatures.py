"""millstream's public signatures accept PyFlink 2.3's parameters.

A PyFlink program ports by renaming ``pyflink`` to ``millstream``; that includes calls that
name their arguments (``Types.ROW_NAMED(field_names=..., field_types=...)``). The
parameters of PyFlink 2.3.0's public API are in ``pyflink_signatures.json`` (written by
``scripts/gen_pyflink_signatures.py``, which says how to regenerate it). For every class,
method and function there that millstream has at the same path, millstream must take the
same positional parameters in the same order under the same names, the same keyword
parameters, ``*args`` / ``**kwargs`` where PyFlink has them, and no required parameter
where PyFlink's is optional; it may add optional parameters. Names millstream does not
have are not checked here.
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).with_name("pyflink_signatures.json")

# Known mismatches in millstream.table, to be fixed with the Table API (the reason for
# each is what the test prints when the entry is removed). This list is meant to become
# empty; ``python tests/unit/test_pyflink_signatures.py`` prints the mismatches found now
# and the entries that no longer mismatch (remove those).
KNOWN_TABLE_MISMATCHES: set[str] = {
    "millstream.table.types:DataType.__init__",
}

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "any",
    inspect.Parameter.VAR_POSITIONAL: "*",
    inspect.Parameter.KEYWORD_ONLY: "keyword",
    inspect.Parameter.VAR_KEYWORD: "**",
}
_MISSING = object()


def _parameters(function: Any, bound: bool) -> list[tuple[str, str, bool]]:
    params = list(inspect.signature(function).parameters.values())
    if (
        bound
        and params
        and params[0].kind
        in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        )
    ):
        params = params[1:]
    return [(p.name, KINDS[p.kind], p.default is not inspect.Parameter.empty) for p in params]


def _millstream_parameters(module_name: str, qualname: str) -> Any:
    """The parameters of millstream's counterpart, _MISSING if it has none, or a reason
    why its counterpart is not a function."""
    try:
        target: Any = importlib.import_module("millstream" + module_name.removeprefix("pyflink"))
    except ModuleNotFoundError:
        return _MISSING
    *owners, name = qualname.split(".")
    for part in owners:
        target = getattr(target, part, _MISSING)
        if target is _MISSING:
            return _MISSING
    if not owners:
        function = getattr(target, name, _MISSING)
        return function if function is _MISSING else _parameters(function, bound=False)
    raw = _static_member(target, name)
    if raw is _MISSING:
        return _MISSING
    if isinstance(raw, staticmethod):
        return _parameters(raw.__func__, bound=False)
    if isinstance(raw, classmethod):
        return _parameters(raw.__func__, bound=True)
    if callable(raw) and not inspect.isclass(raw):
        return _parameters(raw, bound=True)
    return f"is a {type(raw).__name__}, not a method"


def _static_member(cls: Any, name: str) -> Any:
    for owner in inspect.getmro(cls) if inspect.isclass(cls) else ():
        if name in vars(owner):
            if owner is object and name == "__init__":
                return lambda self: None  # a class without a constructor takes nothing
            return vars(owner)[name]
    return _MISSING


def _mismatch(pyflink: list[list[Any]], ours: list[tuple[str, str, bool]]) -> str | None:
    """Why ``ours`` does not accept every call ``pyflink``'s parameters accept (None: it does)."""
    positional = [p for p in ours if p[1] in ("positional", "any")]
    by_name = {p[0]: p for p in ours if p[1] in ("any", "keyword")}
    var_positional = any(p[1] == "*" for p in ours)
    var_keyword = any(p[1] == "**" for p in ours)
    index = 0
    seen: set[str] = set()
    for name, kind, optional in pyflink:
        seen.add(name)
        if kind in ("positional", "any"):
            if index < len(positional):
                ours_name, ours_kind, ours_optional = positional[index]
                if kind == "any" and (ours_name != name or ours_kind != "any"):
                    return f"parameter {index + 1} is {ours_name!r}, PyFlink's is {name!r}"
                if optional and not ours_optional:
                    return f"{ours_name!r} is required, optional in PyFlink"
                seen.add(ours_name)
            elif not var_positional:
                return f"takes no parameter {index + 1} ({name!r})"
            elif kind == "any" and name not in by_name and not var_keyword:
                return f"takes {name!r} only by position"
            index += 1
        elif kind == "*":
            if not var_positional or len(positional) > index:
                return "has no *args after the same positional parameters"
        elif kind == "keyword":
            found = by_name.get(name)
            if found is None and not var_keyword:
                return f"takes no keyword {name!r}"
            if found is not None and optional and not found[2]:
                return f"{name!r} is required, optional in PyFlink"
        elif not var_keyword:
            return "has no **kwargs"
    for name, kind, optional in ours:
        if kind in ("positional", "any", "keyword") and name not in seen and not optional:
            return f"requires {name!r}, which PyFlink does not have"
    return None


def _signature_text(params: Any) -> str:
    parts = []
    for name, kind, optional in params:
        prefix = {"*": "*", "**": "**", "keyword": "*, "}.get(kind, "")
        parts.append(f"{prefix}{name}{'=…' if optional else ''}")
    return "(" + ", ".join(parts) + ")"


def _mismatches() -> dict[str, str]:
    document = json.loads(FIXTURE.read_text())
    found: dict[str, str] = {}
    for module_name, entries in sorted(document["modules"].items()):
        for qualname, pyflink in sorted(entries.items()):
            ours = _millstream_parameters(module_name, qualname)
            if ours is _MISSING:
                continue
            path = f"{module_name.replace('pyflink', 'millstream', 1)}:{qualname}"
            if isinstance(ours, str):
                found[path] = ours
                continue
            reason = _mismatch(pyflink, ours)
            if reason is not None:
                found[path] = (
                    f"{reason}: millstream {_signature_text(ours)}, PyFlink {_signature_text(pyflink)}"
                )
    return found


def _is_table(path: str) -> bool:
    return path.startswith("millstream.table")


def test_fixture_is_pyflink_2_3():
    assert json.loads(FIXTURE.read_text())["pyflink_version"] == "2.3.0"


def test_signatures_accept_pyflinks_parameters():
    found = _mismatches()
    unexpected = {p: r for p, r in found.items() if p not in KNOWN_TABLE_MISMATCHES}
    assert not unexpected, "signatures that differ from PyFlink 2.3's:\n" + "\n".join(
        f"{p}: {r}" for p, r in sorted(unexpected.items())
    )


def test_known_mismatches_are_table_ones_of_the_fixture():
    document = json.loads(FIXTURE.read_text())
    paths = {
        f"{module.replace('pyflink', 'millstream', 1)}:{name}"
        for module, entries in document["modules"].items()
        for name in entries
    }
    assert all(_is_table(p) and p in paths for p in KNOWN_TABLE_MISMATCHES)


def test_the_check_itself():
    pyflink = [["field_names", "any", False], ["field_types", "any", False]]
    assert _mismatch(pyflink, [("names", "any", False), ("types", "any", False)])
    assert _mismatch(pyflink, [("field_names", "any", False), ("field_types", "any", False)]) is None
    extra_optional = [("field_names", "any", False), ("field_types", "any", False), ("x", "any", True)]
    assert _mismatch(pyflink, extra_optional) is None
    assert _mismatch(pyflink, [*extra_optional[:2], ("x", "any", False)])
    assert _mismatch([["a", "any", True]], [("a", "any", False)])
    assert _mismatch([["a", "any", False]], [("a", "positional", False)])
    assert _mismatch([["a", "any", False]], [("args", "*", False), ("kwargs", "**", False)]) is None
    assert _mismatch([["args", "*", False]], [("a", "any", True), ("args", "*", False)])
    assert _mismatch([["k", "keyword", True]], [("k", "any", True)]) is None
    assert _mismatch([["kwargs", "**", False]], [])


def test_calls_that_name_pyflinks_parameters():
    from millstream.common import Configuration, Instant, Time
    from millstream.datastream.window import CountTrigger, EventTimeSessionWindows

    # PyFlink 2.3.0: Instant(1, 500000000) is Instant.of_epoch_milli(1500), repr Instant<1, 500000000>
    assert Instant(seconds=1, nanos=500_000_000) == Instant.of_epoch_milli(1500)
    assert repr(Instant.of_epoch_milli(1500)) == "Instant<1, 500000000>"
    assert Instant.of_epoch_milli(-1500).to_epoch_milli() == -1500
    assert Time(milliseconds=5) == Time.milliseconds(milliseconds=5) and str(Time.seconds(2)) == "2000 ms"
    assert Configuration.from_dict(map={"a": "1"}).get_string("a", "") == "1"
    assert CountTrigger.of(window_size=3).count == 3
    assert EventTimeSessionWindows(session_gap=10).gap == 10


if __name__ == "__main__":
    now = _mismatches()
    for path, reason in sorted(now.items()):
        print(f"{path}: {reason}")
    for path in sorted(KNOWN_TABLE_MISMATCHES - now.keys()):
        print(f"fixed, remove from KNOWN_TABLE_MISMATCHES: {path}")
