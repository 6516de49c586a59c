"""Flink's string, binary and hash functions as Flink 2.3 computes and types them.

Values follow Java where Python's own differ: regular expressions are Java's
(``java_text.java_regex``; an invalid one gives NULL where Flink catches the error),
REGEXP_REPLACE's replacement is literal (Flink quotes it: ``$1`` stays ``$1``), TRIM / LTRIM /
RTRIM / BTRIM remove spaces only or the characters given, SUBSTRING counts from the end for
a negative start and from the first character for 0, OVERLAY leaves the text as it is for a
position outside it, INSTR takes a start (negative: from the end) and an occurrence, ASCII is
the first UTF-8 byte as a signed byte, ENCODE / DECODE are Java's charsets (UTF-16 with a
big-endian byte order mark), PRINTF is ``String.format``, INET_ATON reads 1 to 4 decimal
parts, INITCAP capitalises ASCII letters after anything that is not an ASCII letter or digit.

Result types are Flink's: ``UPPER('hello')`` is CHAR(5) NOT NULL, ``TRIM`` a VARCHAR of its
argument's length, ``SUBSTRING`` and ``LEFT`` a nullable VARCHAR, ``MD5`` CHAR(32) NOT NULL; a
function refuses the argument types Flink refuses, with Flink's message. The encoding, hashing,
URL and address functions' values are ``string_codecs``'.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.casts import cast_type_name
from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.definition import FunctionDefinition, TypeRule, spark_kernel
from millstream.table.functions.java_text import (
    JavaFormatError,
    JavaRegexError,
    java_format,
    java_regex,
    java_split,
)
from millstream.table.functions.string_codecs import (
    _ascii,
    _bin,
    _chr,
    _decode,
    _digest,
    _encode,
    _from_base64,
    _hex,
    _inet_aton,
    _inet_ntoa,
    _parse_url,
    _sha2,
    _to_base64,
    _unhex,
    _url_decode,
    _url_encode,
)

__all__ = ["STRINGS", "checked", "java_regex_or_none"]


_CHARACTERS = ("CHAR", "VARCHAR", "STRING")
_BINARY = ("BINARY", "VARBINARY", "BYTES")
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_MAX = 2**31 - 1


# -- types ------------------------------------------------------------------------------------------


def _nullable(result: DataType, args: list[DataType]) -> DataType:
    return result.nullable() if any(a.is_nullable() for a in args) else result.not_null()


def _length(data_type: DataType) -> int | None:
    """The declared length of a CHAR / VARCHAR (None: STRING, or no length)."""
    if data_type.root in ("CHAR", "VARCHAR") and data_type.params:
        length = int(data_type.params[0])
        return None if length >= _MAX else length
    return None


def _calcite(data_type: DataType) -> str:
    """A type as Calcite's validation messages write it: ``INTEGER``, ``CHAR(4)``,
    ``VARCHAR(2147483647)``."""
    return cast_type_name(data_type)


def _refuse(name: str, args: list[DataType], forms: str) -> ValueError:
    shown = ", ".join(f"<{_calcite(a)}>" for a in args)
    return ValueError(
        f"Cannot apply '{name}' to arguments of type '{name}({shown})'. Supported form(s): {forms}"
    )


def checked(name: str, kinds: tuple[tuple[str, ...], ...], forms: str, rule: TypeRule) -> TypeRule:
    """``rule``, after each argument's type root is one of its ``kinds`` (NULL always is)."""

    def check(args: list[DataType]) -> DataType:
        for index, arg in enumerate(args):
            allowed = kinds[min(index, len(kinds) - 1)]
            if arg.root != "NULL" and arg.root not in allowed:
                raise _refuse(name, args, forms)
        return rule(args)

    return check


def _result(result: DataType) -> TypeRule:
    """``result``, nullable when an argument is."""
    return lambda args: _nullable(result, args)


def _always_nullable(result: DataType) -> TypeRule:
    return lambda args: result.nullable()


