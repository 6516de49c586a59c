"""Java's ``StrictMath`` functions that Flink's SQL functions call through ``java.lang.Math``:
SINH, COSH, TANH, ASIN, ACOS, ATAN and ATAN2 give the bits Java gives.

``Math.sinh``, ``cosh``, ``tanh``, ``asin``, ``acos``, ``atan``, ``atan2`` and ``expm1`` are
``StrictMath``'s, which computes them with the algorithms of fdlibm 5.3 (Sun's Freely
Distributable Math Library): each a fixed sequence of IEEE double operations, so the same
sequence over Python's floats (IEEE doubles, rounded to nearest) gives the same bits. C's
libm, which Python's ``math`` wraps, computes them otherwise and differs in the last digit
for a few percent of arguments (``COSH(1.0)`` is 1.543080634815244 in Java, 1.5430806348152437
in Python; over 40,000 arguments: COSH 3,070 differ, ATAN2 5,381, ATAN 1,885, ACOS 1,439,
ASIN 899, SINH 822). The functions below follow fdlibm's methods step by step, with its
constants (the ``float.fromhex`` literals).

``Math.sin``, ``cos``, ``tan``, ``exp``, ``log``, ``log10`` and ``pow`` are HotSpot intrinsics
of another library, not ``StrictMath``'s; C's libm matches them but for about 0.3% of
arguments (LOG10: 15%), so they stay Python's.
"""

from __future__ import annotations

import math
import struct

__all__ = ["acos", "asin", "atan", "atan2", "cosh", "exp", "expm1", "sinh", "tanh"]

_h = float.fromhex


def _bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _high(x: float) -> int:
    """The high 32 bits of ``x`` as Java's (signed) int."""
    return _bits(x) >> 32


def _low(x: float) -> int:
    """The low 32 bits of ``x``, unsigned."""
    return _bits(x) & 0xFFFFFFFF


def _of(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])


def _with_high(x: float, high: int) -> float:
    bits = (_bits(x) & 0xFFFFFFFF) | ((high & 0xFFFFFFFF) << 32)
    return _of(bits - (1 << 64) if bits >= 1 << 63 else bits)


def _with_low(x: float, low: int) -> float:
    return _of((_bits(x) & ~0xFFFFFFFF) | (low & 0xFFFFFFFF))


def _magnitude(x: float) -> int:
    """The high word of ``|x|``."""
    return _high(x) & 0x7FFFFFFF


# -- exp and expm1 --------------------------------------------------------------------------------

_LN2_HI = _h("0x1.62e42feep-1")
_LN2_LO = _h("0x1.a39ef35793c76p-33")
_INV_LN2 = _h("0x1.71547652b82fep0")
_EXP_OVERFLOW = _h("0x1.62e42fefa39efp9")  # 709.78...
_EXP_UNDERFLOW = -_h("0x1.74910d52d3051p9")  # -745.13...
_TWO_M1000 = _h("0x1.0p-1000")
_P = [_h(c) for c in ("0x1.555555555553ep-3", "-0x1.6c16c16bebd93p-9", "0x1.1566aaf25de2cp-14")] + [
    _h(c) for c in ("-0x1.bbd41c5d26bf1p-20", "0x1.6376972bea4d0p-25")
]


