"""Pickling user code so that its tracebacks still name the user's files.

cloudpickle pickles functions that are not importable (lambdas, functions of ``__main__``
or of a test module) by value, code objects included. Since cloudpickle 3.1.3 it replaces
each code object's file name with ``<dynamic-code>`` (a deterministic payload), so a
traceback raised in a TaskManager would show ``File "<dynamic-code>"`` and no source line
where the user's own line belongs. ``dumps_user_code`` keeps the file name: a code object
travels as cloudpickle's code plus its file name, put back when it is loaded.
"""

from __future__ import annotations

import dis
import io
import operator
import pickle
import types
from typing import Any

import cloudpickle

__all__ = ["ElementError", "dumps_user_code", "subscript_as_itemgetter"]

_DYNAMIC = "<dynamic-code>"


class ElementError(Exception):
    """A function of a whole batch failed on one element: ``offset`` is its index in the
    batch, the user's exception the ``__cause__``. The operator names that record."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"failed at element {offset} of the batch")
        self.offset = offset


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


_SUBSCRIPT = ("LOAD_FAST", "LOAD_CONST", "BINARY_SUBSCR", "RETURN_VALUE")


def subscript_as_itemgetter(function: Any) -> Any:
    """``lambda x: x[0]`` (a one-argument function returning its argument subscripted by a
    constant int or str) as ``operator.itemgetter(0)``: the same ``x[0]``, the same errors,
    without a Python frame per call (key selectors run once or twice per record). Any
    other function comes back as it is."""
    code = getattr(function, "__code__", None)
    if type(function) is not types.FunctionType or code is None or function.__closure__:
        return function
    if code.co_argcount != 1 or code.co_kwonlyargcount or code.co_flags & 0x3AC:
        return function  # *args, **kwargs, generators, coroutines (CO_* flags)
    steps = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "CACHE", "NOP")]
    if tuple(i.opname for i in steps) != _SUBSCRIPT or steps[0].argval != code.co_varnames[0]:
        return function
    constant = steps[1].argval
    if type(constant) not in (int, str):
        return function
    return operator.itemgetter(constant)
