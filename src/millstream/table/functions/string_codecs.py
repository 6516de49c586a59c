"""Flink's encoding, hashing and address functions of strings and bytes as Flink 2.3 computes
them (``functions/strings.py`` defines them): ENCODE / DECODE with Java's charsets (an unknown
charset fails as Java's does), TO_BASE64 / FROM_BASE64, ASCII, CHR (the code modulo 256), HEX /
UNHEX / BIN, MD5 / SHA1 / SHA2 / SHA224 ... of text (UTF-8) and bytes, URL_ENCODE / URL_DECODE
(``java.net.URLEncoder``: ``+`` for a space), PARSE_URL (``java.net.URL``'s parts) and
INET_ATON / INET_NTOA (the forms MySQL reads: ``a.b.c.d``, ``a.b.d``, ``a.d``, ``d``)."""

from __future__ import annotations

import base64
import binascii
import codecs
import hashlib
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

__all__ = []


# -- encoding ---------------------------------------------------------------------------------------

_CHARSETS = {
    "UTF-8": "utf-8",
    "UTF8": "utf-8",
    "US-ASCII": "ascii",
    "ASCII": "ascii",
    "ISO-8859-1": "latin-1",
    "LATIN1": "latin-1",
    "UTF-16BE": "utf-16-be",
    "UTF-16LE": "utf-16-le",
    "UTF-32": "utf-32-be",
    "UTF-32BE": "utf-32-be",
    "UTF-32LE": "utf-32-le",
}


def _codec(charset: str) -> str:
    name = charset.upper()
    if name in ("UTF-16", "UTF16"):
        return "utf-16"
    if name in _CHARSETS:
        return _CHARSETS[name]
    try:
        return codecs.lookup(charset).name
    except LookupError as err:
        raise ValueError(f"java.io.UnsupportedEncodingException: {charset}") from err


def _encode(text: str, charset: str) -> bytes:
    """ENCODE: Java's ``String.getBytes(charset)`` (an unmappable character is ``?``, UTF-16
    starts with a big-endian byte order mark)."""
    codec = _codec(charset)
    if codec == "utf-16":
        return b"\xfe\xff" + text.encode("utf-16-be", "replace")
    encoded = text.encode(codec, "replace")
    return encoded


def _decode(data: bytes, charset: str) -> str:
    """DECODE: Java's ``new String(bytes, charset)`` (malformed input is U+FFFD; UTF-16 read
    by its byte order mark, big-endian without one)."""
    codec = _codec(charset)
    data = bytes(data)
    if codec == "utf-16":
        if data[:2] == b"\xff\xfe":
            return data[2:].decode("utf-16-le", "replace")
        return (data[2:] if data[:2] == b"\xfe\xff" else data).decode("utf-16-be", "replace")
    return data.decode(codec, "replace")


def _utf8(value: Any) -> bytes:
    return bytes(value) if isinstance(value, (bytes, bytearray, memoryview)) else str(value).encode("utf-8")


def _to_base64(value: Any) -> str:
    return base64.b64encode(_utf8(value)).decode("ascii")


_BASE64 = re.compile(r"[A-Za-z0-9+/]*(=|==)?")


def _from_base64(value: Any) -> str:
    """FROM_BASE64: Java's basic decoder (padding optional, nothing else outside the
    alphabet), the bytes read as UTF-8."""
    text = _utf8(value).decode("latin-1")
    for char in text:
        if not (char.isascii() and (char.isalnum() or char in "+/=")):
            raise ValueError(f"Illegal base64 character {ord(char):x}")
    if _BASE64.fullmatch(text) is None or len(text.rstrip("=")) % 4 == 1:
        raise ValueError(f"Input byte array has incorrect ending byte at {text.find('=')}")
    padded = text + "=" * (-len(text) % 4)
    try:
        return base64.b64decode(padded, validate=True).decode("utf-8", "replace")
    except binascii.Error as err:
        raise ValueError(str(err)) from err


def _ascii(text: str) -> int:
    """ASCII: the first byte of the UTF-8 text as Java's signed byte (0 for '')."""
    if text == "":
        return 0
    first = text.encode("utf-8")[0]
    return first - 256 if first > 127 else first