def exp(x: float) -> float:
    """``StrictMath.exp``: e^x from x = k*ln2 + r, |r| <= ln2/2, and a rational approximation
    of exp(r) (within 1 ulp; ``Math.exp`` is another library's)."""
    high = _high(x)
    negative = (high >> 31) & 1
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x40862E42:  # |x| >= 709.78..., or not finite
        if magnitude >= 0x7FF00000:
            if ((magnitude & 0xFFFFF) | _low(x)) != 0:
                return x + x  # NaN
            return x if not negative else 0.0
        if x > _EXP_OVERFLOW:
            return math.inf
        if x < _EXP_UNDERFLOW:
            return 0.0
    k = 0
    hi = lo = 0.0
    if magnitude > 0x3FD62E42:  # |x| > ln2/2: reduce
        if magnitude < 0x3FF0A2B2:  # and < 1.5 ln2: k is 1 or -1
            hi = x - _LN2_HI * (1 - 2 * negative)
            lo = _LN2_LO if not negative else -_LN2_LO
            k = 1 - 2 * negative
        else:
            k = int(_INV_LN2 * x + 0.5 * (1 - 2 * negative))
            hi = x - k * _LN2_HI
            lo = k * _LN2_LO
        x = hi - lo
    elif magnitude < 0x3E300000:  # |x| < 2^-28
        return 1.0 + x
    t = x * x
    c = x - t * (_P[0] + t * (_P[1] + t * (_P[2] + t * (_P[3] + t * _P[4]))))
    if k == 0:
        return 1.0 - ((x * c) / (c - 2.0) - x)
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    if k >= -1021:
        return _with_high(y, _high(y) + (k << 20))
    return _with_high(y, _high(y) + ((k + 1000) << 20)) * _TWO_M1000


_Q = [_h(c) for c in ("-0x1.11111111110f4p-5", "0x1.a01a019fe5585p-10", "-0x1.4ce199eaadbb7p-14")] + [
    _h(c) for c in ("0x1.0cfca86e65239p-18", "-0x1.afdb76e09c32dp-23")
]


def expm1(x: float) -> float:  # noqa: C901 - fdlibm's cases, one after the other
    """``StrictMath.expm1``: e^x - 1, exact near 0 (reduced as ``exp``, a rational
    approximation of expm1(r) with a correction of the reduction's error)."""
    high = _high(x)
    negative = high < 0
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x4043687A:  # |x| >= 56 ln2
        if magnitude >= 0x40862E42:  # |x| >= 709.78...
            if magnitude >= 0x7FF00000:
                if ((magnitude & 0xFFFFF) | _low(x)) != 0:
                    return x + x  # NaN
                return x if not negative else -1.0
            if x > _EXP_OVERFLOW:
                return math.inf
        if negative:
            return -1.0
    c = 0.0
    if magnitude > 0x3FD62E42:  # |x| > ln2/2: reduce
        if magnitude < 0x3FF0A2B2:
            hi, lo, k = (x - _LN2_HI, _LN2_LO, 1) if not negative else (x + _LN2_HI, -_LN2_LO, -1)
        else:
            k = int(_INV_LN2 * x + (0.5 if not negative else -0.5))
            hi = x - k * _LN2_HI
            lo = k * _LN2_LO
        x = hi - lo
        c = (hi - x) - lo
    elif magnitude < 0x3C900000:  # |x| < 2^-54
        return x
    else:
        k = 0
    half_x = 0.5 * x
    hxs = x * half_x
    r1 = 1.0 + hxs * (_Q[0] + hxs * (_Q[1] + hxs * (_Q[2] + hxs * (_Q[3] + hxs * _Q[4]))))
    t = 3.0 - r1 * half_x
    e = hxs * ((r1 - t) / (6.0 - x * t))
    if k == 0:
        return x - (x * e - hxs)
    e = x * (e - c) - c
    e -= hxs
    if k == -1:
        return 0.5 * (x - e) - 0.5
    if k == 1:
        return -2.0 * (e - (x + 0.5)) if x < -0.25 else 1.0 + 2.0 * (x - e)
    if k <= -2 or k > 56:  # exp(x) - 1 is enough
        y = 1.0 - (e - x)
        return _with_high(y, _high(y) + (k << 20)) - 1.0
    if k < 20:
        t = _with_high(1.0, 0x3FF00000 - (0x200000 >> k))  # 1 - 2^-k
        y = t - (e - x)
    else:
        t = _with_high(1.0, (0x3FF - k) << 20)  # 2^-k
        y = (x - (e + t)) + 1.0
    return _with_high(y, _high(y) + (k << 20))


