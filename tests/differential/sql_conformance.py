"""The Flink SQL conformance corpus: its cases, and how a batch of them runs on an engine.

``sql_conformance.jsonl`` (next to this module) holds one case a line after a header line:
an expression (scalar or aggregate) over the columns ``v0``, ``v1`` ... of an input row (SQL
literals of declared types), or a whole query, with what PyFlink 2.3 printed for it: the
cell text ``TableResult.print()`` shows (before the tableau cuts a cell to its column width)
and the column's type as the result's schema prints it, or the error it raised.
``scripts/gen_sql_conformance.py`` writes it by running every case on PyFlink 2.3;
``test_sql_conformance.py`` runs every case on millstream and compares.

This module is engine-neutral (it imports neither PyFlink nor millstream). PyFlink takes
about half a second a job, so the generator runs the cases through ``evaluate``, many to a
query:

* scalar cases are batched many to a query, ``SELECT e1 AS c0, e2 AS c1 ... FROM (VALUES
  (<all inputs>)) AS t(<all columns>)``, each case's columns renamed apart (``v0`` of the
  fourth case becomes ``k3v0``), so a few jobs run the whole corpus;
* aggregate cases are batched with the cases over the same input rows;
* a query case runs alone;
* every case is first planned alone (its type, and planning errors, are its own); a batch
  that fails as a whole is split in halves until each failing case stands alone, so an
  error is always the case's own outcome; the cases expected to fail run alone from the
  start, and the queries run ``Engine.concurrency`` at a time.

Flink generates one class per query and evaluates each expression the same way whatever
its neighbours, so a batch gives each case its outcome alone. millstream runs each case as
a query of its own (``millstream_sql.py``): its planner picks the Arrow kernels for a
projection only when every expression of it has one, so a case's neighbours would choose
its code path.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "DATA",
    "FLINK_FUNCTIONS",
    "KNOWN_DIFFERENCES",
    "Case",
    "Engine",
    "Outcome",
    "case_id",
    "evaluate",
    "layout_rows",
    "load_cases",
    "query_of",
    "read_jsonl",
    "uncovered",
]

HERE = Path(__file__).resolve().parent
DATA = HERE / "sql_conformance.jsonl"
KNOWN_DIFFERENCES = HERE / "sql_conformance_known_differences.jsonl"

BATCH_CASES = 40  # expressions in one batched query
BATCH_COLUMNS = 240  # input columns in one batched query
_INPUT_NAME = re.compile(r"\bv(\d+)\b")
_ORDERED = re.compile(r"\bORDER BY [^()]*$", re.IGNORECASE)


@dataclass(frozen=True)
class Case:
    """One case: ``expr`` over the input columns (``columns``: name and SQL type of ``v0``,
    ``v1`` ...; ``rows``: the SQL literals of each input row), or ``query`` on its own."""

    id: str
    category: str
    function: str
    expr: str = ""
    columns: tuple[tuple[str, str], ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    kind: str = "scalar"  # scalar (one input row at most), aggregate, or query
    query: str = ""
    expected: dict[str, Any] | None = None  # the Outcome PyFlink gave, as JSON

    def to_json(self) -> dict[str, Any]:
        """The case as a line of the data file (without defaults)."""
        line: dict[str, Any] = {"id": self.id, "category": self.category, "function": self.function}
        if self.kind != "scalar":
            line["kind"] = self.kind
        if self.kind == "query":
            line["query"] = self.query
        else:
            line["expr"] = self.expr
        if self.columns:
            line["columns"] = [list(c) for c in self.columns]
            line["rows"] = [list(r) for r in self.rows]
        if self.expected is not None:
            line["flink"] = self.expected
        return line

    @staticmethod
    def from_json(line: dict[str, Any]) -> Case:
        """A case read back from a data file line."""
        return Case(
            id=line["id"],
            category=line["category"],
            function=line["function"],
            expr=line.get("expr", ""),
            columns=tuple((n, t) for n, t in line.get("columns", ())),
            rows=tuple(tuple(r) for r in line.get("rows", ())),
            kind=line.get("kind", "scalar"),
            query=line.get("query", ""),
            expected=line.get("flink"),
        )


def case_id(category: str, function: str, text: str) -> str:
    """A stable id: the function and a digest of the case's text (expression and input)."""
    digest = hashlib.sha1(f"{category}\0{text}".encode()).hexdigest()[:10]
    slug = re.sub(r"[^A-Za-z0-9_]+", "_", function).strip("_").lower() or "op"
    return f"{category}/{slug}/{digest}"