def _same_text(args: list[DataType]) -> DataType:
    """The first argument's character type (UPPER, LOWER, INITCAP)."""
    first = args[0] if args[0].root != "NULL" else DataTypes.STRING()
    return _nullable(first, args)


def _varying(nullable_always: bool) -> TypeRule:
    """A VARCHAR of the first argument's length (STRING for a STRING)."""

    def rule(args: list[DataType]) -> DataType:
        length = _length(args[0])
        result = DataTypes.VARCHAR(length) if length is not None else DataTypes.STRING()
        return result.nullable() if nullable_always else _nullable(result, args)

    return rule


def _overlay_type(args: list[DataType]) -> DataType:
    first, second = _length(args[0]), _length(args[1])
    if first is None or second is None:
        return _nullable(DataTypes.STRING(), args)
    return _nullable(DataTypes.VARCHAR(first + second), args)


def _concat_operator_type(args: list[DataType]) -> DataType:
    """``a || b``: CHAR(n + m) of two CHARs, VARCHAR(n + m) of fixed lengths, else STRING."""
    for arg in args:
        if arg.root not in _CHARACTERS and arg.root != "NULL":
            raise ValueError(
                "Cannot apply '||' to arguments of type "
                f"'<{_calcite(args[0])}> || <{_calcite(args[1])}>'. Supported form(s): '<STRING> || <STRING>'"
            )
    lengths = [_length(a) for a in args]
    if None in lengths:
        return _nullable(DataTypes.STRING(), args)
    total = sum(length for length in lengths if length is not None)
    if all(a.root == "CHAR" for a in args):
        return _nullable(DataTypes.CHAR(total), args)
    return _nullable(DataTypes.VARCHAR(total), args)


def _common_text(args: list[DataType]) -> DataType:
    """ELT's: the strings' least restrictive type, nullable."""
    texts = [a for a in args[1:] if a.root != "NULL"]
    if not texts or any(_length(a) is None for a in texts):
        return DataTypes.STRING()
    longest = max(_length(a) or 0 for a in texts)
    if all(a.root == "CHAR" for a in texts):
        return DataTypes.CHAR(longest)
    return DataTypes.VARCHAR(longest)


# -- regular expressions ----------------------------------------------------------------------------


def java_regex_or_none(pattern: str) -> re.Pattern[str] | None:
    """The compiled Java pattern, None for one Java refuses (Flink's functions give NULL)."""
    try:
        return java_regex(pattern)
    except JavaRegexError:
        return None


def _regexp_replace(text: str, pattern: str, replacement: str) -> str | None:
    compiled = java_regex_or_none(pattern)
    return None if compiled is None else compiled.sub(lambda _: replacement, text)


def _regexp_extract(text: str, pattern: str, group: int = 0) -> str | None:
    compiled = java_regex_or_none(pattern)
    if compiled is None or not 0 <= group <= compiled.groups:
        return None
    match = compiled.search(text)
    return None if match is None else match.group(group)


def _regexp_extract_all(text: str, pattern: str, group: int = 1) -> list[str | None] | None:
    compiled = java_regex_or_none(pattern)
    if compiled is None or not 0 <= group <= compiled.groups:
        return None
    return [m.group(group) for m in compiled.finditer(text)]


def _regexp_count(text: str, pattern: str) -> int | None:
    compiled = java_regex_or_none(pattern)
    return None if compiled is None else sum(1 for _ in compiled.finditer(text))


def _regexp_instr(text: str, pattern: str) -> int | None:
    compiled = java_regex_or_none(pattern)
    if compiled is None:
        return None
    match = compiled.search(text)
    return 0 if match is None else match.start() + 1


def _regexp_substr(text: str, pattern: str) -> str | None:
    compiled = java_regex_or_none(pattern)
    if compiled is None:
        return None
    match = compiled.search(text)
    return None if match is None else match.group(0)


