"""SQL's ``LIKE`` and ``SIMILAR TO`` patterns, with an optional ``ESCAPE`` character, as
Flink's ``SqlLikeUtils`` (Calcite's) turns them into regular expressions: ``%`` is any text,
``_`` any character; without ESCAPE no character escapes (a backslash matches itself); with
ESCAPE ``c``, ``c`` before ``_``, ``%`` or itself makes it literal (before any other character
the pattern is invalid). SIMILAR TO keeps the regular-expression operators ``| * + ? {} ()
[]`` (``[:ALPHA:]`` classes too) and matches the whole text.

A pattern's translation is cached (a pattern is usually a literal); an invalid one raises
``ValueError`` with Flink's message (``Invalid escape sequence 'a!', 1``).
"""

from __future__ import annotations

import functools
import re

__all__ = ["like", "similar"]

_JAVA_REGEX_SPECIALS = "[]()|^-+*?{}$\\."
_SQL_SIMILAR_SPECIALS = "[]()|^-+*_%?{}"
_CHARACTER_CLASSES = {
    "[:ALPHA:]": r"\p{Alpha}",
    "[:alpha:]": r"\p{Alpha}",
    "[:UPPER:]": r"\p{Upper}",
    "[:upper:]": r"\p{Upper}",
    "[:LOWER:]": r"\p{Lower}",
    "[:lower:]": r"\p{Lower}",
    "[:DIGIT:]": r"\d",
    "[:digit:]": r"\d",
    "[:SPACE:]": " ",
    "[:space:]": " ",
    "[:WHITESPACE:]": r"\s",
    "[:whitespace:]": r"\s",
    "[:ALNUM:]": r"\p{Alnum}",
    "[:alnum:]": r"\p{Alnum}",
}
# Java's "." : any character but a line terminator
_JAVA_DOT = "[^\n\r\u0085\u2028\u2029]"
# Java's POSIX classes (ASCII only, as Java's without UNICODE_CHARACTER_CLASS)
_PYTHON_CLASSES = {
    r"\p{Alpha}": "a-zA-Z",
    r"\p{Upper}": "A-Z",
    r"\p{Lower}": "a-z",
    r"\p{Alnum}": "a-zA-Z0-9",
}


def like(text: str, pattern: str, escape: str | None = None) -> bool:
    """``text LIKE pattern [ESCAPE escape]``; a pattern without ``%`` and ``_`` is the text
    itself, whatever the escape (Flink's LikeCallGen compares the strings: ``'abc' LIKE 'abc'
    ESCAPE ''`` is TRUE, as PyFlink 2.3.0 gives it)."""
    if "%" not in pattern and "_" not in pattern and (not escape or escape not in pattern):
        _escape_character(escape or None)  # a longer escape is refused all the same
        return text == pattern
    return _like_regex(pattern, escape).fullmatch(text) is not None


def similar(text: str, pattern: str, escape: str | None = None) -> bool:
    """``text SIMILAR TO pattern [ESCAPE escape]``."""
    return _similar_regex(pattern, escape).fullmatch(text) is not None


def _escape_character(escape: str | None) -> str | None:
    if escape is not None and len(escape) != 1:
        raise ValueError(f"Invalid escape character '{escape}'")
    return escape


def _invalid_sequence(pattern: str, i: int) -> ValueError:
    return ValueError(f"Invalid escape sequence '{pattern}', {i}")


@functools.lru_cache(maxsize=256)
def _like_regex(pattern: str, escape: str | None) -> re.Pattern[str]:
    """Calcite's ``sqlToRegexLike``."""
    escape_char = _escape_character(escape)
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape_char:
            if i == len(pattern) - 1 or pattern[i + 1] not in ("_", "%", escape_char):
                raise _invalid_sequence(pattern, i)
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(_JAVA_DOT if c == "_" else "(?s:.*)" if c == "%" else re.escape(c))
        i += 1
    return re.compile("".join(out))


def _check_similar_escapes(pattern: str, escape: str | None) -> None:
    """SQL 2003's rules for SIMILAR's escape (Calcite's ``similarEscapeRuleChecking``)."""
    if escape is None:
        return
    if escape in _SQL_SIMILAR_SPECIALS:
        for i, c in enumerate(pattern):
            if c != escape:
                continue
            if i == len(pattern) - 1:
                raise _invalid_sequence(pattern, i)
            following = pattern[i + 1]
            if following not in _SQL_SIMILAR_SPECIALS and following != escape:
                raise _invalid_sequence(pattern, i)
    if escape == ":" and ("[:" not in pattern or ":]" not in pattern):
        raise _invalid_sequence(pattern, -1)


def _invalid_regex(pattern: str) -> ValueError:
    return ValueError(f"Invalid regular expression '{pattern}'")


def _enumeration(pattern: str, out: list[str], position: int, escape: str | None) -> int:
    """A ``[...]`` of a SIMILAR pattern from ``position`` (its ``[``); the index before its
    ``]`` (Calcite's ``sqlSimilarRewriteCharEnumeration``)."""
    i = position + 1
    while i < len(pattern):
        c = pattern[i]
        if c == "]":
            return i - 1
        if c == escape:
            i += 1
            following = pattern[i] if i < len(pattern) else ""
            if (following and following in _SQL_SIMILAR_SPECIALS) or following == escape:
                out.append(re.escape(following))
            else:
                raise _invalid_regex(pattern)
        elif c in "-^":
            out.append(c)
        elif pattern.startswith("[:", i):
            name = next((n for n in _CHARACTER_CLASSES if pattern.startswith(n, i)), None)
            if name is None:
                raise _invalid_regex(pattern)
            java = _CHARACTER_CLASSES[name]
            out.append(_PYTHON_CLASSES.get(java, java))
            i += len(name) - 1
        elif c in _SQL_SIMILAR_SPECIALS:
            raise _invalid_regex(pattern)
        else:
            out.append(re.escape(c))
        i += 1
    return i - 1


@functools.lru_cache(maxsize=256)
def _similar_regex(pattern: str, escape: str | None) -> re.Pattern[str]:
    """Calcite's ``sqlToRegexSimilar``."""
    escape_char = _escape_character(escape)
    _check_similar_escapes(pattern, escape_char)
    out: list[str] = []
    inside = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape_char:
            following = pattern[i + 1] if i + 1 < len(pattern) else ""
            if not following or (following not in _SQL_SIMILAR_SPECIALS and following != escape_char):
                raise _invalid_sequence(pattern, i)
            out.append(re.escape(following))
            i += 2
            continue
        if c in "_.":  # SQL's any character; a "." reaches Java's regex as is
            out.append(_JAVA_DOT)
        elif c == "%":
            out.append("(?s:.*)")
        elif c == "[":
            out.append("[")
            inside = True
            i = _enumeration(pattern, out, i, escape_char)
        elif c == "]":
            if not inside:
                raise _invalid_regex(pattern)
            inside = False
            out.append("]")
        elif c in "\\$":
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    if inside:
        raise _invalid_regex(pattern)
    try:
        return re.compile("".join(out))
    except re.error as err:
        raise _invalid_regex(pattern) from err
