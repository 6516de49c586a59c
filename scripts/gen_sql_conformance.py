"""Regenerate tests/differential/sql_conformance.jsonl: every case of the conformance corpus
(``scripts/sql_conformance/``) run on real PyFlink 2.3, in batch mode, with what it printed.

    PATH=/work/pyflink-venv/bin:$PATH python scripts/gen_sql_conformance.py
    PATH=/work/pyflink-venv/bin:$PATH python scripts/gen_sql_conformance.py --reuse   # new cases only
    PATH=/work/pyflink-venv/bin:$PATH python scripts/gen_sql_conformance.py --only json --out /tmp/json.jsonl

Run it with a Python that has ``apache-flink==2.3.0`` installed (a virtual environment outside
the repository: PyFlink is never a dependency of millstream). A whole run takes about forty
minutes: the cases run many to a job (``tests/differential/sql_conformance.py`` builds the
queries), a job that fails is split until each failing case runs alone, and every 300 cases
(a chunk) get a fresh process and JVM, which gets the cases themselves.

The run is checkpointed: each chunk's outcomes are appended to ``<data file>.partial`` as the
chunk ends, and a run started again resumes from there (``--fresh`` starts over). A chunk
whose process dies (a crashed JVM) or runs past its time limit (killed with its JVM) is split
in halves and run again; a case that alone crashes or hangs PyFlink is left out and named in
the data file's header. ``--reuse`` also keeps what the data file already records and runs
only the cases it lacks (after adding cases to ``scripts/sql_conformance/``).

For each case it records the cell text ``TableResult.print()`` shows (Flink's
``RowDataToStringConverter``, which ``print()`` uses, before the tableau cuts a cell to
``table.display.max-column-width``) and the column's type as the result's schema prints it, or
the error: the stage (``plan``: ``sql_query`` refused it; ``run``: the optimizer or the job
failed), the Java root cause's class and the first line of its message. The session runs with
``parallelism.default`` 1 and ``table.local-time-zone`` UTC.

Afterwards, run ``python -m tests.differential.test_sql_conformance --write-known-differences``
(with millstream's venv) to rewrite the list of cases where millstream differs today.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import json
import multiprocessing
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.sql_conformance import all_cases  # noqa: E402
from tests.differential.sql_conformance import (  # noqa: E402
    DATA,
    Case,
    Outcome,
    evaluate,
    load_cases,
    read_jsonl,
    uncovered,
)

SESSION = {"parallelism.default": "1", "table.local-time-zone": "UTC"}


class PyFlinkEngine:
    """A PyFlink batch TableEnvironment as an ``Engine`` (one query at a time)."""

    concurrency = 1

    def __init__(self) -> None:
        from pyflink.table import EnvironmentSettings, TableEnvironment

        self.t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
        for key, value in SESSION.items():
            self.t_env.get_config().set(key, value)

    def plan(self, sql: str) -> list[str]:
        table = self.t_env.sql_query(sql)
        columns = table.get_resolved_schema()._j_resolved_schema.getColumns()
        return [column.getDataType().toString() for column in columns]

    def run(self, sql: str) -> list[list[str]]:
        result = self.t_env.sql_query(sql).execute()._j_table_result
        converter = result.getRowDataToStringConverter()
        rows = result.collectInternal()
        try:
            cells = []
            while rows.hasNext():
                cells.append([str(cell) for cell in converter.convert(rows.next())])
            return cells
        finally:
            rows.close()

    def describe(self, error: BaseException) -> tuple[str, str]:
        java = getattr(error, "java_exception", None)
        if java is None and error.__context__ is not None:
            java = getattr(error.__context__, "java_exception", None)
        if java is None:
            return type(error).__name__, (str(error).splitlines() or [""])[0]
        while java.getCause() is not None and java.getCause() != java:
            java = java.getCause()
        message = java.getMessage()
        return java.getClass().getName(), (str(message).splitlines() or [""])[
            0
        ] if message is not None else ""


def _version() -> str:
    from pyflink.version import __version__

    return __version__


def _header(count: int, lost: list[str]) -> dict[str, Any]:
    header = {
        "header": "Flink SQL conformance cases: each expression (over its input row) or query, with what "
        "PyFlink printed for it (the cell text TableResult.print() shows, and the column type of the "
        "result's schema) or the error it raised. Every expected value was taken from a PyFlink run, "
        "never written by hand.",
        "generated_from": f"PyFlink {_version()} (apache-flink), batch mode, "
        + ", ".join(f"{k}={v}" for k, v in SESSION.items()),
        "generated_on": datetime.date.today().isoformat(),
        "regenerate": "PATH=/work/pyflink-venv/bin:$PATH python scripts/gen_sql_conformance.py  "
        "(a Python with apache-flink 2.3.0; the cases are scripts/sql_conformance/), then "
        ".venv/bin/python -m tests.differential.test_sql_conformance --write-known-differences",
        "cases": count,
    }
    if lost:
        header["left_out"] = lost  # cases that killed or hung PyFlink when run alone
    return header


# SHOW FUNCTIONS names that SQL spells otherwise, or that no SQL expression calls: the planner's
# internal aggregate helpers and the process table functions (not scalar: no expression to test).
SPELLED = {"IS_JSON": "IS JSON", "TRANSLATE3": "TRANSLATE", "JSON_ARRAYAGG_ABSENT_ON_NULL": "JSON_ARRAYAGG",
           "JSON_ARRAYAGG_NULL_ON_NULL": "JSON_ARRAYAGG", "JSON_OBJECTAGG_ABSENT_ON_NULL": "JSON_OBJECTAGG",
           "JSON_OBJECTAGG_NULL_ON_NULL": "JSON_OBJECTAGG"}  # fmt: skip
NOT_CALLED = {"AGG_DECIMAL_MINUS", "AGG_DECIMAL_PLUS", "HIVE_AGG_DECIMAL_PLUS", "ASSIGNMENT",
              "FROM_CHANGELOG", "TO_CHANGELOG", "ML_PREDICT", "DEFAULT"}  # fmt: skip


def _coverage(cases: list[Case], names: list[str]) -> list[str]:
    """The built-in functions no case calls."""
    text = "\n".join(c.expr or c.query for c in cases).upper()
    missing = []
    for name in names:
        spelled = SPELLED.get(name, name)
        if name not in NOT_CALLED and not re.search(
            r"(?<![A-Z_])" + re.escape(spelled) + r"(?![A-Z_])", text
        ):
            missing.append(name)
    return missing


STARTED = time.monotonic()
CHUNK = 300  # cases a JVM
CHUNK_SECONDS = 60.0  # a chunk's time limit: this, and PER_CASE_SECONDS for each of its cases
PER_CASE_SECONDS = 3.0


def _progress(message: str) -> None:
    print(f"[{time.monotonic() - STARTED:7.1f}s] {message}", file=sys.stderr, flush=True)


def _run_chunk(lines: list[dict[str, Any]], alone: list[str], name: str, out: str) -> None:
    """Run the cases (data file lines) on a fresh PyFlink and write their outcomes to ``out``
    as JSON. Runs in a process of its own, in a session of its own, so that the parent can kill
    it and the JVM it starts at once."""
    os.setsid()
    single = set(alone)
    cases = [Case.from_json(line) for line in lines]
    outcomes = evaluate(
        PyFlinkEngine(), cases, lambda text: _progress(f"{name}: {text}"), alone=lambda c: c.id in single
    )
    temporary = Path(out + ".tmp")
    temporary.write_text(json.dumps({key: o.to_json() for key, o in outcomes.items()}), encoding="utf-8")
    temporary.replace(out)


_run_chunk_target = _run_chunk  # what a chunk's process runs (a test may put a stand-in here)


def _kill_group(pid: int) -> None:
    """Kill the process group ``pid`` leads (a chunk's process and its JVM) and wait until it is
    gone, reaping the JVM (this process adopts it: ``_adopt_orphans``)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        _reap()
        time.sleep(0.05)
    _progress(f"process group {pid} still has processes 30 s after it was killed")


def _adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans (Linux's child subreaper): a
    chunk's JVM, left when its process ends, is then reaped here (``_reap``) instead of
    lingering as a zombie under an init that reaps nothing."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _reap() -> None:
    """Reap every child of this process that has ended."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass


def run_chunk(cases: list[Case], alone: set[str], name: str, folder: Path) -> dict[str, Outcome] | None:
    """The outcomes of ``cases`` on a fresh PyFlink, or None when its process failed or ran
    past its time limit (it and its JVM are killed then)."""
    out = folder / "chunk.json"
    out.unlink(missing_ok=True)
    limit = CHUNK_SECONDS + PER_CASE_SECONDS * len(cases)
    args = ([c.to_json() for c in cases], sorted(alone & {c.id for c in cases}), name, str(out))
    process = multiprocessing.get_context("spawn").Process(target=_run_chunk_target, args=args, daemon=True)
    process.start()
    process.join(limit)
    timed_out = process.is_alive()
    assert process.pid is not None
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the JVM outlives a process that ends on its own
    process.join()
    _kill_group(process.pid)
    if timed_out:
        _progress(f"{name}: no answer after {limit:.0f} s: killed")
        return None
    if process.exitcode != 0 or not out.exists():
        _progress(f"{name}: the process ended with exit code {process.exitcode}")
        return None
    done = json.loads(out.read_text(encoding="utf-8"))
    return {key: Outcome.from_json(value) for key, value in done.items()}


def run_all(
    cases: list[Case], alone: set[str], checkpoint: Path, recorded: dict[str, Outcome], size: int = CHUNK
) -> tuple[dict[str, Outcome], list[str]]:
    """The outcome of every case, ``size`` cases a JVM. Each chunk's outcomes are appended to
    ``checkpoint`` as it ends (an interrupted run resumes from it). A chunk whose process dies
    or hangs is split in halves and run again, down to single cases; a case that alone kills
    or hangs PyFlink is left out (the second value: their ids)."""
    outcomes = dict(recorded)
    pending = [c for c in cases if c.id not in outcomes]
    queue = [pending[i : i + size] for i in range(0, len(pending), size)]
    lost: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sql-conformance-") as folder:
        number = 0
        while queue:
            chunk = queue.pop(0)
            number += 1
            name = f"chunk {number} ({len(chunk)} cases, {len(queue)} more chunks)"
            done = run_chunk(chunk, alone, name, Path(folder))
            if done is None or set(done) != {c.id for c in chunk}:
                if len(chunk) == 1:
                    lost.append(chunk[0].id)
                    _progress(f"left out {chunk[0].id}: {chunk[0].query or chunk[0].expr}")
                else:
                    middle = len(chunk) // 2
                    queue[:0] = [chunk[:middle], chunk[middle:]]
                continue
            with open(checkpoint, "a", encoding="utf-8") as saved:
                for key, value in done.items():
                    saved.write(json.dumps({"id": key, "flink": value.to_json()}, ensure_ascii=False) + "\n")
            outcomes.update(done)
            _progress(f"{name} done: {len(outcomes)} of {len(cases)} cases")
    return outcomes, lost


def _builtin_functions() -> list[str]:
    """The SQL names of PyFlink's built-in functions (``SHOW FUNCTIONS``)."""
    names = PyFlinkEngine().t_env.list_functions()
    return [n for n in names if re.fullmatch(r"[A-Z][A-Z0-9_]*", n)]


def pool_call(function: Callable[[], list[str]]) -> list[str]:
    """``function()`` in a process of its own (a JVM of its own)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function).result()


def _failed_at_run_time_before(path: Path) -> set[str]:
    """The cases the previous data file records as failing at run time: they run one a job
    from the start (only faster: a batch that fails is split anyway)."""
    if not path.exists():
        return set()
    return {c.id for c in load_cases(path) if (c.expected or {}).get("error", {}).get("stage") == "run"}


def _recorded(*paths: Path) -> dict[str, Outcome]:
    """The outcomes the data file and the partial file of an interrupted run record, by id."""
    recorded: dict[str, Outcome] = {}
    for path in paths:
        if path.exists():
            for line in read_jsonl(path)[1]:
                if "flink" in line:
                    recorded[line["id"]] = Outcome.from_json(line["flink"])
    return recorded


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the cases of these categories (comma-separated)")
    parser.add_argument("--out", type=Path, default=DATA, help="the data file to write")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the outcomes the data file already records, from an earlier PyFlink 2.3 run, and run "
        "only the cases it lacks",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start over: ignore the checkpoint of an interrupted run"
    )
    parser.add_argument("--chunk", type=int, default=CHUNK, help=f"cases a JVM (default {CHUNK})")
    args = parser.parse_args(argv)
    _adopt_orphans()
    cases = all_cases()
    if args.only:
        cases = [c for c in cases if c.category in args.only.split(",")]
    checkpoint = args.out.with_name(args.out.name + ".partial")  # each chunk's outcomes, as it ends
    if args.fresh:
        checkpoint.unlink(missing_ok=True)
    recorded = _recorded(*([args.out] if args.reuse else []), checkpoint)
    if recorded:
        _progress(f"{sum(1 for c in cases if c.id in recorded)} of {len(cases)} cases already recorded")
    outcomes, lost = run_all(cases, _failed_at_run_time_before(args.out), checkpoint, recorded, args.chunk)
    kept = [c for c in cases if c.id in outcomes]
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(json.dumps(_header(len(kept), lost), ensure_ascii=False) + "\n")
        for case in kept:
            line = case.to_json()
            line["flink"] = outcomes[case.id].to_json()
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    checkpoint.unlink(missing_ok=True)
    errors = sum(1 for c in kept if outcomes[c.id].error is not None)
    _progress(f"wrote {len(kept)} cases ({errors} errors) to {args.out}")
    if lost:
        _progress(f"left out {len(lost)} cases PyFlink could not run: " + ", ".join(lost))
    if not args.only:
        missing = _coverage(cases, pool_call(_builtin_functions))
        _progress("built-in functions no case calls: " + (", ".join(missing) or "none"))
        missing = uncovered(cases)
        _progress("FLINK_FUNCTIONS no case calls: " + (", ".join(missing) or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