# -- hyperbolic functions -----------------------------------------------------------------------------------


def _past_overflow_threshold(magnitude: int, x: float) -> bool:
    """Whether |x| passes ln(2 * Double.MAX_VALUE), where cosh and sinh overflow."""
    return magnitude > 0x408633CE or (magnitude == 0x408633CE and _low(x) > 0x8FB9F87D)


def sinh(x: float) -> float:
    """``StrictMath.sinh``: from expm1(|x|) up to 22, then exp(|x|) / 2."""
    high = _high(x)
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x7FF00000:
        return x + x
    h = -0.5 if high < 0 else 0.5
    if magnitude < 0x40360000:  # |x| < 22
        if magnitude < 0x3E300000:  # |x| < 2^-28
            return x
        t = expm1(abs(x))
        if magnitude < 0x3FF00000:
            return h * (2.0 * t - t * t / (t + 1.0))
        return h * (t + t / (t + 1.0))
    if magnitude < 0x40862E42:  # |x| < ln(Double.MAX_VALUE)
        return h * exp(abs(x))
    if not _past_overflow_threshold(magnitude, x):
        w = exp(0.5 * abs(x))
        return (h * w) * w
    return x * 1.0e307


def cosh(x: float) -> float:
    """``StrictMath.cosh``: 1 + expm1(|x|)^2 / (2 exp(|x|)) near 0, (exp(|x|) + 1/exp(|x|)) / 2
    up to 22, then exp(|x|) / 2 (COSH(1.0) is 1.543080634815244, as PyFlink 2.3.0 prints)."""
    magnitude = _magnitude(x)
    if magnitude >= 0x7FF00000:
        return x * x
    if magnitude < 0x3FD62E43:  # |x| < ln2/2
        t = expm1(abs(x))
        w = 1.0 + t
        if magnitude < 0x3C800000:  # |x| < 2^-55
            return w
        return 1.0 + (t * t) / (w + w)
    if magnitude < 0x40360000:  # |x| < 22
        t = exp(abs(x))
        return 0.5 * t + 0.5 / t
    if magnitude < 0x40862E42:
        return 0.5 * exp(abs(x))
    if not _past_overflow_threshold(magnitude, x):
        w = exp(0.5 * abs(x))
        return (0.5 * w) * w
    return math.inf


def tanh(x: float) -> float:
    """``StrictMath.tanh``: from expm1(2|x|) (or expm1(-2|x|) below 1), 1 past 22."""
    high = _high(x)
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x7FF00000:
        return 1.0 / x + 1.0 if high >= 0 else 1.0 / x - 1.0
    if magnitude < 0x40360000:  # |x| < 22
        if magnitude < 0x3C800000:  # |x| < 2^-55
            return x * (1.0 + x)
        if magnitude >= 0x3FF00000:  # |x| >= 1
            t = expm1(2.0 * abs(x))
            z = 1.0 - 2.0 / (t + 2.0)
        else:
            t = expm1(-2.0 * abs(x))
            z = -t / (t + 2.0)
    else:
        z = 1.0
    return z if high >= 0 else -z


# -- inverse trigonometric functions ------------------------------------------------------------

_PIO2_HI = _h("0x1.921fb54442d18p0")
_PIO2_LO = _h("0x1.1a62633145c07p-54")
_PIO4_HI = _h("0x1.921fb54442d18p-1")
_PS = [_h(c) for c in ("0x1.5555555555555p-3", "-0x1.4d61203eb6f7dp-2", "0x1.9c1550e884455p-3")] + [
    _h(c) for c in ("-0x1.48228b5688f3bp-5", "0x1.9efe07501b288p-11", "0x1.23de10dfdf709p-15")
]
_QS = [_h(c) for c in ("-0x1.33a271c8a2d4bp1", "0x1.02ae59c598ac8p1", "-0x1.6066c1b8d0159p-1")] + [
    _h("0x1.3b8c5b12e9282p-4")
]


