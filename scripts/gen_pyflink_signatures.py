"""Write tests/unit/pyflink_signatures.json: the parameters of PyFlink 2.3's public API.

tests/unit/test_pyflink_signatures.py checks that millstream's classes and functions at
the same paths (``pyflink`` -> ``millstream``) accept the same parameters: the same
positional order and keyword names (millstream may add optional parameters). The tests
cannot import PyFlink, so its signatures are read once, here, and checked in.

Regenerate (PyFlink 2.3.0 installed in its own virtualenv, never in the project's)::

    /work/pyflink-venv/bin/python scripts/gen_pyflink_signatures.py

What is recorded: every public class and function that the modules below export (their
``__all__`` and the public names they define), and of each class every
public method and its constructor. Left out, because no user program calls them: the
constructors that take a Java object (a parameter named ``j_...``: PyFlink's wrappers
build those from Java, users get them from factory methods), methods that take one, and
the constructors of the classes in ``MADE_BY_PYFLINK`` and ``JAVA_WRAPPERS``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Any

MODULES = [
    "pyflink.common",
    "pyflink.common.config_options",
    "pyflink.common.configuration",
    "pyflink.common.execution_config",
    "pyflink.common.job_client",
    "pyflink.common.job_execution_result",
    "pyflink.common.restart_strategy",
    "pyflink.common.serialization",
    "pyflink.common.time",
    "pyflink.common.typeinfo",
    "pyflink.common.types",
    "pyflink.common.watermark_strategy",
    "pyflink.datastream",
    "pyflink.datastream.async_data_stream",
    "pyflink.datastream.checkpoint_config",
    "pyflink.datastream.checkpoint_storage",
    "pyflink.datastream.connectors",
    "pyflink.datastream.connectors.base",
    "pyflink.datastream.connectors.file_system",
    "pyflink.datastream.connectors.hybrid_source",
    "pyflink.datastream.connectors.kafka",
    "pyflink.datastream.connectors.number_seq",
    "pyflink.datastream.data_stream",
    "pyflink.datastream.formats.avro",
    "pyflink.datastream.formats.csv",
    "pyflink.datastream.formats.json",
    "pyflink.datastream.formats.parquet",
    "pyflink.datastream.functions",
    "pyflink.datastream.output_tag",
    "pyflink.datastream.slot_sharing_group",
    "pyflink.datastream.state",
    "pyflink.datastream.state_backend",
    "pyflink.datastream.stream_execution_environment",
    "pyflink.datastream.timerservice",
    "pyflink.datastream.window",
    "pyflink.table",
    "pyflink.table.catalog",
    "pyflink.table.descriptors",
    "pyflink.table.environment_settings",
    "pyflink.table.expression",
    "pyflink.table.expressions",
    "pyflink.table.schema",
    "pyflink.table.statement_set",
    "pyflink.table.table",
    "pyflink.table.table_config",
    "pyflink.table.table_descriptor",
    "pyflink.table.table_environment",
    "pyflink.table.table_result",
    "pyflink.table.types",
    "pyflink.table.udf",
    "pyflink.table.window",
]

# Classes that only PyFlink's own methods construct (users get them from another call), so
# their constructors' parameters are PyFlink's internals.
MADE_BY_PYFLINK = {
    "BroadcastStream",  # DataStream.broadcast(descriptor)
    "BroadcastConnectedStream",  # DataStream.connect(broadcast_stream)
    "FunctionContext",  # the argument of UserDefinedFunction.open
    "UserDefinedScalarFunctionWrapper",  # udf(...)
    "UserDefinedAsyncScalarFunctionWrapper",  # udf(...) of an async function
    "UserDefinedTableFunctionWrapper",  # udtf(...)
    "UserDefinedAggregateFunctionWrapper",  # udaf(...), udtaf(...)
}

# Classes whose constructor wraps a Java object or names a Java class (``SinkFunction(
# "org.example.MySink")``); millstream runs no Java, its classes of these names are Python
# base classes to subclass.
JAVA_WRAPPERS = {"SinkFunction", "SourceFunction"}

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "any",
    inspect.Parameter.VAR_POSITIONAL: "*",
    inspect.Parameter.KEYWORD_ONLY: "keyword",
    inspect.Parameter.VAR_KEYWORD: "**",
}


def parameters(function: Any, bound: bool) -> list[list[Any]] | None:
    """``[name, kind, has default]`` per parameter (``self``/``cls`` dropped when ``bound``);
    None when the signature cannot be read or takes a Java object."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
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
    if any(p.name.startswith(("j_", "java_")) or "_j_" in p.name for p in params):
        return None
    return [[p.name, KINDS[p.kind], p.default is not inspect.Parameter.empty] for p in params]


def exported(module: Any) -> list[str]:
    """``__all__`` and the public classes and functions the module defines (PyFlink's
    ``__all__`` may leave out names programs import, as ``typeinfo.RowTypeInfo``)."""
    defined = [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", "") == module.__name__
    ]
    return sorted({*getattr(module, "__all__", ()), *defined})


def class_members(cls: type) -> dict[str, list[list[Any]]]:
    members: dict[str, list[list[Any]]] = {}
    for name in sorted(dir(cls)):
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__" and cls.__name__ in MADE_BY_PYFLINK | JAVA_WRAPPERS:
            continue
        owner = next((c for c in cls.__mro__ if name in vars(c)), None)
        if owner is None or not owner.__module__.startswith("pyflink"):
            continue  # object's, Enum's, ABC's
        raw = vars(owner)[name]
        if isinstance(raw, staticmethod):
            params = parameters(raw.__func__, bound=False)
        elif isinstance(raw, classmethod):
            params = parameters(raw.__func__, bound=True)
        elif inspect.isfunction(raw):
            params = parameters(raw, bound=True)
        else:
            continue  # properties, constants, enum members, nested classes
        if params is not None:
            members[f"{cls.__name__}.{name}"] = params
    return members


def render(document: dict[str, Any]) -> str:
    """JSON with one line per signature (reviewable diffs when PyFlink changes)."""
    lines = ["{", f'"pyflink_version": {json.dumps(document["pyflink_version"])},', '"modules": {']
    modules = sorted(document["modules"].items())
    for m, (module_name, entries) in enumerate(modules):
        lines.append(f"{json.dumps(module_name)}: {{")
        items = sorted(entries.items())
        for i, (name, params) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            lines.append(f"  {json.dumps(name)}: {json.dumps(params)}{comma}")
        lines.append("}," if m < len(modules) - 1 else "}")
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        entries: dict[str, list[list[Any]]] = {}
        for name in exported(module):
            value = getattr(module, name, None)
            if inspect.isclass(value) and value.__module__.startswith("pyflink"):
                entries.update(class_members(value))
            elif inspect.isfunction(value) and value.__module__.startswith("pyflink"):
                params = parameters(value, bound=False)
                if params is not None:
                    entries[name] = params
        out[module_name] = entries
    import pyflink.version

    document = {"pyflink_version": pyflink.version.__version__, "modules": out}
    path = Path(__file__).resolve().parent.parent / "tests" / "unit" / "pyflink_signatures.json"
    path.write_text(render(document))
    count = sum(len(v) for v in out.values())
    print(f"wrote {count} signatures of PyFlink {document['pyflink_version']} to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