@dataclass(frozen=True)
class Outcome:
    """What an engine gave for a case: the column's type and printed cell, or an error (the
    stage it was raised in, ``plan`` or ``run``, its class and first message line)."""

    type: str | None = None
    printed: str | None = None
    error: dict[str, str] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error}
        return {"type": self.type, "printed": self.printed}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Outcome:
        if "error" in data:
            return Outcome(error=data["error"])
        return Outcome(type=data["type"], printed=data["printed"])

    def agrees_with(self, flink: Outcome) -> bool:
        """The same type and printed cell, exactly; or, where Flink raises, an error raised at
        the same stage: refused while planning (``sql_query``) where Flink refuses it there, at
        any stage where Flink fails when the query runs (Flink's optimizer runs then; an engine
        may find the error sooner). The error's class and message are the engine's own and are
        not compared."""
        if flink.error is not None:
            if self.error is None:
                return False
            return flink.error["stage"] != "plan" or self.error["stage"] == "plan"
        return self.error is None and (self.type, self.printed) == (flink.type, flink.printed)

    def value_agrees_with(self, flink: Outcome) -> bool:
        """The same printed cell (the type may differ), or both raise (at any stage)."""
        if flink.error is not None:
            return self.error is not None
        return self.error is None and self.printed == flink.printed


class Engine(Protocol):
    """One SQL engine in batch mode: plan a query (its result column types), or run it (the
    rows, each as its printed cells); ``describe`` turns what either raised into
    ``(class, first message line)``. ``concurrency``: how many queries may run at once (from
    threads of this process)."""

    concurrency: int

    def plan(self, sql: str) -> list[str]: ...

    def run(self, sql: str) -> list[list[str]]: ...

    def describe(self, error: BaseException) -> tuple[str, str]: ...


