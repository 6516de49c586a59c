"""Pickling user code so that its tracebacks still name the user's files.

cloudpickle pickles functions that are not importable (lambdas, functions of ``__main__``
or of a test module) by value, code objects included. Since cloudpickle 3.1.3 it replaces
each code object's file name with ``<dynamic-code>`` (a deterministic payload), so a
traceback raised in a TaskManager would show ``File "<dynamic-code>"`` and no source line
where the user's own line belongs. ``dumps_user_code`` keeps the file name: a code object
travels as cloudpickle's code plus its file name, put back when it is loaded.
"""

from __future__ import annotations

import io
import pickle
import types
from typing import Any

import cloudpickle

__all__ = ["dumps_user_code"]

_DYNAMIC = "<dynamic-code>"


def _code_in_file(code: types.CodeType, filename: str) -> types.CodeType:
    """``code`` with its file name put back (called when the pickle is loaded)."""
    return code.replace(co_filename=filename)


class _Pickler(cloudpickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is types.CodeType and obj.co_filename != _DYNAMIC:
            # the code without its file name goes through cloudpickle's own reducer
            return _code_in_file, (obj.replace(co_filename=_DYNAMIC), obj.co_filename)
        return super().reducer_override(obj)


def dumps_user_code(obj: Any, protocol: int = pickle.HIGHEST_PROTOCOL) -> bytes:
    """``cloudpickle.dumps(obj)``, with the file names of the code objects it carries."""
    with io.BytesIO() as buffer:
        _Pickler(buffer, protocol=protocol).dump(obj)
        return buffer.getvalue()