def _asin_ratio(t: float) -> tuple[float, float]:
    """The numerator and denominator of fdlibm's rational approximation R(t) of
    (asin(x) - x) / x^3, t = x^2."""
    p = t * (_PS[0] + t * (_PS[1] + t * (_PS[2] + t * (_PS[3] + t * (_PS[4] + t * _PS[5])))))
    q = 1.0 + t * (_QS[0] + t * (_QS[1] + t * (_QS[2] + t * _QS[3])))
    return p, q


def asin(x: float) -> float:
    """``StrictMath.asin``: x + x^3 R(x^2) below 0.5, else pi/2 - 2 asin(sqrt((1 - |x|) / 2))."""
    high = _high(x)
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x3FF00000:  # |x| >= 1
        if ((magnitude - 0x3FF00000) | _low(x)) == 0:
            return x * _PIO2_HI + x * _PIO2_LO
        return math.nan
    if magnitude < 0x3FE00000:  # |x| < 0.5
        if magnitude < 0x3E400000:  # |x| < 2^-27
            return x
        p, q = _asin_ratio(x * x)
        return x + x * (p / q)
    t = (1.0 - abs(x)) * 0.5
    p, q = _asin_ratio(t)
    s = math.sqrt(t)
    if magnitude >= 0x3FEF3333:  # |x| > 0.975
        result = _PIO2_HI - (2.0 * (s + s * (p / q)) - _PIO2_LO)
    else:
        w = _with_low(s, 0)
        c = (t - w * w) / (s + w)
        p = 2.0 * s * (p / q) - (_PIO2_LO - 2.0 * c)
        q = _PIO4_HI - 2.0 * w
        result = _PIO4_HI - (p - q)
    return result if high > 0 else -result


def acos(x: float) -> float:
    """``StrictMath.acos``: pi/2 - asin(x) below 0.5, from asin(sqrt((1 - |x|) / 2)) beyond."""
    high = _high(x)
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x3FF00000:  # |x| >= 1
        if ((magnitude - 0x3FF00000) | _low(x)) == 0:
            return 0.0 if high > 0 else math.pi + 2.0 * _PIO2_LO
        return math.nan
    if magnitude < 0x3FE00000:  # |x| < 0.5
        if magnitude <= 0x3C600000:  # |x| < 2^-57
            return _PIO2_HI + _PIO2_LO
        p, q = _asin_ratio(x * x)
        return _PIO2_HI - (x - (_PIO2_LO - x * (p / q)))
    if high < 0:  # x < -0.5
        z = (1.0 + x) * 0.5
        p, q = _asin_ratio(z)
        s = math.sqrt(z)
        w = (p / q) * s - _PIO2_LO
        return math.pi - 2.0 * (s + w)
    z = (1.0 - x) * 0.5
    s = math.sqrt(z)
    df = _with_low(s, 0)
    c = (z - df * df) / (s + df)
    p, q = _asin_ratio(z)
    return 2.0 * (df + ((p / q) * s + c))


_ATAN_HI = [_h(c) for c in ("0x1.dac670561bb4fp-2", "0x1.921fb54442d18p-1", "0x1.f730bd281f69bp-1")] + [
    _h("0x1.921fb54442d18p0")
]
_ATAN_LO = [_h(c) for c in ("0x1.a2b7f222f65e2p-56", "0x1.1a62633145c07p-55", "0x1.007887af0cbbdp-56")] + [
    _h("0x1.1a62633145c07p-54")
]
_AT = [
    _h(c)
    for c in (
        "0x1.555555555550dp-2",
        "-0x1.999999998ebc4p-3",
        "0x1.24924920083ffp-3",
        "-0x1.c71c6fe231671p-4",
        "0x1.745cdc54c206ep-4",
        "-0x1.3b0f2af749a6dp-4",
        "0x1.10d66a0d03d51p-4",
        "-0x1.dde2d52defd9ap-5",
        "0x1.97b4b24760debp-5",
        "-0x1.2b4442c6a6c2fp-5",
        "0x1.0ad3ae322da11p-6",
    )
]


