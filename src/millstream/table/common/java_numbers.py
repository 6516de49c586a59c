"""Java's arithmetic on the numbers SQL values hold, as Flink's generated Java code does it:
integers in the two's complement of their type's width (``wrap``: INT ``2147483647 + 1`` is
``-2147483648``), Java's narrowing of a double to an integer (``(int) 1e20`` saturates,
``(byte)`` goes through ``int``), 32-bit FLOATs, parsing a string as
``Double.parseDouble`` and Flink's ``BinaryStringDataUtil.toInt`` do, and ``Double.toString``
/ ``Float.toString`` as Java 17 writes them (its ``FloatingDecimal``: not always the shortest
digits, ``4.9E-324``, ``1.23456792E8``).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable

__all__ = [
    "INTEGER_BITS",
    "INTEGER_RANGES",
    "NumberFormatError",
    "double_to_integer",
    "format_java_double",
    "format_java_float",
    "java_double_to_int",
    "java_double_to_long",
    "parse_java_double",
    "parse_java_integer",
    "to_float32",
    "wrap",
]

INTEGER_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
INTEGER_RANGES = {root: (-(1 << (b - 1)), (1 << (b - 1)) - 1) for root, b in INTEGER_BITS.items()}


class NumberFormatError(ValueError):
    """A string that is not a number of the type (Java's NumberFormatException)."""


def wrap(value: int, root: str) -> int:
    """``value`` in the two's complement of ``root``'s width (Java's overflow: INT
    ``2147483647 + 1`` is ``-2147483648``)."""
    bits = INTEGER_BITS[root]
    half = 1 << (bits - 1)
    return ((value + half) & ((half << 1) - 1)) - half


def java_double_to_long(value: float) -> int:
    """Java's ``(long) d``: toward zero, NaN 0, saturating at the long range."""
    if value != value:
        return 0
    if value >= 9.223372036854775807e18:
        return INTEGER_RANGES["BIGINT"][1]
    if value <= -9.223372036854775808e18:
        return INTEGER_RANGES["BIGINT"][0]
    return int(value)


def java_double_to_int(value: float) -> int:
    """Java's ``(int) d``: toward zero, NaN 0, saturating at the int range."""
    if value != value:
        return 0
    low, high = INTEGER_RANGES["INT"]
    if value >= high:
        return high
    if value <= low:
        return low
    return int(value)


def double_to_integer(root: str) -> Callable[[float], int]:
    """Java's narrowing of a double to ``root``: to long or int (saturating), then to the
    width (``(byte) 1e20`` is ``-1``: ``(int) 1e20`` is ``Integer.MAX_VALUE``)."""
    if root == "BIGINT":
        return java_double_to_long
    if root == "INT":
        return java_double_to_int
    return lambda v: wrap(java_double_to_int(v), root)


def to_float32(value: float) -> float:
    """``value`` rounded to a 32-bit float (Java's ``(float) d``: too large is infinite)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def format_java_double(value: float) -> str:
    """``value`` as Java 17's ``Double.toString`` writes it: ``1.5``, ``0.001``, ``9999999.0``,
    ``1.0E7``, ``9.9E-4``, ``-0.0``, ``NaN``, ``Infinity``, and its digits as Java's
    ``FloatingDecimal`` develops them, not always the shortest (``4.9E-324``,
    ``1.9999999999999998E23``)."""
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    fraction, exponent = bits & ((1 << 52) - 1), (bits >> 52) & 0x7FF
    if exponent == 0x7FF:
        return "NaN" if fraction else ("-Infinity" if bits < 0 else "Infinity")
    if exponent == 0:
        if fraction == 0:
            return "-0.0" if bits < 0 else "0.0"
        significant = fraction.bit_length()  # a subnormal: normalized
        shift = 53 - significant
        fraction, exponent = fraction << shift, 1 - shift
    else:
        fraction, significant = fraction | (1 << 52), 53
    return _java_text(bits < 0, *_java_digits(exponent - 1023, fraction, significant))


def format_java_float(value: float) -> str:
    """``value`` as Java 17's ``Float.toString`` writes a FLOAT (``1.23456792E8`` for
    ``CAST(123456789 AS FLOAT)``)."""
    bits = struct.unpack("<i", struct.pack("<f", to_float32(value)))[0]
    fraction, exponent = bits & ((1 << 23) - 1), (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return "NaN" if fraction else ("-Infinity" if bits < 0 else "Infinity")
    if exponent == 0:
        if fraction == 0:
            return "-0.0" if bits < 0 else "0.0"
        significant = fraction.bit_length()
        shift = 24 - significant
        fraction, exponent = fraction << shift, 1 - shift
    else:
        fraction, significant = fraction | (1 << 23), 24
    return _java_text(bits < 0, *_java_digits(exponent - 127, fraction << 29, significant))


# Java's FloatingDecimal: ceil(log2(5^i)), and the decimal digits of 2^i that are insignificant
_N_5_BITS = (
    0,
    3,
    5,
    7,
    10,
    12,
    14,
    17,
    19,
    21,
    24,
    26,
    28,
    31,
    33,
    35,
    38,
    40,
    42,
    45,
    47,
    49,
    52,
    54,
    56,
    59,
    61,
)
_INSIGNIFICANT_FOR_POW2 = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9,
    10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17,
    18, 18, 18, 19,
)  # fmt: skip


def _signed(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return ((value + half) & ((half << 1) - 1)) - half


def _java_digits(binary_exponent: int, fraction: int, significant: int) -> tuple[list[int], int]:
    """The decimal digits and exponent of ``fraction * 2^(binary_exponent - 52)`` (``fraction``
    with its high bit at 2^52) as Java 8-17's ``FloatingDecimal.dtoa`` develops them: exact for
    an integer that fits a long, else digits until the rest is within half an ulp of
    ``significant`` bits (a symmetric test, Java's own int, long and big-integer paths)."""
    tail_zeros = (fraction & -fraction).bit_length() - 1
    fraction_bits = 53 - tail_zeros
    tiny_bits = max(0, fraction_bits - binary_exponent - 1)
    if -21 <= binary_exponent <= 62 and tiny_bits == 0 and fraction_bits < 64:
        return _integer_digits(binary_exponent, fraction, significant)
    estimate = struct.unpack("<d", struct.pack("<q", (1023 << 52) | (fraction & ((1 << 52) - 1))))[0]
    decimal_exponent = math.floor(
        (estimate - 1.5) * 0.289529654 + 0.176091259 + binary_exponent * 0.301029995663981
    )
    b5, s5 = max(0, -decimal_exponent), max(0, decimal_exponent)
    b2, s2 = b5 + tiny_bits + binary_exponent, s5 + tiny_bits
    m2 = b2 - significant
    fraction >>= tail_zeros
    b2 -= fraction_bits - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if fraction_bits == 1:  # a power of two: the next smaller value is half as far
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = fraction_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    # Java's int or long arithmetic (its overflows included), else its FDBigInteger
    width = (32 if b_bits < 32 and ten_s_bits < 32 else 64) if b_bits < 64 and ten_s_bits < 64 else None
    digits, decimal_exponent, low, high, difference = _develop(
        (fraction * 5**b5) << b2, 5**s5 << s2, 5**b5 << m2, decimal_exponent, width
    )
    exponent = decimal_exponent + 1
    if high and (not low or difference > 0 or (difference == 0 and digits[-1] & 1)):
        exponent += _round_up(digits)
    return digits, exponent


def _integer_digits(binary_exponent: int, fraction: int, significant: int) -> tuple[list[int], int]:
    """An integer's own digits, rounded past what its ``significant`` bits can tell."""
    insignificant = 0
    if binary_exponent > significant:
        p2 = binary_exponent - significant - 1
        insignificant = _INSIGNIFICANT_FOR_POW2[p2] if 1 < p2 < len(_INSIGNIFICANT_FOR_POW2) else 0
    whole = (
        fraction << (binary_exponent - 52) if binary_exponent >= 52 else fraction >> (52 - binary_exponent)
    )
    if insignificant:
        scale = 10**insignificant
        whole, residue = divmod(whole, scale)
        whole += residue >= scale >> 1
    text = str(whole)
    return [int(c) for c in text.rstrip("0")], insignificant + len(text)


def _develop(
    b: int, s: int, m: int, decimal_exponent: int, width: int | None
) -> tuple[list[int], int, bool, bool, int]:
    """Digits of ``b / s`` until the rest is within ``m`` (half an ulp, scaled alike) of a
    digit boundary: (digits, decimal exponent, low, high, sign of the rest against half a digit).
    ``width``: Java's int or long arithmetic of 32 or 64 bits (a strict test, and an overflowing
    ``m`` stops), None its big integers (a test that admits equality)."""
    tens = s * 10

    def signed(value: int) -> int:
        return _signed(value, width) if width else value

    def stops(b: int, m: int) -> tuple[bool, bool]:
        if width is None:
            return b < m, b + m >= tens
        return (b < m, signed(b + m) > tens) if m > 0 else (True, True)

    digits: list[int] = []
    q, b = divmod(b, s)
    b, m = b * 10, signed(m * 10)
    low, high = b < m, (signed(b + m) > tens if width else b + m >= tens)
    if q == 0 and not high:
        decimal_exponent -= 1
    else:
        digits.append(q)
    if decimal_exponent < -3 or decimal_exponent >= 8:  # E-form: at least two digits
        low = high = False
    while not low and not high:
        q, b = divmod(b, s)
        b, m = signed(b * 10), signed(m * 10)
        low, high = stops(b, m)
        digits.append(q)
    if width:
        difference = signed((b << 1) - tens)
    else:
        difference = (2 * b > tens) - (2 * b < tens) if low and high else 0
    return digits, decimal_exponent, low, high, difference


def _round_up(digits: list[int]) -> int:
    """Adds one to the last digit; 1 if it carried out of the first (the digits are then 10...)."""
    i = len(digits) - 1
    while i > 0 and digits[i] == 9:
        digits[i] = 0
        i -= 1
    if digits[i] == 9:
        digits[0] = 1
        return 1
    digits[i] += 1
    return 0


def _java_text(negative: bool, digits: list[int], exponent: int) -> str:
    """Java's layout of the digits: ``123.45``, ``0.00123``, ``1.0E7``, ``9.9E-4``."""
    sign = "-" if negative else ""
    text = "".join(map(str, digits))
    count = len(text)
    if 0 < exponent < 8:
        if count < exponent:
            return f"{sign}{text}{'0' * (exponent - count)}.0"
        return f"{sign}{text[:exponent]}.{text[exponent:] or '0'}"
    if -3 < exponent <= 0:
        return f"{sign}0.{'0' * -exponent}{text}"
    return f"{sign}{text[0]}.{text[1:] or '0'}E{exponent - 1}"


# Java's Double.parseDouble: optional sign, NaN / Infinity, decimal or hexadecimal digits, an
# optional f/F/d/D suffix; surrounding whitespace (<= U+0020) is trimmed
_JAVA_DOUBLE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)"
)


