"""Jayway JsonPath's paths as Flink 2.3's JSON functions compile them (``PathCompiler``): the
tokens of a path, or an invalid path. ``$``, ``.name``, ``['name']`` (``["a.b"]``, several
names), ``[0]``, ``[0, 2]``, ``[1:3]``, ``[*]``, ``.*``, ``..`` (a scan), ``[?(...)]``
(``json_filter``) and a function at the end (``length()`` ...); a path that does not start with
``$`` is read after ``$.`` (``a`` is ``$.a``, `` $.a`` is ``$. $.a``, not valid), and one
character after the last token is left unread (``$.a[`` is ``$.a``), as Jayway's compiler does.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from millstream.table.functions.json_filter import compile_filter, unescape_property

__all__ = ["JsonPathError", "Token", "compiled_path", "invalid_path", "path_fragment", "token_definite"]


class JsonPathError(ValueError):
    """A path that is not valid (``invalid``: Jayway's ``InvalidPathException``) or that finds
    nothing where a value is required (``PathNotFoundException``)."""

    def __init__(self, message: str, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


# tokens: ("property", names, delimiter), ("index", indexes), ("slice", from, to),
# ("wildcard",), ("scan",), ("function", name)
Token = tuple[Any, ...]
_PATH_SPACE = frozenset(" \t\n\r")
_HEX = frozenset("0123456789abcdefABCDEF")
_FUNCTIONS = {"length", "size", "min", "max", "avg", "sum", "stddev"}


def invalid_path(message: str) -> JsonPathError:
    return JsonPathError(message, invalid=True)


class _PathCompiler:
    """Jayway's ``PathCompiler``: the path's tokens, or an invalid path."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.at = 0
        self.tokens: list[Token] = []

    def char(self, at: int | None = None) -> str:
        at = self.at if at is None else at
        return self.path[at] if 0 <= at < len(self.path) else ""

    def significant(self, at: int) -> int:
        """The position of the next character after ``at`` that is not a space (-1: none)."""
        at += 1
        while at < len(self.path) and self.path[at] == " ":
            at += 1
        return at if at < len(self.path) else -1

    def compile(self) -> tuple[Token, ...]:
        path = self.path
        while self.at < len(path) and path[self.at] in _PATH_SPACE:
            self.at += 1
        if self.char() not in ("$", "@"):
            raise invalid_path("Path must start with '$' or '@'")
        if self.at == len(path) - 1:
            return ()
        self.at += 1
        if self.char() not in (".", "["):
            raise invalid_path(f"Illegal character at position {self.at} expected '.' or '['")
        self.next_token()
        return tuple(self.tokens)

    def next_token(self) -> None:
        while True:
            char = self.char()
            if char == "[":
                if not (self.bracket_property() or self.array() or self.wildcard() or self.filter()):
                    raise invalid_path(
                        f"Could not parse token starting at position {self.at}. Expected ?, ', 0-9, * "
                    )
            elif char == ".":
                if self.char(self.at + 1) == ".":
                    self.tokens.append(("scan",))
                    self.at += 2
                elif self.at + 1 >= len(self.path):
                    raise invalid_path("Path must not end with a '.")
                else:
                    self.at += 1
                if self.char() == ".":
                    raise invalid_path(f"Character '.' on position {self.at} is not valid.")
                if self.at >= len(self.path):
                    raise invalid_path("Path must not end with a '.' or '..'")
                continue  # (a dot: the token after it is read in any case)
            elif char == "*":
                self.tokens.append(("wildcard",))
                self.at += 1
            else:
                self.property_or_function()
            if self.at >= len(self.path) - 1:  # Jayway's currentIsTail: a last character is left unread
                return

    def property_or_function(self) -> None:
        path, start = self.path, self.at
        if path[start] == " ":
            raise invalid_path(f"Could not parse token starting at position {start}")
        end = start
        while end < len(path) and path[end] not in ".[(":
            if path[end] == " ":
                raise invalid_path(
                    "Use bracket notion ['my prop'] if your property contains blank characters. "
                    f"position: {start}"
                )
            end += 1
        name = path[start:end]
        if end < len(path) and path[end] == "(":
            close = path.find(")", end)
            if close == -1:
                raise invalid_path(f"Arguments to function: '{name}' are not closed properly.")
            if name not in _FUNCTIONS or path[end + 1 : close].strip():
                raise invalid_path(f"Function with name: {name} is not supported")
            self.tokens.append(("function", name))
            self.at = close + 1
            if self.at < len(path):
                raise invalid_path(f"A function must end the path: {path}")
            return
        self.tokens.append(("property", (name,), "'"))
        self.at = end

    def bracket_property(self) -> bool:  # noqa: C901 - one case per token
        path = self.path
        first = self.significant(self.at)
        delimiter = self.char(first)
        if delimiter not in ("'", '"'):
            return False
        names: list[str] = []
        at, start, end = self.at + 1, self.at + 1, 0
        inside = escaped = comma = False
        while at < len(path):
            char = path[at]
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == "]" and not inside:
                if comma:
                    raise invalid_path(f"Found empty property at index {at}")
                break
            elif char == delimiter:
                if inside:
                    following = self.char(self.significant(at))
                    if following not in ("]", ","):
                        raise invalid_path(
                            "Property must be separated by comma or Property must be terminated close "
                            f"square bracket at index {at}"
                        )
                    end = at
                    names.append(unescape_property(path[start:end]))
                    inside = False
                else:
                    start = at + 1
                    inside = True
                    comma = False
            elif char == "," and not inside:
                if comma:
                    raise invalid_path(f"Found empty property at index {at}")
                comma = True
            at += 1
        if inside:
            raise invalid_path(f"Property has not been closed - missing closing {delimiter}")
        close = self.significant(end)
        if close == -1 or path[close] != "]":
            raise invalid_path("Property has not been closed - missing closing ]")
        self.tokens.append(("property", tuple(names), delimiter))
        self.at = close + 1
        return True

    def array(self) -> bool:
        path = self.path
        following = self.char(self.significant(self.at))
        if not (following.isdigit() or following in ("-", ":")):
            return False
        close = path.find("]", self.at + 1)
        if close == -1:
            return False
        expression = path[self.at + 1 : close].strip()
        if any(not (c.isdigit() or c in ",-: ") for c in expression):
            return False
        if ":" in expression:
            self.tokens.append(_slice(expression))
        else:
            try:
                indexes = tuple(_java_int(p.strip()) for p in expression.split(","))
            except ValueError as error:
                raise invalid_path(str(error)) from None
            self.tokens.append(("index", indexes))
        self.at = close + 1
        return True

    def wildcard(self) -> bool:
        star = self.significant(self.at)
        if self.char(star) != "*":
            return False
        close = self.significant(star)
        if close == -1 or self.path[close] != "]":
            raise invalid_path(f"Expected wildcard token to end with ']' on position {star + 1}")
        self.tokens.append(("wildcard",))
        self.at = close + 1
        return True

    def filter(self) -> bool:  # noqa: C901 - Jayway's scan for the closing parenthesis
        """``[?(criteria)]``: the criteria up to the parenthesis that closes the first (quotes
        and nested parentheses skipped)."""
        path = self.path
        question = self.significant(self.at)
        if self.char(question) != "?":
            return False
        opening = self.significant(question)
        if self.char(opening) != "(":
            if self.char(opening) in ("]", ","):
                raise invalid_path(f"Not enough predicates supplied for filter [?] at position {self.at}")
            return False
        depth, at, quote = 0, opening, ""
        while at < len(path):
            char = path[at]
            if quote:
                if char == "\\":
                    at += 1
                elif char == quote:
                    quote = ""
            elif char in ("'", '"'):
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
            at += 1
        close = self.significant(at) if at < len(path) else -1
        if close == -1 or path[close] != "]":
            return False
        self.tokens.append(("filter", compile_filter(path[opening + 1 : at], compiled_path)))
        self.at = close + 1
        return True


def _java_int(text: str) -> int:
    if not re.fullmatch(r"[-+]?\d+", text) or not -(2**31) <= int(text) < 2**31:
        raise ValueError(f'For input string: "{text}"')
    return int(text)


def _slice(expression: str) -> Token:
    if any(not (c.isdigit() or c in "-:") for c in expression):
        raise invalid_path(f"Failed to parse SliceOperation: {expression}")
    parts = expression.split(":")
    try:
        start = _java_int(parts[0]) if parts[0] else None
        end = _java_int(parts[1]) if len(parts) > 1 and parts[1] else None
    except ValueError as error:
        raise invalid_path(str(error)) from None
    if start is None and end is None:
        raise invalid_path(f"Failed to parse SliceOperation: {expression}")
    return ("slice", start, end)


@functools.lru_cache(maxsize=4096)
def compiled_path(path: str) -> tuple[Token, ...]:
    if not path:
        raise JsonPathError("json can not be null or empty")  # an IllegalArgumentException
    # (Jayway reads the first character before trimming: " $.a" is "$. $.a", not valid)
    text = (path if path[0] in ("$", "@") else "$." + path).strip(" ")
    if text.endswith("."):
        raise invalid_path("Path must not end with a '.' or '..'")
    return _PathCompiler(text).compile()


def token_definite(token: Token, leaf: bool) -> bool:
    kind = token[0]
    if kind == "property":
        return len(token[1]) == 1 or leaf
    if kind == "index":
        return len(token[1]) == 1
    return kind == "function"


def path_fragment(token: Token) -> str:
    kind = token[0]
    if kind == "property":
        names = [n.replace("\\", "\\\\").replace("'", "\\'") for n in token[1]]
        return "[" + ",".join(f"{token[2]}{n}{token[2]}" for n in names) + "]"
    if kind == "index":
        return "[" + ",".join(map(str, token[1])) + "]"
    if kind == "slice":
        return f"[{'' if token[1] is None else token[1]}:{'' if token[2] is None else token[2]}]"
    if kind == "wildcard":
        return "[*]"
    if kind == "scan":
        return ".."
    if kind == "filter":
        return "[?]"
    return f".{token[1]}()"