def read_jsonl(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The header line (a line with a ``header`` key) and the other lines of a JSON Lines file."""
    header, lines = None, []
    with open(path, encoding="utf-8") as handle:
        for text in handle:
            if not text.strip():
                continue
            line = json.loads(text)
            if "header" in line:
                header = line
            else:
                lines.append(line)
    return header, lines


def load_cases(path: Path = DATA) -> list[Case]:
    """The cases of a data file, in its order."""
    return [Case.from_json(line) for line in read_jsonl(path)[1]]


# -- building queries -----------------------------------------------------------------------------


def _outside_quotes(sql: str, replace: Callable[[str], str]) -> str:
    """``sql`` with ``replace`` applied to the text outside '...' strings and `...` names."""
    parts, i, start = [], 0, 0
    while i < len(sql):
        quote = sql[i]
        if quote in "'`":
            parts.append(replace(sql[start:i]))
            j = i + 1
            while j < len(sql):
                if sql[j] == quote and j + 1 < len(sql) and sql[j + 1] == quote:
                    j += 2
                    continue
                if sql[j] == quote:
                    break
                j += 1
            parts.append(sql[i : j + 1])
            i = start = j + 1
            continue
        i += 1
    parts.append(replace(sql[start:]))
    return "".join(parts)


def _renamed(expr: str, prefix: str) -> str:
    return _outside_quotes(expr, lambda text: _INPUT_NAME.sub(lambda m: f"{prefix}v{m.group(1)}", text))


def _typed(literal: str, sql_type: str) -> str:
    return f"CAST({literal} AS {sql_type})"


def _values(columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]], names: Sequence[str]) -> str:
    body = ", ".join(
        "(" + ", ".join(_typed(lit, t) for lit, (_, t) in zip(row, columns, strict=True)) + ")"
        for row in rows
    )
    return f"(VALUES {body}) AS t({', '.join(names)})"


def query_of(case: Case, column: str = "c0") -> str:
    """The query of one case alone (its one column named ``column``)."""
    if case.kind == "query":
        return case.query
    if not case.columns:
        return f"SELECT {case.expr} AS {column}"
    names = [n for n, _ in case.columns]
    return f"SELECT {case.expr} AS {column} FROM {_values(case.columns, case.rows, names)}"


def _batch_query(cases: Sequence[Case]) -> str:
    """One query computing every case of ``cases`` as column ``c<i>``."""
    if cases[0].kind == "aggregate":  # the batch shares one input: no renaming
        head = cases[0]
        select = ", ".join(f"{c.expr} AS c{i}" for i, c in enumerate(cases))
        return f"SELECT {select} FROM {_values(head.columns, head.rows, [n for n, _ in head.columns])}"
    select = ", ".join(f"{_renamed(c.expr, f'k{i}')} AS c{i}" for i, c in enumerate(cases))
    columns = [(f"k{i}{name}", t) for i, c in enumerate(cases) for name, t in c.columns]
    if not columns:
        return f"SELECT {select}"
    row = tuple(lit for c in cases for lit in (c.rows[0] if c.rows else ()))
    return f"SELECT {select} FROM {_values(columns, [row], [n for n, _ in columns])}"


def _batches(cases: Sequence[Case]) -> Iterable[list[Case]]:
    """Scalar cases in batches of bounded width; aggregate cases by shared input."""
    by_input: dict[str, list[Case]] = {}
    batch: list[Case] = []
    width = 0
    for case in cases:
        if case.kind == "aggregate":
            by_input.setdefault(json.dumps([case.columns, case.rows]), []).append(case)
            continue
        if batch and (len(batch) >= BATCH_CASES or width + len(case.columns) > BATCH_COLUMNS):
            yield batch
            batch, width = [], 0
        batch.append(case)
        width += len(case.columns)
    if batch:
        yield batch
    for group in by_input.values():
        for start in range(0, len(group), BATCH_CASES):
            yield group[start : start + BATCH_CASES]


# -- running --------------------------------------------------------------------------------------


def _error(engine: Engine, stage: str, error: BaseException) -> Outcome:
    kind, message = engine.describe(error)
    return Outcome(error={"stage": stage, "class": kind, "message": message})


def _printed(rows: list[list[str]], column: int) -> str:
    """A column's cell; anything but one row of cells is shown as such (it never equals a cell
    Flink printed)."""
    if len(rows) == 1 and len(rows[0]) > column:
        return rows[0][column]
    return f"<{len(rows)} rows: {rows}>"


def _table(query: str, rows: list[list[str]]) -> str:
    """A query's rows, one a line, cells separated by `` | ``; sorted unless the query orders
    them (SQL promises no order without ORDER BY)."""
    lines = [" | ".join(row) for row in rows]
    return "\n".join(lines if _ORDERED.search(query) else sorted(lines))


def layout_rows(case: Case, rows: list[list[str]]) -> str:
    """The printed outcome of ``case`` run alone (``query_of``) from the rows of cells it gave:
    the one cell of an expression, a query's rows (``_table``)."""
    return _table(case.query, rows) if case.kind == "query" else _printed(rows, 0)


def _run_batch(engine: Engine, batch: list[Case], types: dict[str, str], out: dict[str, Outcome]) -> None:
    """Run ``batch`` as one query; when it fails, its halves, down to single cases."""
    try:
        rows = engine.run(_batch_query(batch))
        if len(batch) > 1 and (len(rows) != 1 or len(rows[0]) != len(batch)):
            raise ValueError(f"{len(rows)} rows of {[len(r) for r in rows]} cells for {len(batch)} cases")
    except Exception as error:  # attributed to the case below, or the batch is split
        if len(batch) == 1:
            out[batch[0].id] = _error(engine, "run", error)
            return
        middle = len(batch) // 2
        _run_batch(engine, batch[:middle], types, out)
        _run_batch(engine, batch[middle:], types, out)
        return
    for i, case in enumerate(batch):
        out[case.id] = Outcome(type=types[case.id], printed=_printed(rows, i))