def atan(x: float) -> float:
    """``StrictMath.atan``: |x| reduced to [0, 7/16] by atan(1/2), atan(1), atan(3/2) or
    atan(inf), then an odd polynomial."""
    high = _high(x)
    magnitude = high & 0x7FFFFFFF
    if magnitude >= 0x44100000:  # |x| >= 2^66
        if x != x:
            return x + x
        return _ATAN_HI[3] + _ATAN_LO[3] if high > 0 else -_ATAN_HI[3] - _ATAN_LO[3]
    if magnitude < 0x3FDC0000:  # |x| < 7/16
        if magnitude < 0x3E200000:  # |x| < 2^-29
            return x
        index = -1
    else:
        x = abs(x)
        if magnitude < 0x3FF30000:  # |x| < 19/16
            if magnitude < 0x3FE60000:  # < 11/16
                index, x = 0, (2.0 * x - 1.0) / (2.0 + x)
            else:
                index, x = 1, (x - 1.0) / (x + 1.0)
        elif magnitude < 0x40038000:  # |x| < 39/16
            index, x = 2, (x - 1.5) / (1.0 + 1.5 * x)
        else:
            index, x = 3, -1.0 / x
    z = x * x
    w = z * z
    s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
    s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
    if index < 0:
        return x - x * (s1 + s2)
    z = _ATAN_HI[index] - ((x * (s1 + s2) - _ATAN_LO[index]) - x)
    return -z if high < 0 else z


_PI_O_4 = _h("0x1.921fb54442d18p-1")
_PI_O_2 = _h("0x1.921fb54442d18p0")
_PI_LO = _h("0x1.1a62633145c07p-53")
_TINY = 1.0e-300


def atan2(y: float, x: float) -> float:  # noqa: C901 - fdlibm's special cases, one after the other
    """``StrictMath.atan2``: the angle of (x, y), from atan(|y / x|) and the quadrant."""
    if x != x or y != y:
        return x + y
    high_x, high_y = _high(x), _high(y)
    mag_x, mag_y = high_x & 0x7FFFFFFF, high_y & 0x7FFFFFFF
    if ((high_x - 0x3FF00000) | _low(x)) == 0:  # x = 1.0
        return atan(y)
    quadrant = ((high_y >> 31) & 1) | ((high_x >> 30) & 2)  # 2 * sign(x) + sign(y)
    if (mag_y | _low(y)) == 0:  # y = 0
        return y if quadrant < 2 else (math.pi + _TINY if quadrant == 2 else -math.pi - _TINY)
    if (mag_x | _low(x)) == 0:  # x = 0
        return -_PI_O_2 - _TINY if high_y < 0 else _PI_O_2 + _TINY
    if mag_x == 0x7FF00000:  # x infinite
        if mag_y == 0x7FF00000:
            return (_PI_O_4 + _TINY, -_PI_O_4 - _TINY, 3.0 * _PI_O_4 + _TINY, -3.0 * _PI_O_4 - _TINY)[
                quadrant
            ]
        return (0.0, -0.0, math.pi + _TINY, -math.pi - _TINY)[quadrant]
    if mag_y == 0x7FF00000:  # y infinite
        return -_PI_O_2 - _TINY if high_y < 0 else _PI_O_2 + _TINY
    k = (mag_y - mag_x) >> 20
    if k > 60:  # |y / x| > 2^60
        z = _PI_O_2 + 0.5 * _PI_LO
    elif high_x < 0 and k < -60:  # |y| / x < -2^60
        z = 0.0
    else:
        z = atan(abs(y / x))
    if quadrant == 0:
        return z
    if quadrant == 1:
        return -z
    if quadrant == 2:
        return math.pi - (z - _PI_LO)
    return (z - _PI_LO) - math.pi
