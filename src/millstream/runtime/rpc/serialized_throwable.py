"""Exceptions across processes, with their tracebacks and cause chains (Flink's SerializedThrowable).

``dumps_exception`` pickles the exception itself, its ``__cause__`` / ``__context__``
chain and every traceback (through tblib), so the client sees the user's own exception
type with the user's own lines. An exception that cannot be pickled travels as a
``RemoteException`` carrying its type name, message and formatted traceback instead.
"""

from __future__ import annotations

import pickle
import traceback

import cloudpickle
from tblib import pickling_support

__all__ = ["RemoteException", "dumps_exception", "loads_exception"]


class RemoteException(Exception):
    """Stand-in for an exception whose object could not cross processes."""

    def __init__(self, type_name: str, message: str, formatted: str) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.formatted = formatted

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (RemoteException, (self.type_name, str(self.args[0]), self.formatted))

    def __str__(self) -> str:
        return f"{self.args[0]}\n\nRemote traceback:\n{self.formatted}"


def _chain(err: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    stack = [err]
    while stack:
        current = stack.pop()
        if any(current is s for s in seen):
            continue
        seen.append(current)
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return seen


def dumps_exception(err: BaseException) -> bytes:
    """Pickle ``err`` with its tracebacks and chain (or a RemoteException with the text)."""
    try:
        pickling_support.install(*_chain(err))
        data: bytes = cloudpickle.dumps(err)
        pickle.loads(data)  # must also load here: then it loads in the peer (same code)
        return data
    except Exception:
        formatted = "".join(traceback.format_exception(err))
        fallback = RemoteException(type(err).__qualname__, str(err), formatted)
        return cloudpickle.dumps(fallback)


def loads_exception(data: bytes) -> BaseException:
    """The exception pickled by ``dumps_exception``."""
    pickling_support.install()
    err = pickle.loads(data)
    if not isinstance(err, BaseException):
        raise TypeError(f"expected a pickled exception, got {type(err).__name__}")
    return err
