"""Jayway JsonPath 2's reading of a path over what ``json_text`` read, as Flink 2.3's JSON
functions run it (``read_path``): a definite path (no wildcard, scan, slice, filter or list of
indexes) gives one value, or fails when nothing is there; an indefinite path the list of what it
found. In lax mode (``SUPPRESS_EXCEPTIONS``) a missing value is None (or an empty list), not an
error. The functions ``length()`` / ``size()`` (an array's or object's size) and ``min()``,
``max()``, ``avg()``, ``sum()``, ``stddev()`` (of an array's numbers, a Java double) end a path.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from millstream.table.functions.json_filter import NO_JSON_SMART, JsonPathFailure, filter_relation, value_node
from millstream.table.functions.json_path_compiler import (
    JsonPathError,
    Token,
    compiled_path,
    invalid_path,
    path_fragment,
    token_definite,
)
from millstream.table.functions.json_text import java_class_name, java_value_text

__all__ = ["JsonPathError", "JsonPathFailure", "read_path"]


class _Evaluation:
    """Jayway's evaluation of a compiled path over a document (``SUPPRESS_EXCEPTIONS`` in lax
    mode): the results in the order found."""

    def __init__(self, tokens: tuple[Token, ...], suppress: bool, document: Any = None) -> None:
        self.tokens = tokens
        self.suppress = suppress
        self.document = document
        self.results: list[Any] = []
        last = len(tokens) - 1
        self.definite = [token_definite(t, i == last) for i, t in enumerate(tokens)]
        self.upstream = [all(self.definite[:i]) for i in range(len(tokens))]

    def leaf(self, at: int) -> bool:
        return at == len(self.tokens) - 1

    def evaluate(self, at: int, path: str, model: Any) -> None:
        if at == len(self.tokens):
            self.results.append(model)
            return
        token = self.tokens[at]
        kind = token[0]
        if kind == "property":
            self.property(at, path, model, token[1])
        elif kind in ("index", "slice"):
            self.array(at, path, model, token)
        elif kind == "wildcard":
            self.wildcard(at, path, model)
        elif kind == "scan":
            self.scan(at + 1, path, model)
        elif kind == "filter":
            self.filter(at, path, model, token[1])

    def property(self, at: int, path: str, model: Any, names: tuple[str, ...]) -> None:
        if not isinstance(model, dict):
            if not self.upstream[at] or self.suppress:
                return
            found = "null" if model is None else java_class_name(model)
            raise JsonPathError(
                f"Expected to find an object with property {path_fragment(self.tokens[at])} in path "
                f"{path} but found '{found}'. This is not a json object according to the JsonProvider: "
                "'com.jayway.jsonpath.spi.json.JacksonJsonProvider'."
            )
        if len(names) == 1 or self.leaf(at):
            self.object_property(at, path, model, names)
        else:
            for name in names:
                self.object_property(at, path, model, (name,))

    def object_property(self, at: int, path: str, model: dict[str, Any], names: tuple[str, ...]) -> None:
        if len(names) > 1:  # a leaf's several names: one object of those present
            self.results.append({n: model[n] for n in names if n in model})
            return
        name = names[0]
        inner = f"{path}['{name}']"
        if name not in model:
            if self.leaf(at):
                return
            if not (self.upstream[at] and self.definite[at]) or self.suppress:
                return
            raise JsonPathError(f"Missing property in path {inner}")
        self.evaluate(at + 1, inner, model[name])

    def array(self, at: int, path: str, model: Any, token: Token) -> None:
        if model is None or not isinstance(model, list):
            if not self.upstream[at]:
                return
            if model is None:
                raise JsonPathError(f"The path {path} is null")
            raise JsonPathError(
                f"Filter: {''.join(map(path_fragment, self.tokens[at:]))} can only be applied to arrays. "
                f"Current context is: {java_value_text(model)}"
            )
        size = len(model)
        if token[0] == "index":
            indexes: Any = token[1]
        else:
            start, end = token[1], token[2]
            if start is not None and end is None:  # [from:]
                start = max(0, size + start if start < 0 else start)
                indexes = range(start, size) if size and start < size else ()
            elif start is not None:  # [from:to]: the start as written
                end = min(size, end)
                indexes = range(start, end) if start < end and size else ()
            else:  # [:to]
                end = min(size, size + end if end < 0 else end)
                indexes = range(0, end) if size else ()
        for index in indexes:
            self.index(at, path, model, index)

    def index(self, at: int, path: str, model: list[Any], index: int) -> None:
        effective = len(model) + index if index < 0 else index
        if 0 <= effective < len(model):
            self.evaluate(at + 1, f"{path}[{index}]", model[effective])

    def wildcard(self, at: int, path: str, model: Any) -> None:
        if isinstance(model, dict):
            for name in list(model):
                self.evaluate(at + 1, f"{path}['{name}']", model[name])
        elif isinstance(model, list):
            for index in range(len(model)):
                try:
                    self.index(at, path, model, index)
                except JsonPathError:
                    pass
        # (anything else: nothing, leaf or not, as the Jayway in Flink 2.3 reads it)

    def scan(self, target: int, path: str, model: Any) -> None:
        """``..``: the token after it applied wherever it applies, the document walked depth
        first (a container before what it holds)."""
        kind = self.tokens[target][0]
        if isinstance(model, dict):
            if self.scan_matches(target, model):
                self.evaluate(target, path, model)
            for name in list(model):
                self.scan(target, f"{path}['{name}']", model[name])
        elif isinstance(model, list):
            if kind in ("index", "slice", "wildcard"):
                if self.leaf(target):
                    self.evaluate(target, path, model)
                else:  # Jayway's walk: the token after the array's, on each element
                    for index, item in enumerate(model):
                        self.evaluate(target + 1, f"{path}[{index}]", item)
            for index, item in enumerate(model):
                self.scan(target, f"{path}[{index}]", item)

    def filter(self, at: int, path: str, model: Any, criteria: Any) -> None:
        """``[?(...)]``: an object that passes, or each element of an array that passes."""
        if isinstance(model, dict):
            if self.accepts(criteria, model):
                self.evaluate(at + 1, path, model)
        elif isinstance(model, list):
            for index, item in enumerate(model):
                if self.accepts(criteria, item):
                    self.index(at, path, model, index)
        elif self.upstream[at]:
            raise invalid_path(
                f"Filter: [?] can not be applied to primitives. Current context is: {java_value_text(model)}"
            )

    def accepts(self, criteria: Any, item: Any) -> bool:
        kind = criteria[0]
        if kind == "and":
            return all(self.accepts(part, item) for part in criteria[1])
        if kind == "or":
            return any(self.accepts(part, item) for part in criteria[1])
        if kind == "not":
            return not self.accepts(criteria[1], item)
        if kind == "unreadable":
            raise JsonPathFailure(NO_JSON_SMART)
        _, op, left, right = criteria
        return filter_relation(op, self.operand(left, item), self.operand(right, item))

    def operand(self, node: Any, item: Any) -> Any:
        """A filter's operand: a literal, or the value of a path from the element (``@``) or
        the document (``$``), ``undef`` where it finds nothing."""
        if node[0] == "unreadable":
            raise JsonPathFailure(NO_JSON_SMART)
        if node[0] != "path":
            return node
        tokens, from_root = node[1], node[2]
        inner = _Evaluation(tokens, self.suppress, self.document)
        missing = ("null",) if self.suppress else ("undef",)  # lax mode reads nothing as null
        try:
            inner.evaluate(0, "@", self.document if from_root else item)
        except JsonPathError:
            return missing if all(inner.definite) or not self.suppress else ("json", [])
        if all(inner.definite):
            return value_node(inner.results[0]) if inner.results else missing
        return ("json", inner.results)

    def scan_matches(self, target: int, model: dict[str, Any]) -> bool:
        token = self.tokens[target]
        if token[0] == "wildcard":
            return True
        if token[0] != "property":
            return False
        return not self.definite[target] or all(n in model for n in token[1])


def _path_function(name: str, value: Any) -> Any:
    """Jayway's functions: ``length()`` / ``size()`` of an array or object (None of anything
    else), the aggregations of an array's numbers as a Java double (Jayway's ``max`` starts
    from ``Double.MIN_VALUE``, the least positive double)."""
    if name in ("length", "size"):
        return len(value) if isinstance(value, (list, dict)) else None
    numbers = (
        [float(v) for v in value if isinstance(v, (int, Decimal)) and not isinstance(v, bool)]
        if (isinstance(value, list))
        else []
    )
    if not numbers:
        raise JsonPathError("Aggregation function attempted to calculate value using empty array")
    if name == "min":
        return min([1.7976931348623157e308, *numbers])
    if name == "max":
        return max([5e-324, *numbers])
    total = math.fsum(numbers) if name != "sum" else sum(numbers, 0.0)
    if name == "sum":
        return total
    if name == "avg":
        return sum(numbers, 0.0) / len(numbers)
    squares = sum((n * n for n in numbers), 0.0)
    plain = sum(numbers, 0.0)
    return math.sqrt(squares / len(numbers) - plain * plain / len(numbers) / len(numbers))


def read_path(document: Any, path: str, suppress: bool) -> Any:
    """What Jayway's ``read`` of ``path`` gives over a document ``parse_json`` read:
    the value a definite path finds, the list an indefinite one finds. Raises JsonPathError
    where Jayway raises (an invalid path always; a missing value unless ``suppress``, Jayway's
    ``SUPPRESS_EXCEPTIONS``: then None for a definite path, [] for an indefinite one)."""
    tokens = compiled_path(path)
    if tokens and tokens[-1][0] == "function":  # of what the path before it finds, each thing
        upstream = tokens[:-1]
        found = read_path(document, "$" + "".join(map(path_fragment, upstream)), suppress)
        name = tokens[-1][1]
        if all(token_definite(t, i == len(upstream) - 1) for i, t in enumerate(upstream)):
            return _path_function(name, found)
        return [_path_function(name, item) for item in found]
    evaluation = _Evaluation(tokens, suppress, document)
    definite = all(evaluation.definite)
    try:
        evaluation.evaluate(0, "$", document)
        if definite:
            if not evaluation.results:
                if suppress:
                    return None
                raise JsonPathError("No results for path: $" + "".join(map(path_fragment, tokens)))
            return evaluation.results[0]
        return evaluation.results
    except JsonPathError as error:
        if suppress and not error.invalid:  # SUPPRESS_EXCEPTIONS: a PathNotFoundException only
            return None if definite else []
        raise
