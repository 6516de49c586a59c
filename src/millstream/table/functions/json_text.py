"""JSON text as Flink's JSON functions read and write it: Jackson's parser (``readValue`` of an
``Object``, as ``SqlJsonUtils`` configures it) and Jackson's writer (keys in order). Paths over
what the parser read are ``json_path``'s.

Values read: an object is a ``dict`` (its keys in the order written, a repeated key's last
value), an array a ``list``, a string ``str``, ``true`` / ``false`` ``bool``, ``null`` None, an
integer ``int`` and any other number a ``Decimal`` of its digits as written (Jackson's
``USE_BIG_DECIMAL_FOR_FLOATS``: ``1.50`` stays ``1.50``, ``1e2`` is ``1E+2``).

Jackson reads the first value of the text and ignores what follows it (``'{"a":1}{"b":2}'``,
``'1 2'`` are JSON), except that a number at the top level must be followed by white space
(``'1x'`` is not JSON); no comments, single quotes, leading zeros, ``NaN`` or trailing commas.

Writing (``jsonize``): compact, an object's keys in Java's ``String`` order (``SqlJsonUtils``'
``ORDER_MAP_ENTRIES_BY_KEYS``), numbers as Java's ``BigDecimal.toString`` (``1E+2``), non-ASCII
text as it is, control characters as ``\\u001F`` (upper-case hex).
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

from millstream.common.java_values import java_double_str

__all__ = [
    "JsonParseError",
    "RawJson",
    "java_class_name",
    "java_decimal_str",
    "java_order",
    "java_value_text",
    "jsonize",
    "parse_json",
]


class JsonParseError(ValueError):
    """The text is not JSON (Jackson's ``JsonParseException`` / ``MismatchedInputException``)."""


class RawJson(str):
    """JSON text written into an enclosing JSON value as it is (a nested JSON_OBJECT,
    JSON_ARRAY or JSON() call's result: Jackson's ``RawValue``)."""


# -- reading -----------------------------------------------------------------------------------

_SPACE = frozenset(" \t\n\r")
_DIGITS = frozenset("0123456789")
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_MAX_DEPTH = 1000  # Jackson's StreamReadConstraints.DEFAULT_MAX_DEPTH


def _shown(char: str) -> str:
    """A character as Jackson's messages show it: ``'x' (code 120)``, ``(CTRL-CHAR, code 10)``."""
    code = ord(char)
    if code < 32:
        return f"(CTRL-CHAR, code {code})"
    return f"'{char}' (code {code})"


class _Reader:
    """One pass over the text, iterative (a deeply nested document needs no deep recursion)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def fail(self, message: str) -> JsonParseError:
        return JsonParseError(f"{message}\n at [Source: REDACTED; line: 1, column: {self.at + 1}]")

    def skip(self) -> str | None:
        """Skips white space; the next character (None at the end)."""
        text, at = self.text, self.at
        while at < len(text):
            char = text[at]
            if char in _SPACE:
                at += 1
                continue
            self.at = at
            if char < " ":
                raise self.fail(
                    f"Illegal character ({_shown(char)}): only regular white space (\\r, \\n, \\t) is "
                    "allowed between tokens"
                )
            if char == "/":
                raise self.fail(
                    "Unexpected character ('/' (code 47)): maybe a (non-standard) comment? (not "
                    "recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)"
                )
            return char
        self.at = at
        return None

    def document(self) -> Any:  # noqa: C901 - one case per token
        if self.skip() is None:
            raise JsonParseError("No content to map due to end-of-input")
        stack: list[list[Any]] = []  # [container, key of the value being read]
        while True:
            char = self.skip()
            if char is None:
                kind = "OBJECT" if isinstance(stack[-1][0], dict) else "ARRAY"
                raise self.fail(f"Unexpected end-of-input: expected close marker for {kind}")
            if char == "{" or char == "[":
                self.at += 1
                empty = self.skip() == ("}" if char == "{" else "]")
                if empty:
                    self.at += 1
                    value: Any = {} if char == "{" else []
                else:
                    if len(stack) >= _MAX_DEPTH:
                        raise self.fail(
                            f"Document nesting depth ({len(stack) + 1}) exceeds the maximum allowed "
                            f"({_MAX_DEPTH}, from `StreamReadConstraints.getMaxNestingDepth()`)"
                        )
                    stack.append([{}, self.key()] if char == "{" else [[], None])
                    continue
            else:
                value = self.scalar(root=not stack)
            # a value is complete: put it in its container, then close what ends here
            while True:
                if not stack:
                    return value
                container = stack[-1][0]
                if isinstance(container, dict):
                    container[stack[-1][1]] = value
                else:
                    container.append(value)
                close = "}" if isinstance(container, dict) else "]"
                char = self.skip()
                if char == ",":
                    self.at += 1
                    if isinstance(container, dict):
                        stack[-1][1] = self.key()
                    break
                if char == close:
                    self.at += 1
                    value = stack.pop()[0]
                    continue
                if char is None:
                    kind = "OBJECT" if close == "}" else "ARRAY"
                    raise self.fail(f"Unexpected end-of-input: expected close marker for {kind}")
                entries = "Object entries" if close == "}" else "Array entries"
                raise self.fail(
                    f"Unexpected character ({_shown(char)}): was expecting comma to separate {entries}"
                )

    def key(self) -> str:
        char = self.skip()
        if char != '"':
            shown = "end-of-input" if char is None else f"character ({_shown(char)})"
            raise self.fail(f"Unexpected {shown}: was expecting double-quote to start field name")
        name = self.string()
        char = self.skip()
        if char != ":":
            shown = "end-of-input" if char is None else f"character ({_shown(char)})"
            raise self.fail(f"Unexpected {shown}: was expecting a colon to separate field name and value")
        self.at += 1
        return name

    def scalar(self, root: bool) -> Any:
        text, at = self.text, self.at
        char = text[at]
        if char == '"':
            return self.string()
        if char == "-" or char in _DIGITS:
            return self.number(root)
        for token, value in (("true", True), ("false", False), ("null", None)):
            if char == token[0]:
                end = at + len(token)
                following = text[end] if end < len(text) else ""
                if text.startswith(token, at) and not (following.isalnum() or following in ("_", "$")):
                    self.at = end
                    return value
                word = re.match(r"[\w$]*", text[at:]).group(0)  # type: ignore[union-attr]
                raise self.fail(
                    f"Unrecognized token '{word}': was expecting (JSON String, Number, Array, Object or "
                    "token 'null', 'true' or 'false')"
                )
        if char in "]}":
            raise self.fail(f"Unexpected character ({_shown(char)}): expected a value")
        raise self.fail(
            f"Unexpected character ({_shown(char)}): expected a valid value (JSON String, Number, Array, "
            "Object or token 'null', 'true' or 'false')"
        )

    def number(self, root: bool) -> int | Decimal:  # noqa: C901 - one case per token
        text, start = self.text, self.at
        at, end = start, len(text)
        if text[at] == "-":
            at += 1
            if at >= end or text[at] not in _DIGITS:
                self.at = at
                shown = "end-of-input" if at >= end else f"character ({_shown(text[at])})"
                raise self.fail(
                    f"Unexpected {shown} in numeric value: expected digit (0-9) to follow minus sign, "
                    "for valid numeric value"
                )
        if text[at] == "0" and at + 1 < end and text[at + 1] in _DIGITS:
            self.at = at
            raise self.fail("Invalid numeric value: Leading zeroes not allowed")
        while at < end and text[at] in _DIGITS:
            at += 1
        integral = True
        if at < end and text[at] == ".":
            integral = False
            at += 1
            if at >= end or text[at] not in _DIGITS:
                self.at = at
                shown = "end-of-input" if at >= end else f"character ({_shown(text[at])})"
                raise self.fail(f"Unexpected {shown} in numeric value: Decimal point not followed by a digit")
            while at < end and text[at] in _DIGITS:
                at += 1
        if at < end and text[at] in "eE":
            integral = False
            at += 1
            if at < end and text[at] in "+-":
                at += 1
            if at >= end or text[at] not in _DIGITS:
                self.at = at
                shown = "end-of-input" if at >= end else f"character ({_shown(text[at])})"
                raise self.fail(
                    f"Unexpected {shown} in numeric value: Exponent indicator not followed by a digit"
                )
            while at < end and text[at] in _DIGITS:
                at += 1
        self.at = at
        if root and at < end and text[at] not in _SPACE:
            raise self.fail(
                f"Unexpected character ({_shown(text[at])}): Expected space separating root-level values"
            )
        digits = text[start:at]
        return int(digits) if integral else Decimal(digits)

    def string(self) -> str:
        text = self.text
        at = self.at + 1
        parts: list[str] = []
        surrogates = False
        while True:
            run = _STRING_RUN.match(text, at).end()  # type: ignore[union-attr]
            parts.append(text[at:run])
            at = run
            if at >= len(text):
                self.at = at
                raise self.fail("Unexpected end-of-input: was expecting closing quote for a string value")
            char = text[at]
            if char == '"':
                self.at = at + 1
                joined = "".join(parts)
                return _join_surrogates(joined) if surrogates else joined
            if char != "\\":
                self.at = at
                raise self.fail(
                    f"Illegal unquoted character ({_shown(char)}): has to be escaped using backslash to be "
                    "included in string value"
                )
            escape = text[at + 1] if at + 1 < len(text) else ""
            if escape in _ESCAPES:
                parts.append(_ESCAPES[escape])
                at += 2
            elif escape == "u":
                digits = text[at + 2 : at + 6]
                bad = next((c for c in digits if c not in _HEX), None)
                if bad is not None or len(digits) < 4:
                    self.at = at
                    shown = "end-of-input" if bad is None else f"character ({_shown(bad)})"
                    raise self.fail(f"Unexpected {shown}: expected a hex-digit for character escape sequence")
                code = int(digits, 16)
                surrogates = surrogates or 0xD800 <= code <= 0xDFFF
                parts.append(chr(code))
                at += 6
            else:
                self.at = at
                if not escape:
                    raise self.fail("Unexpected end-of-input in character escape sequence")
                raise self.fail(f"Unrecognized character escape {_shown(escape)}")


def _join_surrogates(text: str) -> str:
    """Java's UTF-16 text in Python's: ``\\ud83d\\ude00`` is one character (a lone surrogate
    stays)."""
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def parse_json(text: str) -> Any:
    """The first JSON value of ``text``, as Jackson reads it for Flink (module docstring);
    raises JsonParseError where Jackson fails."""
    return _Reader(text).document()


# -- writing -----------------------------------------------------------------------------------

_CONTROL_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")


def java_decimal_str(value: Decimal) -> str:
    """Java's ``BigDecimal.toString``: Python's text, without a zero's sign."""
    text = str(value)
    return text[1:] if text.startswith("-") and value.is_zero() else text


def _quote(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    if "\\u00" in quoted:
        quoted = _CONTROL_ESCAPE.sub(lambda m: m.group(1) + "\\u00" + m.group(2).upper(), quoted)
    return quoted


def java_order(key: str) -> bytes:
    """Java's ``String.compareTo`` order (UTF-16 code units)."""
    return key.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[str]) -> None:  # noqa: C901 - one case per token
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, RawJson):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(_quote(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, Decimal):
        out.append(java_decimal_str(value))
    elif isinstance(value, float):  # a DOUBLE as Jackson converts it: BigDecimal.valueOf
        if math.isfinite(value):
            out.append(java_decimal_str(Decimal(java_double_str(value))))
        else:
            out.append(_quote(java_double_str(value)))
    elif isinstance(value, dict):
        out.append("{")
        for number, key in enumerate(sorted(value, key=java_order)):
            if number:
                out.append(",")
            out.append(_quote(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for number, item in enumerate(value):
            if number:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"not a JSON value: {value!r}")


def jsonize(value: Any) -> str:
    """``value`` (as ``parse_json`` reads them, or a ``RawJson``) as Flink's JSON functions
    write it (module docstring)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def java_class_name(value: Any) -> str:
    """The Java class of a value read from JSON (what Flink's casts name in their errors)."""
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return "java.lang.Integer"
        return "java.lang.Long" if -(2**63) <= value < 2**63 else "java.math.BigInteger"
    if isinstance(value, Decimal):
        return "java.math.BigDecimal"
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, dict):
        return "java.util.LinkedHashMap"
    if isinstance(value, list):
        return "java.util.ArrayList"
    return type(value).__name__


def java_value_text(value: Any) -> str:
    """A JSON value as Java's ``toString`` shows it in Jayway's messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return java_decimal_str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={java_value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(java_value_text(v) for v in value) + "]"
    return str(value)
