"""The table of Flink SQL's built-in functions in ``docs/sql-functions.md``: each function, a
sample call, what Flink 2.3 returns for it and whether millstream returns the same.

``docs/sql_functions.jsonl`` holds one line per function: its category, name, sample (an
expression, or a whole query for aggregates and window functions) and ``flink``, the rows
PyFlink 2.3.0 returned for it in batch mode (collected, canonicalised by ``canon``), or
``"ERROR ..."``. A sample that needs a table has ``setup`` (the statements creating it) and
may run in ``"mode": "streaming"`` (``CURRENT_WATERMARK`` needs a rowtime attribute, which
only streaming mode has). This module runs every sample on millstream and writes the
Markdown table:

    python -m millstream.testing.function_table            # print the table
    python -m millstream.testing.function_table --write    # rewrite docs/sql-functions.md

``tests/docs/test_sql_function_table.py`` fails when the committed page is not what the code
gives today (a function gained, lost or changed).
"""

from __future__ import annotations

import datetime
import decimal
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from millstream.table import EnvironmentSettings, TableEnvironment

__all__ = ["ROOT", "Sample", "canon", "evaluate", "markdown", "samples"]

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "docs" / "sql_functions.jsonl"
PAGE = ROOT / "docs" / "sql-functions.md"


@dataclass(frozen=True)
class Sample:
    """One function's sample call and Flink's result for it."""

    category: str
    name: str
    sample: str
    flink: Any  # the canonical rows, or "ERROR ..."
    setup: tuple[str, ...] = ()  # statements run before the sample (its tables)
    mode: str = "batch"  # or "streaming"

    @property
    def query(self) -> str:
        return self.sample if self.sample.startswith("SELECT ") else f"SELECT {self.sample}"


def samples(path: Path = DATA) -> list[Sample]:
    """The samples of the data file, in its order."""
    with open(path, encoding="utf-8") as lines:
        items = [json.loads(line) for line in lines if line.strip()]
    return [Sample(**{**item, "setup": tuple(item.get("setup", ()))}) for item in items]


def canon(value: Any) -> Any:
    """A value as JSON can hold it and both engines print it alike (rows as lists, DECIMAL
    as ``D<digits>``, floats by ``repr``, times in ISO form, bytes as ``X<hex>``)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return "D" + str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "X" + bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): canon(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):  # a list, a Row
        return [canon(v) for v in value]
    return "?" + repr(value)


def evaluate(sample: Sample, t_env: Any) -> Any:
    """millstream's canonical rows for ``sample`` (``"ERROR ..."`` when it fails). A scalar
    sample's projection is evaluated in this process on the one row of no columns; a query
    runs as a batch job."""
    try:
        table = t_env.sql_query(sample.query)
        plan = table._plan
        functions = getattr(plan, "functions", None)
        if type(plan).__name__ == "Project" and type(plan.input).__name__ == "Values" and functions:
            return [canon([f(()) for f in functions])]
        with table.execute().collect() as rows:
            return [canon(list(r)) for r in rows]
    except Exception as err:  # a sample millstream cannot run: the table says so
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return f"ERROR {first[:160]}"


def _status(flink: Any, mine: Any) -> str:
    if isinstance(flink, str) and flink.startswith("ERROR"):
        return "(Flink refuses the sample)"
    if mine == flink:
        return "yes"
    if isinstance(mine, str) and mine.startswith("ERROR"):
        return "no"
    return "differs"


def _cell(value: Any) -> str:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 1:
        value = value[0][0]  # one row of one column: the value itself
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _environment(mode: str) -> TableEnvironment:
    settings = (
        EnvironmentSettings.in_streaming_mode()
        if mode == "streaming"
        else EnvironmentSettings.in_batch_mode()
    )
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    return t_env


def _setup_note(sample: Sample) -> str:
    """What a sample runs after (its tables) and in which mode, when not batch on no table."""
    if not sample.setup and sample.mode == "batch":
        return ""
    after = "; ".join(sample.setup)
    return f" ({sample.mode} mode{', after ' + _cell(after) if after else ''})"


def rows(items: list[Sample]) -> Iterator[tuple[Sample, Any, str]]:
    """Each sample with millstream's result and its status (yes, differs, no)."""
    environments: dict[str, TableEnvironment] = {}
    for sample in items:
        t_env = environments.get(sample.mode) or environments.setdefault(
            sample.mode, _environment(sample.mode)
        )
        for statement in sample.setup:
            t_env.execute_sql(statement)
        mine = evaluate(sample, t_env)
        yield sample, mine, _status(sample.flink, mine)


def markdown(items: list[Sample] | None = None) -> str:
    """The page: a summary, then one table per category."""
    evaluated = list(rows(samples() if items is None else items))
    counts = {s: sum(1 for *_, status in evaluated if status == s) for s in ("yes", "differs", "no")}
    lines = [
        "# Built-in SQL functions",
        "",
        "Flink SQL's built-in functions, each with a sample call: what Flink 2.3 returns for it",
        "(PyFlink 2.3.0, batch mode unless the sample says streaming) and whether millstream",
        "returns the same. Generated by `python -m millstream.testing.function_table --write`",
        "from `docs/sql_functions.jsonl`; a test fails when this page is stale.",
        "",
        f"Of {len(evaluated)} samples: **{counts['yes']}** give Flink's result, "
        f"**{counts['differs']}** run but differ, **{counts['no']}** are not supported yet.",
    ]
    category = None
    for sample, mine, status in evaluated:
        if sample.category != category:
            category = sample.category
            lines += ["", f"## {category}", "", "| function | sample | Flink | millstream |"]
            lines.append("|---|---|---|---|")
        shown = "yes" if status == "yes" else (f"{status}: {_cell(mine)}" if status == "differs" else status)
        name = sample.name.replace("|", "\\|")
        shown_sample = _cell(sample.sample) + _setup_note(sample)
        lines.append(f"| {name} | {shown_sample} | {_cell(sample.flink)} | {shown} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    page = markdown()
    if "--write" in argv:
        PAGE.write_text(page, encoding="utf-8")
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
