"""How an error reaches a user who runs a program: one line, or the user's own frames.

A failing job, a bad setting, a missing file or an unreachable cluster end a program with
one line naming what is wrong (and what to do), not with pages of the engine's
traceback. A user function's exception keeps what the user needs: a header (job,
operator, subtask, record position) and the frames of the user's own code, ending with
the exception. ``--verbose`` on the command line, or ``MILLSTREAM_LOG_LEVEL=DEBUG``, shows
the whole traceback instead.

``millstream run`` renders what a program raises with :func:`render`; a program run as
``python job.py`` gets the same through :func:`install_excepthook` (installed when the
program creates its environment), which changes nothing for exceptions that are not
millstream's. Coordinating code.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

import millstream

__all__ = ["ONE_LINE_ERRORS", "install_excepthook", "render", "root_cause", "verbose_requested"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(millstream.__file__))
# libraries whose frames are the engine's as much as millstream's own
_ENGINE_MODULES = ("cloudpickle", "tblib", "concurrent", "threading", "runpy", "pyspark", "py4j", "pyarrow")

# Raised by millstream with a message that says it all: the traceback is noise to a user.
ONE_LINE_ERRORS: tuple[str, ...] = (
    "ConfigurationError",
    "NoResourceAvailableError",
    "InsufficientBuffersError",
    "StateRestoreError",
    "RescaleError",
    "SavepointError",
    "ClusterConnectionError",
    "FileNotFoundError",
    "NotADirectoryError",
    "IsADirectoryError",
    "PermissionError",
    "FileExistsError",
    "KafkaConnectorError",
    # a SQL statement or a Table API call that cannot be planned: its position and what is wrong
    "SqlError",
    "SqlTypeError",
    "UnresolvedFieldError",
    "UnknownFunctionError",
    "CatalogException",
    "CastError",
    "LiteralError",
)

VERBOSE_HINT = "(--verbose or MILLSTREAM_LOG_LEVEL=DEBUG shows the whole traceback)"


def verbose_requested() -> bool:
    """Whether the user asked for whole tracebacks."""
    level = os.environ.get("MILLSTREAM_LOG_LEVEL", "").strip().upper()
    return level == "DEBUG" or os.environ.get("MILLSTREAM_VERBOSE", "") not in ("", "0")


def _is_engine_frame(filename: str) -> bool:
    path = os.path.abspath(filename)
    if path.startswith(_PACKAGE_DIR + os.sep):
        return True
    parts = path.split(os.sep)
    return any(f"{name}" in parts or f"{name}.py" in parts for name in _ENGINE_MODULES) or (
        filename.startswith("<frozen ")
    )


def _raised_by_millstream(err: BaseException) -> bool:
    tb = err.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and _is_engine_frame(last.tb_frame.f_code.co_filename)


def _user_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without the engine's frames (a new chain of the user's own)."""
    frames = []
    while tb is not None:
        if not _is_engine_frame(tb.tb_frame.f_code.co_filename):
            frames.append(tb)
        tb = tb.tb_next
    result: types.TracebackType | None = None
    for frame in reversed(frames):
        result = types.TracebackType(result, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return result


def _user_function_failure(err: BaseException) -> BaseException | None:
    """The UserFunctionError (as the runtime raises it: with its location) under ``err``."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if hasattr(current, "operator_name") and hasattr(current, "record_index"):
            return current
        current = current.__cause__
    return None


def root_cause(err: BaseException) -> BaseException:
    """The innermost cause: the user's own exception under the engine's wrappers."""
    seen = {id(err)}
    while err.__cause__ is not None and id(err.__cause__) not in seen:
        err = err.__cause__
        seen.add(id(err))
    return err


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(err).__name__}: {line}" if line else type(err).__name__


def _causes(err: BaseException) -> list[BaseException]:
    """The exceptions under ``err`` (its causes, or what it was raised while handling), in order."""
    out: list[BaseException] = []
    seen = {id(err)}
    current = err.__cause__ or (None if err.__suppress_context__ else err.__context__)
    while current is not None and id(current) not in seen:
        out.append(current)
        seen.add(id(current))
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return out


def _said(err: BaseException, line: str) -> bool:
    """Whether ``line`` already says what ``err`` says (an OSError: its ``strerror``)."""
    text = (err.strerror if isinstance(err, OSError) else None) or str(err).strip()
    return not text or text.splitlines()[0] in line


def _one_line(line: str, err: BaseException) -> str:
    """``line`` for ``err``, with the hint to ``--verbose`` only when the whole traceback
    would show more: an exception under it that the line does not already say."""
    more = not all(_said(cause, line) for cause in _causes(err))
    return f"{line}  {VERBOSE_HINT}" if more else line


def render(err: BaseException, verbose: bool | None = None) -> str:
    """What to print for ``err`` ending a program (without a final newline)."""
    if verbose is None:
        verbose = verbose_requested()
    if verbose:
        return "".join(traceback.format_exception(err)).rstrip("\n")
    if type(err).__name__ == "JobExecutionException":
        return _render_job_failure(err)
    if type(err).__name__ in ONE_LINE_ERRORS and _raised_by_millstream(err):
        return _one_line(f"millstream: {err}", err)
    return "".join(traceback.format_exception(err)).rstrip("\n")


def _job_failure_detail(err: BaseException) -> str:
    """What the line of a failed job adds to the job's own message: the first of its causes
    whose message says it all (one of ``ONE_LINE_ERRORS``: what is under it is detail for
    ``--verbose``), else the innermost cause; nothing when the message already says it."""
    causes = []
    current = err.__cause__
    while current is not None and current not in causes:
        causes.append(current)
        current = current.__cause__
    telling = next((c for c in causes if type(c).__name__ in ONE_LINE_ERRORS), None)
    shown = telling if telling is not None else (causes[-1] if causes else None)
    if shown is None or str(shown).strip() in str(err):
        return ""
    return f": {shown}" if telling is not None else f": {_first_line(shown)}"


def _render_job_failure(err: BaseException) -> str:
    """The header of a failed job and, for a user function, the user's own frames."""
    failure = _user_function_failure(err)
    if failure is None or failure.__cause__ is None:
        return _one_line(f"millstream: {err}{_job_failure_detail(err)}", err)
    user_error = failure.__cause__
    job = getattr(getattr(failure, "location", None), "job_name", "")
    # what the job said between its end and the task's failure ("Recovery is suppressed by ...")
    between = []
    current = err.__cause__
    while current is not None and current is not failure:
        between.append(f"{current}: ")
        current = current.__cause__
    header = f"millstream: Job '{job}' failed: {''.join(between)}{failure}" if job else f"millstream: {err}"
    if hasattr(user_error, "describe_failure"):  # a SQL expression's error names what failed: one line
        return _one_line(header, user_error)
    frames = traceback.format_tb(_user_frames(user_error.__traceback__))
    exception = "".join(traceback.format_exception_only(user_error)).rstrip("\n")
    said = f"{type(user_error).__name__}: {user_error}"
    if not frames and header.endswith((exception, said)):  # the line says it all (a source's bad input)
        return _one_line(header, user_error)
    lines = [header]
    if frames:
        lines.append("Traceback of the user function (most recent call last):")
        lines.extend(frame.rstrip("\n") for frame in frames)
    lines.append(exception)
    lines.append(VERBOSE_HINT)
    return "\n".join(lines)


_installed = False


def install_excepthook() -> None:
    """Render millstream's errors that end a ``python job.py`` run as ``render`` does; any
    other exception goes to the hook that was there before."""
    global _installed
    if _installed:
        return
    _installed = True
    previous: Callable[..., Any] = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
        name = kind.__name__
        ours = name == "JobExecutionException" or (name in ONE_LINE_ERRORS and _raised_by_millstream(value))
        if not ours or verbose_requested():
            previous(kind, value, tb)
            return
        print(render(value, verbose=False), file=sys.stderr)

    sys.excepthook = hook
