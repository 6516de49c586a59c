"""One SQL query run on millstream as a user runs it, and what ``TableResult.print()`` shows
for it: each cell's text and each column's type as ``print_schema()`` prints it.

Only PyFlink's public API is used (``TableEnvironment.sql_query``, ``Table.execute``,
``TableResult.print``, ``TableResult.collect``, ``str(ResolvedSchema)``), so the harness
reads what a user reads, whatever the modules behind it:

* a cell is read from what ``print()`` writes, laid out as Flink's tableau: right-aligned in
  its column, cut to the column's width with ``...`` when longer. A query of one expression
  names its column long enough (``column``) that no cell is cut, and runs again with a longer
  name when one is;
* a character string cell may begin with spaces, which the tableau's padding hides; for a
  CHAR/VARCHAR/STRING column the query runs once more with ``collect()``, and the cell is the
  collected string when ``print()`` shows it right-aligned (otherwise what ``print()`` shows);
* the types are the lines of ``str(table.get_resolved_schema())``, which is Flink's
  ``ResolvedSchema.toString()``: ``(`c0` INT NOT NULL)``.

``print()`` writes to ``sys.stdout``; ``captured_stdout`` routes each thread's writes to
its own buffer, so queries run on several threads at once (``run_cases``).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any

from millstream.table import EnvironmentSettings, TableEnvironment
from tests.differential.sql_conformance import Case, Outcome, layout_rows, query_of

__all__ = ["MillstreamEngine", "captured_stdout", "run_cases", "schema_types", "tableau_cells"]

_COLUMN = re.compile(r"^  `((?:[^`]|``)*)` (.*?),?$")
_STRINGS = re.compile(r"^(CHAR|VARCHAR|STRING)\b")
_CUT = "..."
_WIDEST = 1 << 16  # a cell wider than this is compared as cut


class _ThreadStdout(io.TextIOBase):
    """``sys.stdout`` while queries print: a thread that set a buffer writes to it, any other
    to the stream it replaced."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.local = threading.local()

    def _target(self) -> Any:
        return getattr(self.local, "buffer", None) or self.stream

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def flush(self) -> None:
        self._target().flush()


@contextmanager
def captured_stdout() -> Iterator[io.StringIO]:
    """What this thread prints inside the block, in a buffer of its own (``sys.stdout`` is
    routed per thread from the first call on; other threads' output passes through)."""
    with _ROUTER_LOCK:
        if not isinstance(sys.stdout, _ThreadStdout):
            sys.stdout = _ThreadStdout(sys.stdout)
        router = sys.stdout
    buffer = io.StringIO()
    router.local.buffer = buffer
    try:
        yield buffer
    finally:
        router.local.buffer = None


@contextmanager
def restored_stdout() -> Iterator[None]:
    """``sys.stdout`` as it is now once the block ends (``captured_stdout`` replaces it)."""
    saved = sys.stdout
    try:
        yield
    finally:
        with _ROUTER_LOCK:
            sys.stdout = saved


_ROUTER_LOCK = threading.Lock()


def schema_types(schema: Any) -> list[str]:
    """Each column's type as ``str(ResolvedSchema)`` (Flink's ``toString``) prints it."""
    types = []
    for line in str(schema).splitlines()[1:-1]:
        match = _COLUMN.match(line)
        if match is None:
            raise ValueError(f"not a column of a printed schema: {line!r}")
        types.append(match.group(2))
    return types


def _width(text: str) -> int:
    """The columns ``text`` takes in the tableau (East Asian wide characters two)."""
    return sum(2 if unicodedata.east_asian_width(c) in ("F", "W") else 1 for c in text)


def _take(text: str, width: int) -> tuple[str, str]:
    """The head of ``text`` that is ``width`` columns wide, and the rest."""
    used = 0
    for index, char in enumerate(text):
        if used >= width:
            return text[:index], text[index:]
        used += _width(char)
    return text, ""