def _regexp(text: str, pattern: str) -> bool:
    """REGEXP: whether the pattern is found; FALSE for an empty or invalid pattern."""
    if pattern == "":
        return False
    compiled = java_regex_or_none(pattern)
    return compiled is not None and compiled.search(text) is not None


# -- substrings, trimming, padding ------------------------------------------------------------------


def _substring(text: str, start: int, length: int | None = None) -> str | None:
    """``BinaryStringData.substringSQL``: 1-based; 0 is the first character, a negative start
    counts from the end; a negative length is NULL."""
    if length is not None and length < 0:
        return None
    size = len(text)
    begin = start - 1 if start > 0 else size + start if start < 0 else 0
    end = size if length is None else begin + length
    if begin < 0:
        if start < 0 and -start > size:
            return ""
        begin = 0
    return text[begin : max(begin, min(end, size))]


def _overlay(text: str, replacement: str, position: int, length: int | None = None) -> str:
    """OVERLAY: ``text`` for a position outside it; a length of 0 or less keeps nothing after
    the replacement."""
    if position < 1 or position > len(text):
        return text
    count = len(replacement) if length is None else length
    if count <= 0:
        return text[: position - 1] + replacement
    return text[: position - 1] + replacement + text[position - 1 + count :]


def _trim(where: str) -> Callable[..., str | None]:
    def trim(text: str, characters: str | None = " ") -> str | None:
        if characters is None:
            return None
        if characters == "":
            return text
        if where == "left":
            return text.lstrip(characters)
        if where == "right":
            return text.rstrip(characters)
        return text.strip(characters)

    return trim


