"""Sub-plan reuse: a part of a job's plan that appears twice is computed once, and its rows go
to every consumer, as Flink's planner does (``table.optimizer.reuse-sub-plan-enabled`` and
``table.optimizer.reuse-source-enabled``, both on by default).

A query that names a view twice (Nexmark q5 and q7 read ``bid`` in two branches), or that
repeats a subquery (q5's two identical window aggregations), would otherwise read its file
twice and aggregate the same rows twice.

While a job's plans are translated, every plan node's ``translate`` (wrapped by
``PlanNode.__init_subclass__``) first asks the job's ``PlanReuse`` for the stream of a node
with the same key. The key of a node is:

* structural when everything the node holds has a value that can be compared: its class,
  columns, expressions (``expressions.fingerprint``), aggregate names, window, options and
  its inputs' keys. Functions the planner compiled from expressions the node also holds
  (``PlanNode.compiled``) are left out, since the expressions stand for them;
* the node itself otherwise (a Python function, a user-defined function, a DataStream): one
  object reached twice is still translated once.

With reuse of sources switched off, no node that reads a source (and so no node above one)
is shared: each scan reads its input on its own.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import operator
import types
from collections.abc import Callable
from typing import Any

from millstream.table.common.types import DataType
from millstream.table.expression.walk import fingerprint

__all__ = ["PlanReuse", "reusing"]

_OPAQUE = object()  # a value compared by identity was met: the node is keyed by itself
_IN_PROGRESS = object()  # the node's key is being computed
# what the planner compiles expressions into (a user's function object is none of these)
_COMPILED = (
    types.FunctionType,
    types.BuiltinFunctionType,
    functools.partial,
    operator.itemgetter,
    operator.attrgetter,
    operator.methodcaller,
)


class PlanReuse:
    """The streams of the plan nodes translated so far for one job, by key."""

    def __init__(self, sources: bool = True) -> None:
        self.sources = sources  # table.optimizer.reuse-source-enabled
        self.streams: dict[Any, Any] = {}
        self.reused: dict[Any, int] = {}  # key -> times a translation was handed a stream again
        self.uses: dict[Any, int] = {}  # key -> consumers in the job's plans (count_uses)
        self._consumers: dict[Any, list[Any]] = {}  # key -> the nodes reading it (count_uses)
        self._keys: dict[int, Any] = {}  # id(node) -> its key (None: not shared)
        self._keep: list[Any] = []  # the nodes keyed so far, kept alive so their ids stay theirs

    def count_uses(self, roots: list[Any]) -> None:
        """Count, over the plans of a job, the consumers of each sub-plan (a sub-plan computed
        once counts its inputs once)."""
        seen: set[Any] = set()
        stack = list(roots)
        while stack:
            node = stack.pop()
            marker = self._marker(node)
            self.uses[marker] = self.uses.get(marker, 0) + 1
            if marker in seen:
                continue
            seen.add(marker)
            for child in node.plan_inputs():
                self._consumers.setdefault(self._marker(child), []).append(node)
            stack.extend(node.plan_inputs())

    def _marker(self, node: Any) -> Any:
        key = self.key(node)
        return key if key is not None else ("node", id(node))

    def shared(self, node: Any) -> bool:
        """Whether ``node`` (the same or an equal sub-plan) feeds more than one consumer."""
        return self.uses.get(self._marker(node), 0) > 1

    def consumers(self, node: Any) -> list[Any]:
        """The nodes that read ``node`` (or an equal sub-plan), one per distinct consumer."""
        return self._consumers.get(self._marker(node), [])

    def key(self, node: Any) -> Any:
        """``node``'s key (None: it is never shared)."""
        found = self._keys.get(id(node), _OPAQUE)
        if found is not _OPAQUE:
            return found
        self._keep.append(node)
        self._keys[id(node)] = _IN_PROGRESS  # a node that refers back to itself (a source and
        key: Any = None  # the watermark assigner pushed into it) is keyed by itself
        if self.sources or not getattr(node, "reads_source", False):
            parts = self._node(node)
            if parts is not None:
                key = ("node", id(node)) if _OPAQUE in _flatten(parts) else parts
        self._keys[id(node)] = key
        return key

    def _node(self, node: Any) -> tuple[Any, ...] | None:
        compiled: dict[str, str] = getattr(node, "compiled", {})
        parts: list[Any] = [type(node).__qualname__]
        for item in dataclasses.fields(node):
            value = getattr(node, item.name)
            source = compiled.get(item.name)
            skip_functions = source is not None and getattr(node, source) is not None
            digest = self._value(value, skip_functions)
            if digest is None:
                return None
            parts.append((item.name, digest))
        return tuple(parts)

    def _value(self, value: Any, skip_functions: bool = False) -> Any:
        """A comparable digest of a field's value; None: an input that is never shared."""
        if value is None or isinstance(value, (bool, int, float, str, decimal.Decimal)):
            return (type(value).__name__, value)
        if isinstance(value, DataType):
            return ("type", repr(value))
        if hasattr(value, "reuse_digest"):
            return value.reuse_digest()
        if skip_functions and isinstance(value, _COMPILED):
            return ("compiled",)
        if hasattr(value, "translate") and dataclasses.is_dataclass(value):  # an input plan node
            if self._keys.get(id(value)) is _IN_PROGRESS:
                return _OPAQUE
            key = self.key(value)
            return None if key is None else ("input", key)
        if hasattr(value, "resolve"):  # an expression
            return ("expression", fingerprint(value))
        if isinstance(value, (list, tuple)):
            items = [self._value(v, skip_functions) for v in value]
            return None if any(i is None for i in items) else tuple(items)
        if isinstance(value, dict):
            entries = [(repr(k), self._value(v, skip_functions)) for k, v in value.items()]
            return None if any(v is None for _, v in entries) else tuple(sorted(entries))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a window spec, a step
            inner = [self._value(getattr(value, f.name), skip_functions) for f in dataclasses.fields(value)]
            return None if any(i is None for i in inner) else (type(value).__qualname__, tuple(inner))
        return _OPAQUE


def _flatten(parts: Any) -> list[Any]:
    """Every atom of a digest (to find an identity in it, including ``fingerprint``'s)."""
    out: list[Any] = []
    stack = [parts]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            if len(item) == 2 and item[0] == "id" and isinstance(item[1], int):  # fingerprint's identity
                out.append(_OPAQUE)
            else:
                stack.extend(item)
        else:
            out.append(item)
    return out


def reusing(translate: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``translate`` that hands out the stream already made for a node with the same key,
    when the job's planning context carries a ``PlanReuse`` (``PlanningContext.reuse``)."""

    @functools.wraps(translate)
    def reused(node: Any, ctx: Any) -> Any:
        reuse: PlanReuse | None = ctx.reuse
        if reuse is None:
            return translate(node, ctx)
        key = reuse.key(node)
        if key is None:
            return translate(node, ctx)
        stream = reuse.streams.get(key)
        if stream is None:
            stream = reuse.streams[key] = translate(node, ctx)
        else:
            reuse.reused[key] = reuse.reused.get(key, 0) + 1
        return stream

    return reused