def evaluate(
    engine: Engine,
    cases: Sequence[Case],
    progress: Callable[[str], None] | None = None,
    alone: Callable[[Case], bool] = lambda case: False,
) -> dict[str, Outcome]:
    """Every case's outcome on ``engine``, by case id. ``alone``: the cases expected to fail at
    run time, run one a job from the start (a failing case costs its batch a split per level,
    while a case expected to fail would end up alone anyway); the outcome is the same."""
    out: dict[str, Outcome] = {}
    types: dict[str, str] = {}
    planned: list[Case] = []
    for case in cases:
        try:
            columns = engine.plan(query_of(case))
        except Exception as error:  # the case's own planning error
            out[case.id] = _error(engine, "plan", error)
            continue
        types[case.id] = ", ".join(columns)
        if case.kind == "query":
            try:
                out[case.id] = Outcome(
                    type=types[case.id], printed=_table(case.query, engine.run(case.query))
                )
            except Exception as error:  # the case's own run-time error
                out[case.id] = _error(engine, "run", error)
            continue
        planned.append(case)
    if progress is not None:
        refused = sum(1 for outcome in out.values() if outcome.error and outcome.error["stage"] == "plan")
        progress(f"planned {len(cases)} cases: {refused} refused")
    singles = [[case] for case in planned if alone(case)]
    work = list(_batches([case for case in planned if not alone(case)])) + singles
    with ThreadPoolExecutor(max_workers=max(1, engine.concurrency)) as pool:
        futures = [pool.submit(_run_batch, engine, batch, types, out) for batch in work]
        for number, future in enumerate(as_completed(futures)):
            future.result()
            if progress is not None and (number % 10 == 0 or number == len(futures) - 1):
                progress(f"{number + 1} of {len(futures)} queries: {len(out)} of {len(cases)} cases done")
    return out


# -- coverage ---------------------------------------------------------------------------------------------