def _pad(left: bool) -> Callable[[str, int, str], str | None]:
    """LPAD / RPAD (``SqlFunctionUtils.lpad``): NULL for a negative length or an empty pad."""

    def pad(text: str, length: int, filler: str) -> str | None:
        if length < 0 or filler == "":
            return None
        if length <= len(text):
            return text[:length]
        fill = (filler * (length // len(filler) + 1))[: length - len(text)]
        return fill + text if left else text + fill

    return pad


def _left(text: str, length: int) -> str:
    return text[: max(length, 0)]


def _right(text: str, length: int) -> str:
    return "" if length <= 0 else text[-length:]


def _repeat(text: str, count: int) -> str:
    return text * max(count, 0)


def _replace(text: str, search: str, replacement: str) -> str:
    return text.replace(search, replacement)


def _translate(text: str | None, source: str | None, target: str | None) -> str | None:
    """TRANSLATE: a character of ``source`` becomes the one at its place in ``target`` (the
    first place a repeated one has), or goes when ``target`` is shorter (or NULL)."""
    if text is None or source is None:
        return None
    target = target or ""
    table: dict[int, str | None] = {}
    for index, char in enumerate(source):
        table.setdefault(ord(char), target[index] if index < len(target) else None)
    return text.translate(table)


def _initcap(text: str) -> str:
    """Calcite's INITCAP: an ASCII letter after anything but an ASCII letter or digit is upper
    case, any other ASCII letter lower case; other characters as they are."""
    out = []
    start = True
    for char in text:
        code = ord(char)
        alnum = 48 <= code <= 57 or 65 <= code <= 90 or 97 <= code <= 122
        if start:
            if 97 <= code <= 122:
                char = chr(code - 32)
            start = not alnum
        else:
            if 65 <= code <= 90:
                char = chr(code + 32)
            start = not alnum
        out.append(char)
    return "".join(out)


# -- searching --------------------------------------------------------------------------------------


def _position(needle: str, text: str, start: int = 1) -> int:
    if start < 1:
        return 0
    return text.find(needle, start - 1) + 1


def _locate(needle: str, text: str, start: int = 1) -> int:
    """LOCATE: a start below 1 is 1; an empty needle is at 1."""
    if needle == "":
        return 1
    return text.find(needle, max(start, 1) - 1) + 1


def _instr(text: str, needle: str, start: int = 1, occurrence: int = 1) -> int:
    """INSTR(text, needle[, start[, occurrence]]): the ``occurrence``-th from ``start`` (a
    negative start searches backwards from that place from the end); 0 when there is none."""
    if occurrence <= 0:
        raise ValueError("nthAppearance must be positive!")
    if start == 0 or abs(start) > len(text):
        return 0
    if start > 0:
        at = start - 2
        for _ in range(occurrence):
            at = text.find(needle, at + 1)
            if at < 0:
                return 0
        return at + 1
    at = len(text) + start + 1
    for _ in range(occurrence):
        at = text.rfind(needle, 0, at - 1 + len(needle))
        if at < 0:
            return 0
    return at + 1


def _split(text: str, separator: str) -> list[str]:
    """SPLIT: every token (empty ones kept); an empty separator splits into characters."""
    if text == "":
        return []
    if separator == "":
        return list(text)
    return text.split(separator)


def _split_index(text: str, separator: Any, index: int) -> str | None:
    """SPLIT_INDEX (commons-lang's ``splitByWholeSeparatorPreserveAllTokens``; an empty
    separator splits at whitespace)."""
    if index < 0 or text == "":
        return None
    if isinstance(separator, int):
        separator = chr(separator)
    tokens = re.split(r"\s", text) if separator == "" else text.split(separator)
    return tokens[index] if index < len(tokens) else None


def _str_to_map(text: str, pairs: str = ",", key_value: str = "=") -> dict[str, str | None] | None:
    """STR_TO_MAP: the text split at the ``pairs`` regular expression, each pair at the first
    ``key_value`` match (Java's ``String.split``); a later key replaces an earlier one."""
    if text == "":
        return {}
    out: dict[str, str | None] = {}
    for pair in java_split(text, pairs):
        key, *value = java_split(pair, key_value, 2)
        out[key] = value[0] if value else None
    return out


# -- the others -------------------------------------------------------------------------------------


def _concat_ws(separator: str | None, *values: str | None) -> str | None:
    if separator is None:
        return None
    return separator.join(v for v in values if v is not None)


def _elt(index: int, *values: Any) -> Any:
    return values[index - 1] if 1 <= index <= len(values) else None


def _elt_type(args: list[DataType], literals: list[Any]) -> DataType:
    """ELT's: Flink refuses a literal index below 0 while planning and fails on a BIGINT one."""
    index = literals[0]
    if isinstance(index, int) and not isinstance(index, bool) and index < 0:
        raise ValueError(f"Index must be an integer starting from '0', but was '{index}'.")
    if args[0].root == "BIGINT":
        raise ValueError("class java.lang.Long cannot be cast to class java.lang.Integer")
    return _common_text(args)


def _printf(pattern: str | None, *args: Any) -> str | None:
    """PRINTF: Java's ``String.format`` of the values (NULL where it throws; a NULL value is
    ``null``)."""
    if pattern is None:
        return None
    try:
        return java_format(pattern, list(args))
    except JavaFormatError:
        return None


def _starts_with(value: Any, prefix: Any) -> bool:
    return bytes(value).startswith(bytes(prefix)) if isinstance(value, bytes) else value.startswith(prefix)


def _ends_with(value: Any, suffix: Any) -> bool:
    return bytes(value).endswith(bytes(suffix)) if isinstance(value, bytes) else value.endswith(suffix)


# -- Arrow kernels ----------------------------------------------------------------------------------


def _ascii_kernel(name: str, python: Callable[[str], Any], **options: Any) -> Callable[[Any], Any]:
    """``pyarrow.compute.<name>`` of a column of ASCII text; the row function per value of one
    with other characters (Arrow's Unicode case mapping is not Java's: ß, final sigma, İ)."""

    def kernel(values: Any) -> Any:
        if isinstance(values, pa.Scalar):
            value = values.as_py()
            return pa.scalar(None if value is None else python(value), values.type)
        if pc.all(pc.string_is_ascii(values)).as_py() is not False:
            return getattr(pc, name)(values, **options)
        return pa.array([None if v is None else python(v) for v in values.to_pylist()], values.type)

    return kernel


def _case(name: str, python: Callable[[str], str], arrow_name: str, spark_name: str) -> FunctionDefinition:
    rule = checked(name, _TEXT_ONLY, f"'{name}(<CHARACTER>)'", _same_text)
    return FunctionDefinition(
        name, python, rule, arrow=_ascii_kernel(arrow_name, python), spark=spark_kernel(spark_name)
    )


def _trim_definition(name: str, where: str, arrow_name: str, spark_name: str) -> FunctionDefinition:
    """TRIM / LTRIM / RTRIM: of one argument on Arrow and Spark too (spaces only)."""
    python = _trim(where)
    return FunctionDefinition(
        name,
        python,
        _varying(False),
        arrow=_ascii_kernel(arrow_name, python, characters=" "),
        spark=spark_kernel(spark_name),
    )


def _length_kernel(values: Any) -> Any:
    return pc.utf8_length(values)


def _concat_kernel(first: Any, *rest: Any) -> Any:
    """CONCAT on Arrow: NULL when any argument is NULL, as Flink's."""
    return pc.binary_join_element_wise(first, *rest, "")


# -- the definitions --------------------------------------------------------------------------------

_S = DataTypes.STRING()
_INT = DataTypes.INT()
_TEXT_ONLY = (_CHARACTERS,)
_TEXT_OR_BYTES = (_CHARACTERS + _BINARY,)


def _hash(name: str, digest: str, length: int) -> FunctionDefinition:
    rule = checked(name, _TEXT_OR_BYTES, f"'{name}(<CHARACTER>)'", _result(DataTypes.CHAR(length)))
    return FunctionDefinition(name, _digest(digest), rule)


STRINGS: list[FunctionDefinition] = [
    FunctionDefinition("||", lambda a, b: a + b, _concat_operator_type),
    _case("UPPER", str.upper, "utf8_upper", "upper"),
    _case("LOWER", str.lower, "utf8_lower", "lower"),
    FunctionDefinition(
        "CHAR_LENGTH",
        len,
        checked("CHAR_LENGTH", _TEXT_ONLY, "'CHAR_LENGTH(<CHARACTER>)'", _result(_INT)),
        arrow=_length_kernel,
        spark=spark_kernel("length"),
    ),
    FunctionDefinition("POSITION", _position, _result(_INT)),
    _trim_definition("TRIM", "both", "utf8_trim", "trim"),
    _trim_definition("LTRIM", "left", "utf8_ltrim", "ltrim"),
    _trim_definition("RTRIM", "right", "utf8_rtrim", "rtrim"),
    FunctionDefinition("BTRIM", _trim("both"), _result(_S)),
    FunctionDefinition("REPEAT", _repeat, _result(_S)),
    FunctionDefinition("REGEXP_REPLACE", _regexp_replace, _result(_S)),
    FunctionDefinition("OVERLAY", _overlay, _overlay_type),
    FunctionDefinition(
        "SUBSTRING",
        _substring,
        checked("SUBSTRING", (_CHARACTERS, _INTEGERS), "'SUBSTRING(<CHAR> FROM <INTEGER>)'", _varying(True)),
    ),
    FunctionDefinition("REPLACE", _replace, _result(_S)),
    FunctionDefinition("REGEXP_EXTRACT", _regexp_extract, _always_nullable(_S)),
    FunctionDefinition("REGEXP_EXTRACT_ALL", _regexp_extract_all, _always_nullable(DataTypes.ARRAY(_S))),
    FunctionDefinition("REGEXP_COUNT", _regexp_count, _always_nullable(_INT)),
    FunctionDefinition("REGEXP_INSTR", _regexp_instr, _always_nullable(_INT)),
    FunctionDefinition("REGEXP_SUBSTR", _regexp_substr, _always_nullable(_S)),
    FunctionDefinition("REGEXP", _regexp, _result(DataTypes.BOOLEAN())),
    FunctionDefinition("TRANSLATE", _translate, lambda args: _nullable(_S, args[:2]), null_aware=True),
    FunctionDefinition("INITCAP", _initcap, _same_text),
    FunctionDefinition(
        "CONCAT",
        lambda *parts: "".join(parts),
        checked("CONCAT", _TEXT_ONLY, "'CONCAT(<STRING>, ...)'", _result(_S)),
        arrow=_concat_kernel,
        spark=spark_kernel("concat"),
    ),
    FunctionDefinition("CONCAT_WS", _concat_ws, _result(_S), null_aware=True),
    FunctionDefinition("LPAD", _pad(True), _result(_S)),
    FunctionDefinition("RPAD", _pad(False), _result(_S)),
    FunctionDefinition("FROM_BASE64", _from_base64, _result(_S)),
    FunctionDefinition("TO_BASE64", _to_base64, _result(_S)),
    FunctionDefinition("ASCII", _ascii, _result(_INT)),
    FunctionDefinition("CHR", _chr, _always_nullable(_S)),
    FunctionDefinition("ENCODE", _encode, _result(DataTypes.BYTES())),
    FunctionDefinition("DECODE", _decode, _result(_S)),
    FunctionDefinition("INSTR", _instr, _result(_INT)),
    FunctionDefinition("LEFT", _left, _varying(True)),
    FunctionDefinition("RIGHT", _right, _varying(True)),
    FunctionDefinition("LOCATE", _locate, _result(_INT)),
    FunctionDefinition("URL_DECODE", _url_decode, _always_nullable(_S)),
    FunctionDefinition("URL_ENCODE", _url_encode, _always_nullable(_S)),
    FunctionDefinition("PARSE_URL", _parse_url, _always_nullable(_S)),
    FunctionDefinition("REVERSE", lambda text: text[::-1], _always_nullable(_S)),
    FunctionDefinition("SPLIT_INDEX", _split_index, _always_nullable(_S)),
    FunctionDefinition("SPLIT", _split, _result(DataTypes.ARRAY(_S))),
    FunctionDefinition("STR_TO_MAP", _str_to_map, _always_nullable(DataTypes.MAP(_S, _S))),
    FunctionDefinition("STARTSWITH", _starts_with, _result(DataTypes.BOOLEAN())),
    FunctionDefinition("ENDSWITH", _ends_with, _result(DataTypes.BOOLEAN())),
    FunctionDefinition("ELT", _elt, _common_text, literal_result=_elt_type),
    FunctionDefinition("PRINTF", _printf, _always_nullable(_S), null_aware=True),
    FunctionDefinition("INET_ATON", _inet_aton, _always_nullable(DataTypes.BIGINT())),
    FunctionDefinition("INET_NTOA", _inet_ntoa, _always_nullable(_S)),
    FunctionDefinition(
        "HEX",
        _hex,
        checked("HEX", (_INTEGERS + _CHARACTERS,), "'HEX(<INTEGER>)' 'HEX(<CHARACTER>)'", _result(_S)),
    ),
    FunctionDefinition("BIN", _bin, _result(_S)),
    FunctionDefinition("UNHEX", _unhex, _always_nullable(DataTypes.BYTES())),
    _hash("MD5", "md5", 32),
    _hash("SHA1", "sha1", 40),
    _hash("SHA224", "sha224", 56),
    _hash("SHA256", "sha256", 64),
    _hash("SHA384", "sha384", 96),
    _hash("SHA512", "sha512", 128),
    FunctionDefinition(
        "SHA2",
        _sha2,
        checked(
            "SHA2",
            (_CHARACTERS + _BINARY, _INTEGERS),
            "'SHA2(<CHARACTER>, <INTEGER>)'",
            _result(DataTypes.VARCHAR(128)),
        ),
    ),
]
