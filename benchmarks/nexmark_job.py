"""One Nexmark SQL job in a process of its own, on millstream or on PyFlink.

``benchmarks/nexmark_sql.py`` writes a job spec (JSON: the engine, the table configuration,
the DDL statements and the ``INSERT``) and times this script as a whole process, run by the
engine's own Python (millstream's, or a PyFlink virtual environment's ``bin/python``):

    python benchmarks/nexmark_job.py SPEC.json

It imports only ``<engine>.table``: the same statements run through PyFlink's and
millstream's ``TableEnvironment`` in streaming mode, and the process ends when the ``INSERT``
job has finished. A failure is printed on one line (the traceback too when the spec says
``verbose``) and the exit status is 1.
"""

import os
import sys

# this directory holds benchmark scripts named like modules PyFlink or millstream may import
# (kafka, state, sql ...): keep it off the import path
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != _HERE]

import importlib  # noqa: E402 - after the import path is cleaned
import json  # noqa: E402
import re  # noqa: E402
import traceback  # noqa: E402
from typing import Any  # noqa: E402

_JAVA_ERROR = re.compile(r"([a-z_$][\w$]*\.)+[A-Z][\w$]*(Exception|Error)\b")


def run(spec: dict[str, Any]) -> None:
    """Create the engine's streaming TableEnvironment, apply the spec and wait for the job."""
    if spec["engine"] == "millstream":  # last: an installed millstream or PYTHONPATH comes first
        sys.path.append(os.path.join(_HERE, "..", "src"))
    table = importlib.import_module(f"{spec['engine']}.table")
    t_env = table.TableEnvironment.create(table.EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    for key, value in spec["configuration"].items():
        config.set(key, value)
    for statement in spec["statements"]:
        t_env.execute_sql(statement)
    t_env.execute_sql(spec["insert"]).wait()


def reason(error: Exception) -> str:
    """One line for ``error``: a Java error's root cause (its last ``Caused by``, or its first
    exception line) as Py4J hands it to PyFlink, else the first line of the message."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    causes = [line.removeprefix("Caused by: ") for line in lines if line.startswith("Caused by: ")]
    java = [line.removeprefix(": ") for line in lines if _JAVA_ERROR.match(line.removeprefix(": "))]
    if causes:
        return causes[-1]
    if java:
        return java[0]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def main() -> int:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    try:
        run(spec)
    except Exception as e:  # one line for the benchmark's table; the traceback on request
        if spec.get("verbose"):
            traceback.print_exc()
        print(f"{spec['engine']} job failed: {reason(e)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
