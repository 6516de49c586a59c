"""Jayway JsonPath's filters (``[?(criteria)]``) as Flink 2.3's JSON functions evaluate them:
comparisons (``==``, ``!=``, ``<`` ..., ``=~ /regex/``, ``in`` / ``nin`` / ``contains`` a path,
``size``, ``empty``) of ``@`` or ``$`` paths and literals, ``&&``, ``||``, ``!`` and parentheses.
A number equals a text that reads as that number; ``<`` and its kin compare two numbers or two
texts, nothing else. A filter that tests a path's existence (``[?(@.a)]``) or reads a JSON
literal fails the job, as Flink's Jayway does: it needs json-smart, which Flink 2.3 does not ship.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from millstream.table.functions.java_text import java_regex
from millstream.table.functions.json_text import java_decimal_str, java_order

__all__ = [
    "NO_JSON_SMART",
    "JsonPathFailure",
    "compile_filter",
    "filter_relation",
    "unescape_property",
    "value_node",
]

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class JsonPathFailure(RuntimeError):
    """A filter Flink's Jayway cannot evaluate (one that tests a path's existence or reads a
    JSON literal needs json-smart, which Flink 2.3 does not ship): a Java Error, which fails
    the job whatever the ON ERROR behaviour."""


NO_JSON_SMART = "java.lang.NoClassDefFoundError: net/minidev/json/writer/JsonReaderI"
_FILTER_TOKEN = re.compile(
    r"""\s*(?:
      (?P<op>==|!=|<=|>=|=~|<|>|&&|\|\||!|\(|\))
    | (?P<string>'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")
    | (?P<regex>/(?:\\.|[^/\\])*/[a-zA-Z]*)
    | (?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
    | (?P<path>[@$](?:\[[^\]]*\]|[^\s=!<>~&|()\[\]]|\(\))*)
    | (?P<json>[\[{])
    | (?P<word>[A-Za-z]+)
    )""",
    re.VERBOSE,
)
_RELATIONS = {"==", "!=", "<", "<=", ">", ">=", "=~", "IN", "NIN", "SIZE", "EMPTY", "CONTAINS"}


def compile_filter(text: str, compile_path: Callable[[str], Any]) -> Any:  # noqa: C901 - a small recursive descent parser
    """Jayway's ``FilterCompiler`` for what millstream evaluates: comparisons (``==``, ``!=``,
    ``<`` ..., ``=~ /regex/``, ``in`` / ``nin`` / ``contains`` a path, ``size``, ``empty``) of
    ``@`` or ``$`` paths and literals, ``&&``, ``||``, ``!`` and parentheses. A tree of
    ("or" | "and", parts), ("not", part), ("rel", op, left, right)."""
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _FILTER_TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise ValueError(f"Could not parse filter: {text}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        at = match.end()
    position = 0

    def peek() -> tuple[str, str]:
        return tokens[position] if position < len(tokens) else ("", "")

    def take() -> tuple[str, str]:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def operand() -> Any:
        kind, value = take()
        if kind == "path":
            return ("path", compile_path("$" + value[1:]), value[0] == "$")
        if kind == "string":
            return ("str", unescape_property(value[1:-1]))
        if kind == "number":
            return ("num", Decimal(value))
        if kind == "regex":
            end = value.rindex("/")
            return ("pattern", value[1:end], value[end + 1 :])
        if kind == "word" and value in ("true", "false"):
            return ("bool", value == "true")
        if kind == "word" and value == "null":
            return ("null",)
        if kind == "json":  # a JSON literal: json-smart's to read, which Flink 2.3 lacks
            return ("unreadable",)
        raise ValueError(f"Could not parse filter: {text}")

    def primary() -> Any:
        kind, value = peek()
        if (kind, value) == ("op", "!"):
            take()
            return ("not", primary())
        if (kind, value) == ("op", "("):
            take()
            inner = disjunction()
            if take() != ("op", ")"):
                raise ValueError(f"Could not parse filter: {text}")
            return inner
        left = operand()
        kind, value = peek()
        relation = value.upper() if kind in ("op", "word") else ""
        if relation not in _RELATIONS:
            if left[0] == "path":  # an existence test: json-smart's mapping, which Flink 2.3 lacks
                return ("unreadable",)
            raise ValueError(f"Could not parse filter: {text}")
        take()
        return ("rel", relation, left, operand())

    def conjunction() -> Any:
        parts = [primary()]
        while peek() == ("op", "&&"):
            take()
            parts.append(primary())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def disjunction() -> Any:
        parts = [conjunction()]
        while peek() == ("op", "||"):
            take()
            parts.append(conjunction())
        return parts[0] if len(parts) == 1 else ("or", parts)

    tree = disjunction()
    if position != len(tokens):
        raise ValueError(f"Could not parse filter: {text}")
    return tree


def value_node(value: Any) -> Any:
    """A path's value as Jayway's ``ValueNode``."""
    if value is _UNDEFINED:
        return ("undef",)
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, Decimal)):
        return ("num", Decimal(value))
    if isinstance(value, str):
        return ("str", value)
    return ("json", value)


_UNDEFINED = object()


def _number_of(node: Any) -> Decimal | None:
    if node[0] == "num":
        return node[1]
    if node[0] == "str":
        try:
            return Decimal(node[1])
        except ArithmeticError:
            return None
    return None


def _text_of(node: Any) -> str:
    return node[1] if node[0] == "str" else java_decimal_str(node[1])


def _equal(left: Any, right: Any) -> bool:
    kind = left[0]
    if kind == "num":
        other = _number_of(right) if right[0] in ("num", "str") else None
        return other is not None and left[1].compare(other) == 0
    if kind == "str":
        return right[0] in ("num", "str") and left[1] == _text_of(right)
    if kind == "json":
        return right[0] == "json" and left[1] == right[1]
    if kind in ("bool", "null"):
        return left == right
    return False


def _ordered(left: Any, right: Any) -> int | None:
    """Jayway's order of two numbers or two texts (None: not comparable)."""
    if left[0] == "num" and right[0] == "num":
        return (left[1] > right[1]) - (left[1] < right[1])
    if left[0] == "str" and right[0] == "str":
        a, b = java_order(left[1]), java_order(right[1])
        return (a > b) - (a < b)
    return None


def _regex_matches(left: Any, right: Any) -> bool:
    if (left[0] == "pattern") == (right[0] == "pattern"):
        return False
    pattern, subject = (left, right) if left[0] == "pattern" else (right, left)

    flags = pattern[2]
    compiled = java_regex(("(?i)" if "i" in flags else "") + pattern[1])
    text = (
        _text_of(subject)
        if subject[0] in ("str", "num")
        else "true"
        if subject == ("bool", True)
        else ("false" if subject[0] == "bool" else "")
    )
    return compiled.fullmatch(text) is not None


def filter_relation(op: str, left: Any, right: Any) -> bool:  # noqa: C901 - one case per operator
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    if op in ("<", "<=", ">", ">="):
        order = _ordered(left, right)
        if order is None:
            return False
        return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]
    if op == "=~":
        return _regex_matches(left, right)
    if op in ("IN", "NIN"):
        found = (
            right[0] == "json"
            and isinstance(right[1], list)
            and any(_equal(left, value_node(v)) for v in right[1])
        )
        return found if op == "IN" else not found
    if op == "CONTAINS":
        if left[0] == "str" and right[0] == "str":
            return right[1] in left[1]
        return (
            left[0] == "json"
            and isinstance(left[1], list)
            and any(_equal(value_node(v), right) for v in left[1])
        )
    if op == "SIZE":
        if right[0] != "num":
            return False
        size = int(right[1])
        if left[0] == "str":
            return len(left[1].encode("utf-16-be", "surrogatepass")) // 2 == size
        return left[0] == "json" and len(left[1]) == size
    if op == "EMPTY":
        if right[0] != "bool":
            return False
        if left[0] == "str":
            return (left[1] == "") == right[1]
        return left[0] == "json" and (len(left[1]) == 0) == right[1]
    return False


_UNESCAPES = {"'": "'", '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def unescape_property(text: str) -> str:
    """Jayway's ``Utils.unescape`` of a bracketed property name."""
    if "\\" not in text:
        return text
    out, at = [], 0
    while at < len(text):
        char = text[at]
        if char == "\\" and at + 1 < len(text):
            escape = text[at + 1]
            if escape == "u" and at + 5 < len(text) and all(c in _HEX_DIGITS for c in text[at + 2 : at + 6]):
                out.append(chr(int(text[at + 2 : at + 6], 16)))
                at += 6
                continue
            out.append(_UNESCAPES.get(escape, escape))
            at += 2
            continue
        out.append(char)
        at += 1
    return "".join(out)
