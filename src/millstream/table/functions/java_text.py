"""Java's text routines that Flink's string functions are made of, for Python: regular
expressions (``java.util.regex``), ``String.split`` and ``String.format``.

- ``java_regex(pattern)``: a compiled Python pattern that matches what Java's
  ``Pattern.compile(pattern)`` matches: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` ASCII-only and case
  folding ASCII-only (Java's defaults), inline flags anywhere (``a(?i)b``), ``\\p{Alpha}``,
  ``\\p{L}`` and the other POSIX and Unicode classes, ``\\Q...\\E``, ``(?<name>...)``, ``\\z``,
  ``\\h``, possessive quantifiers and atomic groups; cached per pattern. A pattern Java refuses
  (or that has a construct with no Python counterpart, such as class intersections ``&&``)
  raises ``JavaRegexError``.
- ``java_split(text, regex, limit)``: ``String.split`` (trailing empty strings dropped when
  ``limit`` is 0).
- ``java_format(pattern, args)``: ``String.format`` of the values Flink hands PRINTF; raises
  ``JavaFormatError`` where Java's ``Formatter`` throws.
"""

from __future__ import annotations

import decimal
import functools
import re
import unicodedata
from typing import Any

from millstream.common.java_values import java_double_str

__all__ = ["JavaFormatError", "JavaRegexError", "java_format", "java_regex", "java_split"]


class JavaRegexError(ValueError):
    """A pattern ``java.util.regex.Pattern`` refuses (``PatternSyntaxException``)."""


class JavaFormatError(ValueError):
    """A format ``java.util.Formatter`` refuses for its arguments."""


# -- regular expressions --------------------------------------------------------------------------

_POSIX = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
    "javaLowerCase": "a-z",
    "javaUpperCase": "A-Z",
    "javaWhitespace": " \\t\\n\\x0b\\f\\r\\x1c-\\x1f",
}
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