def _chr(code: int) -> str:
    """CHR: the character of the code's low byte ('' for a negative code)."""
    return "" if code < 0 else chr(code & 0xFF)


def _hex(value: Any) -> str:
    """HEX of a number (Java's ``Long.toHexString``) or of text (its UTF-8 bytes)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return format(value & 0xFFFFFFFFFFFFFFFF, "X")
    return _utf8(value).hex().upper()


def _bin(value: int) -> str:
    return format(value & 0xFFFFFFFFFFFFFFFF, "b")


def _unhex(text: str) -> bytes | None:
    """UNHEX: pairs of hex digits from the end; of an odd count the first digit is checked
    but not used (``'ABC'`` is ``x'00bc'``, as Flink's); NULL for another character."""
    out = bytearray((len(text) + 1) // 2)
    j = len(out) - 1
    i = len(text) - 2
    while i >= 0:
        pair = text[i : i + 2]
        if not all(c in "0123456789abcdefABCDEF" for c in pair):
            return None
        out[j] = int(pair, 16)
        j -= 1
        i -= 2
    if i == -1 and text[0] not in "0123456789abcdefABCDEF":
        return None
    return bytes(out)


def _digest(name: str) -> Callable[[Any], str]:
    return lambda value: hashlib.new(name, _utf8(value)).hexdigest()


def _sha2(value: Any, bits: int) -> str:
    names = {224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}
    if bits not in names:
        raise ValueError("Unsupported algorithm.")
    return hashlib.new(names[bits], _utf8(value)).hexdigest()


# -- URLs and addresses -----------------------------------------------------------------------------


def _url_encode(text: str) -> str:
    """``URLEncoder.encode(text, UTF-8)``: ``+`` for a space, ``*-._`` kept."""
    return urllib.parse.quote_plus(text, safe="*-._~").replace("~", "%7E")


_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _url_decode(text: str) -> str | None:
    """``URLDecoder.decode(text, UTF-8)``: NULL for a ``%`` not followed by two hex digits."""
    if _PERCENT.search(text):
        return None
    return urllib.parse.unquote_plus(text, errors="replace")


_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?", re.DOTALL)


def _parse_url(url: str, part: str, key: str | None = None) -> str | None:
    """PARSE_URL (``java.net.URL``'s parts: HOST, PATH, QUERY, REF, PROTOCOL, AUTHORITY, FILE,
    USERINFO; QUERY with a key: its first value)."""
    found = _URL.fullmatch(url)
    if found is None or (found.group(3) and "[" in found.group(3) and "]" not in found.group(3)):
        return None
    protocol, authority, path, query, ref = (
        found.group(1),
        found.group(3),
        found.group(4),
        found.group(6),
        found.group(8),
    )
    userinfo, _, host_port = (authority or "").rpartition("@")
    host = re.sub(r":\d*$", "", host_port) if authority is not None else None
    if key is not None:
        if part != "QUERY":
            return None
        value = re.search(f"(&|^){re.escape(key)}=([^&]*)", query or "")
        return value.group(2) if value else None
    parts = {
        "HOST": host,
        "PATH": path,
        "QUERY": query,
        "REF": ref,
        "PROTOCOL": protocol,
        "AUTHORITY": authority,
        "FILE": path + (f"?{query}" if query is not None else ""),
        "USERINFO": userinfo or None,
    }
    return parts.get(part)


def _inet_aton(text: str) -> int | None:
    """INET_ATON: 1 to 4 dot-separated decimal parts of at most 255 (``a.b`` is a.0.0.b,
    ``a.b.c`` a.b.0.c); NULL otherwise."""
    parts = text.split(".")
    if text == "" or len(parts) > 4 or not all(p.isdigit() and p.isascii() for p in parts):
        return None
    values = [int(p) for p in parts]
    if any(v > 255 for v in values):
        return None
    shifts = {1: [0], 2: [24, 0], 3: [24, 16, 0], 4: [24, 16, 8, 0]}[len(values)]
    return sum(v << s for v, s in zip(values, shifts, strict=True))


def _inet_ntoa(value: int) -> str | None:
    if not 0 <= value <= 0xFFFFFFFF:
        return None
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))