def tableau_cells(printed: str) -> tuple[list[int], list[list[str]]]:
    """The column widths and the rows of cells (with their padding) of a printed tableau."""
    if printed.startswith("Empty set"):
        return [], []
    border = printed.split("\n", 1)[0]
    widths = [len(part) - 2 for part in border[1:-1].split("+")]
    parts = printed.split(border + "\n")
    if len(parts) != 4 or not re.fullmatch(r"\d+ rows? in set\n", parts[3]):
        raise ValueError(f"not a printed tableau: {printed!r}")
    body = parts[2]
    if len(widths) == 1 and parts[3].startswith("1 row "):  # the one cell may hold line breaks
        return widths, [[body[2:-3]]]
    rows = []
    for line in body[:-1].split("\n"):
        rest, cells = line[2:], []
        for width in widths:
            cell, rest = _take(rest, width)
            cells.append(cell)
            rest = rest[3:]  # " | "
        rows.append(cells)
    return widths, rows


def _cell(content: str, value: Any, is_string: bool) -> str:
    """A cell's text: ``content`` without the tableau's padding. For a character string the
    collected ``value`` says which leading spaces are the cell's own."""
    if is_string and isinstance(value, str):
        head = content[: len(content) - len(value)] if value else content
        if content.endswith(value) and head.strip(" ") == "":
            return value
    return content.lstrip(" ")


def _is_cut(content: str, width: int) -> bool:
    return content.endswith(_CUT) and _width(content) >= width


class MillstreamEngine:
    """A millstream batch TableEnvironment (parallelism 1, UTC, jobs on the embedded
    runtime's threads in this process) that runs each case as a query of its own."""

    concurrency = 8  # queries at once, on threads: a job spends much of its time waiting

    def __init__(self) -> None:
        self.t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
        config = self.t_env.get_config()
        config.set("parallelism.default", "1")
        config.set("table.local-time-zone", "UTC")
        config.set("minicluster.mode", "threads")  # in this process: no TaskManager processes

    def describe(self, error: BaseException) -> tuple[str, str]:
        return type(error).__name__, (str(error).splitlines() or [""])[0]

    def _error(self, stage: str, error: BaseException) -> Outcome:
        kind, message = self.describe(error)
        return Outcome(error={"stage": stage, "class": kind, "message": message})

    def outcome(self, case: Case) -> Outcome:
        """The case's outcome: its column type and printed cell (for a query, its rows as
        ``sql_conformance`` lays them out), or the error and the stage it was raised in."""
        width = 48
        values: list[list[Any]] | None = None
        while True:
            sql = query_of(case, "c" + "_" * (width - 1))
            try:
                table = self.t_env.sql_query(sql)
                types = schema_types(table.get_resolved_schema())
            except Exception as error:  # the case's own planning error
                return self._error("plan", error)
            try:
                widths, rows = self._print(table)
                values = self._collect(table) if any(_STRINGS.match(t) for t in types) else None
            except Exception as error:  # the case's own run-time error
                return self._error("run", error)
            cut = any(_is_cut(c, w) for row in rows for c, w in zip(row, widths, strict=True))
            if cut and case.kind != "query" and width < _WIDEST:
                width *= 4
                continue
            break
        if values is not None and len(values) != len(rows):  # a nondeterministic query
            values = None
        strings = [bool(_STRINGS.match(t)) for t in types]
        cells = [
            [
                _cell(content, None if values is None else values[r][i], strings[i])
                for i, content in enumerate(row)
            ]
            for r, row in enumerate(rows)
        ]
        return Outcome(type=", ".join(types), printed=layout_rows(case, cells))

    def _print(self, table: Any) -> tuple[list[int], list[list[str]]]:
        result = table.execute()
        try:
            with captured_stdout() as printed:
                result.print()
        except Exception:
            # print() that raises midway leaves the job (and its embedded cluster) running:
            # end it as a user would, by closing the result's rows.
            with contextlib.suppress(Exception):
                result.collect().close()
            raise
        return tableau_cells(printed.getvalue())

    def _collect(self, table: Any) -> list[list[Any]]:
        with table.execute().collect() as rows:
            return [list(row) for row in rows]


def run_cases(
    engine: MillstreamEngine, cases: Sequence[Case], progress: Callable[[str], None] | None = None
) -> dict[str, Outcome]:
    """Every case's outcome, by id, ``engine.concurrency`` cases at a time."""
    out: dict[str, Outcome] = {}
    with restored_stdout(), ThreadPoolExecutor(max_workers=engine.concurrency) as pool:
        futures = {pool.submit(engine.outcome, case): case for case in cases}
        for number, future in enumerate(as_completed(futures)):
            out[futures[future].id] = future.result()
            if progress is not None and (number % 1000 == 999 or number == len(futures) - 1):
                progress(f"{number + 1} of {len(futures)} cases")
    return out