@functools.cache
def _category_class(category: str) -> str:
    """The members of a Unicode general category (``L``, ``Lu``, ``Nd`` ...) as class ranges."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x110000):
        if unicodedata.category(chr(code)).startswith(category):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    if not ranges:
        raise JavaRegexError(f"Unknown character property name {{{category}}}")
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


def _property(name: str) -> str:
    """The class ranges of ``\\p{name}``."""
    if name in _POSIX:
        return _POSIX[name]
    for prefix in ("Is", "general_category=", "gc="):
        if name.startswith(prefix) and len(name) > len(prefix):
            name = name[len(prefix) :]
    if name in ("Alphabetic", "Letter"):
        name = "L"
    if name in ("Digit", "Decimal_Number"):
        name = "Nd"
    if name in ("White_Space", "WhiteSpace"):
        return " \\t\\n\\x0b\\f\\r\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
    if len(name) <= 2 and name[:1].isupper():
        return _category_class(name)
    raise JavaRegexError(f"Unknown character property name {{{name}}}")


class _Translator:
    """One pass over a Java pattern, writing Python's."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.out: list[str] = []
        self.closers: list[int] = [0]  # per open group: scoped flag groups to close with it

    def error(self, reason: str) -> JavaRegexError:
        return JavaRegexError(f"{reason} near index {self.pos}\n{self.pattern}")

    def translate(self) -> str:
        pattern = self.pattern
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if char == "\\":
                self.out.append(self._escape(in_class=False))
            elif char == "[":
                self.out.append(self._char_class())
            elif char == "(":
                self._group()
            elif char == ")":
                if len(self.closers) == 1:
                    raise self.error("Unmatched closing ')'")
                self.out.append(")" * self.closers.pop() + ")")
                self.pos += 1
            else:
                self.out.append(char)
                self.pos += 1
        if len(self.closers) > 1:
            raise self.error("Unclosed group")
        return "".join(self.out) + ")" * self.closers[0]

    def _group(self) -> None:
        pattern = self.pattern
        rest = pattern[self.pos :]
        named = re.match(r"\(\?<([A-Za-z][A-Za-z0-9]*)>", rest)
        if named:
            self.out.append(f"(?P<{named.group(1)}>")
            self.pos += named.end()
            self.closers.append(0)
            return
        flags = re.match(r"\(\?([idmsuxU]*)(?:-([idmsuxU]*))?(\)|:)", rest)
        if flags and (flags.group(1) or flags.group(2) is not None):
            on = "".join(f for f in flags.group(1) if f in _FLAGS)
            off = "".join(f for f in (flags.group(2) or "") if f in _FLAGS)
            scoped = f"(?{on}{'-' + off if off else ''}:" if on or off else "(?:"
            self.pos += flags.end()
            if flags.group(3) == ":":
                self.out.append(scoped)
                self.closers.append(0)
            else:  # (?i) here on: the rest of the enclosing group
                self.out.append(scoped)
                self.closers[-1] += 1
            return
        self.out.append("(")
        self.pos += 1
        self.closers.append(0)

    def _escape(self, in_class: bool) -> str:  # noqa: C901 - one case per escape
        pattern = self.pattern
        if self.pos + 1 >= len(pattern):
            raise self.error("Unexpected internal error")
        char = pattern[self.pos + 1]
        self.pos += 2
        if char == "Q":
            end = pattern.find("\\E", self.pos)
            end = len(pattern) if end < 0 else end
            quoted = pattern[self.pos : end]
            self.pos = end + 2
            return "".join(re.escape(c) for c in quoted)
        if char in "pP":
            if self.pos < len(pattern) and pattern[self.pos] == "{":
                end = pattern.find("}", self.pos)
                if end < 0:
                    raise self.error("Unclosed character family")
                name = pattern[self.pos + 1 : end]
                self.pos = end + 1
            else:
                name = pattern[self.pos : self.pos + 1]
                self.pos += 1
            ranges = _property(name)
            if in_class:
                if char == "P":
                    raise self.error("Negated property in a class is not supported")
                return ranges
            return f"[{'^' if char == 'P' else ''}{ranges}]"
        if char == "z":
            return "\\Z"
        if char == "Z":
            return "(?=\\n?\\Z)"
        if char == "h":
            return (
                "[ \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]"
                if not in_class
                else " \\t\\xa0"
            )
        if char == "H":
            return "[^ \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]"
        if char == "v":
            return (
                "[\\n\\x0b\\f\\r\\x85\\u2028\\u2029]" if not in_class else "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"
            )
        if char == "R":
            return "(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])"
        if char == "k":
            named = re.match(r"<([A-Za-z][A-Za-z0-9]*)>", pattern[self.pos :])
            if not named:
                raise self.error("\\k is not followed by '<' for named capturing group")
            self.pos += named.end()
            return f"(?P={named.group(1)})"
        if char == "x" and self.pos < len(pattern) and pattern[self.pos] == "{":
            end = pattern.find("}", self.pos)
            code = int(pattern[self.pos + 1 : end], 16)
            self.pos = end + 1
            return f"\\U{code:08x}"
        if char == "0":
            digits = re.match(r"[0-7]{1,3}", pattern[self.pos :])
            if not digits:
                raise self.error("Illegal octal escape sequence")
            self.pos += digits.end()
            return (
                f"\\x{int(digits.group(0), 8):02x}"
                if int(digits.group(0), 8) < 256
                else re.escape(chr(int(digits.group(0), 8)))
            )
        if char == "c" and self.pos < len(pattern):
            control = chr(ord(pattern[self.pos]) ^ 64)
            self.pos += 1
            return re.escape(control)
        if char in "eaftnr":
            return {"e": "\\x1b", "a": "\\x07"}.get(char, "\\" + char)
        if char in "dDwWsSbBAG" or char.isdigit() or char == "u" or char == "x":
            if char == "G":
                raise self.error("\\G is not supported")
            return "\\" + char
        if char.isalpha():
            raise self.error(f"Illegal/unsupported escape sequence \\{char}")
        return re.escape(char)

    def _char_class(self) -> str:
        pattern = self.pattern
        self.pos += 1
        out = ["["]
        if self.pos < len(pattern) and pattern[self.pos] == "^":
            out.append("^")
            self.pos += 1
        first = True
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if char == "]" and not first:
                self.pos += 1
                out.append("]")
                return "".join(out)
            if char == "[":
                raise self.error("Nested character classes and intersections are not supported")
            if char == "&" and pattern.startswith("&&", self.pos):
                raise self.error("Character class intersections are not supported")
            if char == "\\":
                out.append(self._escape(in_class=True))
            else:
                out.append("\\[" if char == "[" else char if char != "]" else "\\]")
                self.pos += 1
            first = False
        raise self.error("Unclosed character class")


@functools.lru_cache(maxsize=512)
def java_regex(pattern: str) -> re.Pattern[str]:
    """The Python pattern of a Java regular expression (cached); raises JavaRegexError."""
    translated = _Translator(pattern).translate()
    try:
        return re.compile(translated, re.ASCII)
    except (re.error, OverflowError) as err:
        raise JavaRegexError(f"{err}\n{pattern}") from err


def java_split(text: str, regex: str, limit: int = 0) -> list[str]:
    """``String.split(regex, limit)``: a zero-width match at the start adds no leading empty
    string; with ``limit`` 0 the trailing empty strings are dropped."""
    if text == "":
        return [""]
    compiled = java_regex(regex)
    parts: list[str] = []
    start = 0
    for match in compiled.finditer(text):
        if limit > 0 and len(parts) == limit - 1:
            break
        if match.end() == 0:  # a zero-width match at the very start: no leading empty string
            continue
        parts.append(text[start : match.start()])
        start = match.end()
    parts.append(text[start:])
    if limit == 0:
        while parts and parts[-1] == "":
            parts.pop()
    return parts


# -- String.format --------------------------------------------------------------------------------

_SPECIFIER = re.compile(r"%(\d+\$|<)?([-#+ 0,(]*)?(\d+)?(\.\d+)?([tT]?[a-zA-Z%])")