# Flink 2.3's built-in SQL functions, operators and literal forms, as SQL spells them: the
# SQL column of Flink's function table (docs/data/sql_functions.yml, "System (Built-in)
# Functions") and the SQL names ``SHOW FUNCTIONS`` lists on PyFlink 2.3.0, without the
# planner's internal helpers (AGG_DECIMAL_PLUS, ASSIGNMENT ...), the process table functions
# (FROM_CHANGELOG, TO_CHANGELOG, ML_PREDICT) and DEFAULT (an argument marker). Each must occur
# in some case (``uncovered``).
FLINK_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "comparison": (
        "=", "<>", ">", ">=", "<", "<=", "IS NULL", "IS NOT NULL", "IS DISTINCT FROM",
        "IS NOT DISTINCT FROM", "BETWEEN", "NOT BETWEEN", "SYMMETRIC", "ASYMMETRIC", "LIKE",
        "NOT LIKE", "ESCAPE", "SIMILAR TO", "NOT SIMILAR TO", "IN", "NOT IN", "EXISTS",
    ),
    "logical": (
        "OR", "AND", "NOT", "IS FALSE", "IS NOT FALSE", "IS TRUE", "IS NOT TRUE", "IS UNKNOWN",
        "IS NOT UNKNOWN",
    ),
    "arithmetic": (
        "+", "-", "*", "/", "%", "MOD", "POWER", "ABS", "SQRT", "LN", "LOG10", "LOG2", "LOG", "EXP",
        "CEIL", "CEILING", "FLOOR", "SIN", "SINH", "COS", "COSH", "TAN", "TANH", "COT", "ASIN",
        "ACOS", "ATAN", "ATAN2", "DEGREES", "RADIANS", "SIGN", "ROUND", "PI", "E", "RAND",
        "RAND_INTEGER", "UUID", "BIN", "HEX", "UNHEX", "TRUNCATE", "PERCENTILE",
    ),
    "string": (
        "||", "CHAR_LENGTH", "CHARACTER_LENGTH", "UPPER", "LOWER", "POSITION", "TRIM", "LTRIM",
        "RTRIM", "BTRIM", "REPEAT", "REGEXP_REPLACE", "OVERLAY", "SUBSTRING", "SUBSTR", "REPLACE",
        "REGEXP_EXTRACT", "REGEXP_EXTRACT_ALL", "REGEXP_COUNT", "REGEXP_INSTR", "REGEXP_SUBSTR",
        "INITCAP", "CONCAT", "CONCAT_WS", "LPAD", "RPAD", "FROM_BASE64", "TO_BASE64", "ASCII",
        "CHR", "DECODE", "ENCODE", "INSTR", "LEFT", "RIGHT", "LOCATE", "PARSE_URL", "REGEXP",
        "REVERSE", "SPLIT_INDEX", "STR_TO_MAP", "ELT", "STARTSWITH", "ENDSWITH", "INET_ATON",
        "INET_NTOA", "PRINTF", "SPLIT", "TRANSLATE", "URL_DECODE", "URL_ENCODE",
    ),
    "temporal": (
        "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "INTERVAL", "LOCALTIME", "LOCALTIMESTAMP",
        "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP", "NOW", "CURRENT_ROW_TIMESTAMP",
        "EXTRACT", "YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK",
        "HOUR", "MINUTE", "SECOND", "OVERLAPS", "DATE_FORMAT", "TIMESTAMPADD", "TIMESTAMPDIFF",
        "CONVERT_TZ", "FROM_UNIXTIME", "UNIX_TIMESTAMP", "TO_DATE", "TO_TIMESTAMP",
        "TO_TIMESTAMP_LTZ", "CURRENT_WATERMARK", "SOURCE_WATERMARK",
    ),
    "conditional": (
        "CASE", "NULLIF", "COALESCE", "IF", "IFNULL", "IS_ALPHA", "IS_DECIMAL", "IS_DIGIT",
        "GREATEST", "LEAST",
    ),
    "conversion": ("CAST", "TRY_CAST", "TYPEOF"),
    "collection": (
        "CARDINALITY", "ELEMENT", "ARRAY_APPEND", "ARRAY_CONCAT", "ARRAY_CONTAINS", "ARRAY_DISTINCT",
        "ARRAY_EXCEPT", "ARRAY_INTERSECT", "ARRAY_JOIN", "ARRAY_MAX", "ARRAY_MIN", "ARRAY_POSITION",
        "ARRAY_PREPEND", "ARRAY_REMOVE", "ARRAY_REVERSE", "ARRAY_SLICE", "ARRAY_SORT", "ARRAY_UNION",
        "MAP_KEYS", "MAP_VALUES", "MAP_ENTRIES", "MAP_FROM_ARRAYS", "MAP_UNION",
    ),
    "json": (
        "IS JSON", "JSON_EXISTS", "JSON_STRING", "JSON_VALUE", "JSON_QUERY", "JSON_OBJECT",
        "JSON_OBJECTAGG", "JSON_ARRAY", "JSON_ARRAYAGG", "JSON", "JSON_QUOTE", "JSON_UNQUOTE",
        "PARSE_JSON", "TRY_PARSE_JSON",
    ),
    "valueconstruction": ("ROW", "ARRAY", "MAP", "OBJECT_OF", "OBJECT_UPDATE"),
    "grouping": ("GROUP_ID", "GROUPING", "GROUPING_ID"),
    "hash": ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA2"),
    "aggregate": (
        "COUNT", "AVG", "SUM", "MAX", "MIN", "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP",
        "VARIANCE", "COLLECT", "LISTAGG", "ARRAY_AGG", "FIRST_VALUE", "LAST_VALUE", "RANK",
        "DENSE_RANK", "ROW_NUMBER", "LEAD", "LAG", "CUME_DIST", "PERCENT_RANK", "NTILE",
    ),
    "catalog": ("CURRENT_DATABASE", "CURRENT_CATALOG"),
    "bitmap": (
        "BITMAP_AND", "BITMAP_ANDNOT", "BITMAP_BUILD", "BITMAP_CARDINALITY", "BITMAP_FROM_BYTES",
        "BITMAP_OR", "BITMAP_TO_ARRAY", "BITMAP_TO_BYTES", "BITMAP_TO_STRING", "BITMAP_XOR",
        "BITMAP_AND_AGG", "BITMAP_AND_CARDINALITY_AGG", "BITMAP_BUILD_AGG",
        "BITMAP_BUILD_CARDINALITY_AGG", "BITMAP_OR_AGG", "BITMAP_OR_CARDINALITY_AGG",
        "BITMAP_XOR_AGG", "BITMAP_XOR_CARDINALITY_AGG",
    ),
    "literal": ("''", "X'", "U&'", "UESCAPE"),
}  # fmt: skip


def uncovered(cases: Iterable[Case]) -> list[str]:
    """The names of ``FLINK_FUNCTIONS`` no case's text holds (as a word of its own)."""
    text = "\n".join(case.query or case.expr for case in cases).upper()
    missing = []
    for names in FLINK_FUNCTIONS.values():
        for name in names:
            pattern = re.escape(name) if not name[0].isalpha() else rf"(?<![A-Z0-9_]){re.escape(name)}"
            if name[-1].isalpha():
                pattern += r"(?![A-Z0-9_])"
            if not re.search(pattern, text):
                missing.append(name)
    return missing