def _java_trim(text: str) -> str:
    """Java's ``String.trim``: every character up to U+0020 off both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def parse_java_double(text: str) -> float:
    """``Double.parseDouble(text)``; raises CastError as Java's NumberFormatException."""
    trimmed = _java_trim(text)
    if not _JAVA_DOUBLE.fullmatch(trimmed):
        raise NumberFormatError(f"For input string: '{text}'")
    body = trimmed.rstrip("fFdD") if not trimmed.endswith(("NaN", "Infinity")) else trimmed
    if "x" in body or "X" in body:
        return float.fromhex(body)
    return float(body)


def parse_java_integer(text: str, root: str) -> int:
    """Flink's ``BinaryStringDataUtil.toInt`` / ``toLong`` of a string trimmed of spaces:
    a sign, digits, and a fraction that is dropped (``'4.7'`` is 4); the width's range, else
    'Overflow'."""
    trimmed = text.strip(" ")
    if not trimmed:
        raise NumberFormatError(f"For input string: '{text}'. Input is empty.")
    digits = trimmed[1:] if trimmed[0] in "+-" else trimmed
    if not digits:
        raise NumberFormatError(f"For input string: '{text}'. Input has only positive or negative symbol.")
    whole, _, fraction = digits.partition(".")
    if not ((whole.isascii() and whole.isdigit()) or whole == "") or not (
        fraction == "" or (fraction.isascii() and fraction.isdigit())
    ):
        raise NumberFormatError(f"For input string: '{text}'. Invalid character found.")
    value = int(whole or "0")
    if trimmed[0] == "-":
        value = -value
    low, high = INTEGER_RANGES["BIGINT" if root == "BIGINT" else "INT"]
    if not low <= value <= high or (root in ("TINYINT", "SMALLINT") and wrap(value, root) != value):
        raise NumberFormatError(f"For input string: '{text}'. Overflow.")
    return value