def java_string(value: Any) -> str:
    """``String.valueOf`` of a value Flink hands a Java function: ``true``, ``1.0E20``,
    ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def _integral(value: Any, conversion: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise JavaFormatError(f"{conversion} != {type(value).__name__}")
    return value


def _group(digits: str) -> str:
    head, dot, tail = digits.partition(".")
    grouped = f"{int(head):,}" if head else head
    return grouped + dot + tail


def _half_up(value: float, places: int) -> str:
    """A double written with ``places`` decimals as Java's Formatter rounds: half up on the
    shortest decimal that reads back as it."""
    exact = decimal.Decimal(repr(value))
    return format(exact.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP), "f")


def _number(value: Any, conversion: str, flags: str, precision: int | None) -> str:
    if conversion in "dox":
        number = _integral(value, conversion)
        if conversion == "d":
            text = _group(str(abs(number))) if "," in flags else str(abs(number))
        elif conversion == "o":
            text = format(
                number if number >= 0 else number + (1 << (64 if abs(number) >= 2**31 else 32)), "o"
            )
        else:
            text = format(
                number if number >= 0 else number + (1 << (64 if abs(number) >= 2**31 else 32)), "x"
            )
        if conversion != "d":
            return ("0x" if "#" in flags and conversion == "x" else "0" if "#" in flags else "") + text
        negative = number < 0
    else:
        if isinstance(value, bool) or not isinstance(value, float):
            raise JavaFormatError(f"{conversion} != {type(value).__name__}")
        negative = value < 0 or (value == 0 and str(value).startswith("-"))
        magnitude = abs(value)
        places = 6 if precision is None else precision
        if magnitude != magnitude or magnitude == float("inf"):
            text = "NaN" if magnitude != magnitude else "Infinity"
            negative = value < 0
        elif conversion == "f":
            text = _half_up(magnitude, places)
            text = _group(text) if "," in flags else text
        elif conversion == "e":
            text = f"{magnitude:.{places}e}"
        else:  # g: Java's, scientific below 1e-4 or at and above 10^precision
            places = places or 1
            if magnitude != 0 and (magnitude < 1e-4 or magnitude >= 10**places):
                text = f"{magnitude:.{places - 1}e}"
            else:
                digits = places - (len(str(int(magnitude))) if magnitude >= 1 else 1)
                text = _half_up(magnitude, max(digits, 0))
    if negative:
        return f"({text})" if "(" in flags else "-" + text
    return ("+" if "+" in flags else " " if " " in flags else "") + text


def java_format(pattern: str, args: list[Any]) -> str:  # noqa: C901 - Formatter's conversions
    """``String.format(pattern, args)``; raises JavaFormatError where Java throws."""
    out: list[str] = []
    pos = 0
    ordinary = 0
    last: int | None = None
    for spec in _SPECIFIER.finditer(pattern):
        if "%" in pattern[pos : spec.start()]:
            raise JavaFormatError(f"Unknown format conversion in '{pattern}'")
        out.append(pattern[pos : spec.start()])
        pos = spec.end()
        index, flags, width, precision, conversion = spec.groups()
        flags = flags or ""
        if conversion == "%":
            out.append("%".rjust(int(width or 0)) if "-" not in flags else "%".ljust(int(width or 0)))
            continue
        if conversion == "n":
            out.append("\n")
            continue
        if conversion[0] in "tT":
            raise JavaFormatError("date/time conversions are not supported")
        if index == "<":
            if last is None:
                raise JavaFormatError("Missing format argument for '%<'")
            position = last
        elif index:
            position = int(index[:-1]) - 1
        else:
            position = ordinary
            ordinary += 1
        if position >= len(args):
            raise JavaFormatError(f"Format specifier '{spec.group(0)}'")
        last = position
        value = args[position]
        digits = int(precision[1:]) if precision else None
        lower = conversion.lower()
        if lower == "s":
            text = java_string(value)
            text = text if digits is None else text[:digits]
        elif lower == "b":
            text = "false" if value is None or value is False else "true"
            text = text if digits is None else text[:digits]
        elif lower == "c":
            if value is None:
                text = "null"
            elif isinstance(value, int) and not isinstance(value, bool):
                text = chr(value)
            else:
                raise JavaFormatError(f"c != {type(value).__name__}")
        elif lower == "h":
            text = "null" if value is None else format(hash(value) & 0xFFFFFFFF, "x")
        elif lower in "doxefg":
            text = "null" if value is None else _number(value, lower, flags, digits)
            if text != "null" and "0" in flags and width and "-" not in flags:
                sign = text[0] if text[:1] in "+- (" else ""
                text = sign + text[len(sign) :].rjust(int(width) - len(sign), "0")
        else:
            raise JavaFormatError(f"Unknown format conversion '{conversion}'")
        if conversion.isupper():
            text = text.upper()
        if width:
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width))
        out.append(text)
    if "%" in pattern[pos:]:
        raise JavaFormatError(f"Unknown format conversion in '{pattern}'")
    out.append(pattern[pos:])
    return "".join(out)
