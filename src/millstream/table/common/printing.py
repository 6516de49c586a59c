"""Printing tables as Flink does: schemas (``print_schema``) and results in tableau form.

Flink 2.3's rules, as PyFlink 2.3 prints them (observed; the tests quote its output)::

    +----+----------------------+--------------------------------+--------+
    | op |                   id |                           name |   flag |
    +----+----------------------+--------------------------------+--------+
    | +I |                    1 |                              a |   TRUE |
    | -U |               <NULL> | a very long string that is ... |  FALSE |
    +----+----------------------+--------------------------------+--------+
    2 rows in set

* a column is as wide as the widest of its name, ``<NULL>`` and its type's width (BIGINT
  20, INT 11, SMALLINT 6, TINYINT 4, BOOLEAN 5, DECIMAL(p, s) p + 2, DATE 10, TIME 8 (+ 1 +
  precision), TIMESTAMP 19 / 23 / 26 / 29 by precision, everything else 30): the width never
  depends on the rows, so a changelog prints as it comes;
* cells are right-aligned; longer ones are cut to the width with ``...``; East Asian wide
  characters count twice;
* values read as SQL's CAST to STRING: ``TRUE``/``FALSE``, doubles as Java writes them
  (``1.0E7``, ``9.9E-4``), decimals with their scale, timestamps with their precision's
  digits, bytes as ``x'01ff'``, arrays ``[1, NULL]``, maps ``{k=1}``, rows ``(1, x)``;
* streaming results carry the ``op`` column (``+I``, ``-U``, ``+U``, ``-D``); no rows print
  ``Empty set``.
"""

from __future__ import annotations

import datetime
import decimal
import struct
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from millstream.table.common.casts import format_java_double, format_java_float, to_string
from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH
from millstream.table.common.java_hashes import hash_map_order
from millstream.table.common.multiset_type import MultisetType
from millstream.table.common.timestamps import (
    java_instant_string,
    java_local_date_time_string,
    java_local_time_string,
)
from millstream.table.common.types import ArrayType, DataType, MapType, RowType

__all__ = [
    "NULL_COLUMN",
    "column_width",
    "format_java_double",
    "format_java_float",
    "format_value",
    "java_hash_map_order",
    "print_schema",
    "row_to_string",
    "summary_string",
    "tableau",
]

MAX_COLUMN_WIDTH = 30
NULL_COLUMN = "<NULL>"
ROW_KIND_COLUMN = "op"
_TRUNCATED = "..."
_MAX_LENGTH = 2**31 - 1

_WIDTHS = {"TINYINT": 4, "SMALLINT": 6, "INT": 11, "BIGINT": 20, "BOOLEAN": 5, "DATE": 10}


# -- types ------------------------------------------------------------------------------------------


def summary_string(data_type: DataType) -> str:
    """Flink's summary string of a type: ``BIGINT``, ``STRING NOT NULL``, ``DECIMAL(10, 2)``,
    ``TIMESTAMP(3)``, ``ARRAY<INT>``, ``MAP<STRING, INT>``, ``ROW<`a` INT, `b` STRING>``."""
    text = _sql(data_type)
    return text if data_type.is_nullable() else f"{text} NOT NULL"


def _sql(t: DataType) -> str:
    if isinstance(t, ArrayType):
        return f"ARRAY<{summary_string(t.element_type)}>"
    if isinstance(t, MultisetType):
        return f"MULTISET<{summary_string(t.element_type)}>"
    if isinstance(t, MapType):
        return f"MAP<{summary_string(t.key_type)}, {summary_string(t.value_type)}>"
    if isinstance(t, RowType):
        return "ROW<" + ", ".join(f"`{f.name}` {summary_string(f.data_type)}" for f in t.fields) + ">"
    root, params = t.root, t.params
    if root == "VARCHAR" and params and params[0] == _MAX_LENGTH:
        return "STRING"
    if root == "VARBINARY" and params and params[0] == _MAX_LENGTH:
        return "BYTES"
    if root == "DECIMAL":
        return f"DECIMAL({params[0]}, {params[1]})"
    if root == YEAR_MONTH:  # every year-month interval, as Flink's planner types it
        return "INTERVAL MONTH"
    if root == DAY_TIME:  # every day-time interval: milliseconds
        return f"INTERVAL SECOND({params[0] if params else 3})"
    if root in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "CHAR", "VARCHAR", "BINARY", "VARBINARY") and params:
        return f"{root}({params[0]})"
    if root == "TIMESTAMP":
        return "TIMESTAMP(6)"
    return root


def print_schema(
    names: Sequence[str],
    types: Sequence[DataType],
    rowtime: int | None = None,
    watermark: str | None = None,
    proctime: int | None = None,
    computed: dict[str, str] | None = None,
    metadata: dict[str, tuple[str | None, bool]] | None = None,
    primary_key: Sequence[str] | None = None,
    primary_key_name: str | None = None,
) -> str:
    """``Table.print_schema``'s text (without the final newline); ``rowtime``: the index of the
    event-time attribute (``*ROWTIME*``), ``watermark``: its watermark expression;
    ``proctime``: the processing-time attribute's (``*PROCTIME*``); ``metadata``: the metadata
    columns (name -> (key as declared or None, virtual)); ``primary_key``: its columns, NOT
    NULL, and the constraint line Flink prints (``CONSTRAINT `PK_a_b` PRIMARY KEY ...``, or the
    ``primary_key_name`` given)."""
    lines = []
    keys = list(primary_key or [])
    for i, (name, t) in enumerate(zip(names, types, strict=True)):
        marker = " *ROWTIME*" if i == rowtime else " *PROCTIME*" if i == proctime else ""
        shown, expression = column_text(name, t, computed, metadata, keys)
        lines.append(f"  `{name}` {shown}{marker}{expression}")
    if watermark is not None and rowtime is not None:
        lines.append(f"  WATERMARK FOR `{names[rowtime]}`: {summary_string(types[rowtime])} AS {watermark}")
    if keys:
        columns = ", ".join(f"`{k}`" for k in keys)
        name = primary_key_name or f"PK_{'_'.join(keys)}"
        lines.append(f"  CONSTRAINT `{name}` PRIMARY KEY ({columns}) NOT ENFORCED")
    columns = ",\n".join(lines)
    return f"(\n{columns}\n)"


def column_text(
    name: str,
    t: DataType,
    computed: dict[str, str] | None,
    metadata: dict[str, tuple[str | None, bool]] | None,
    primary_key: Sequence[str],
) -> tuple[str, str]:
    """A declared column as Flink's schemas print it: its type (NOT NULL in the primary key)
    and what follows (`` AS expr`` of a computed column, `` METADATA [FROM 'key'] [VIRTUAL]``)."""
    shown = summary_string(t.not_null() if name in primary_key else t)
    if computed and name in computed:
        return shown, f" AS {computed[name]}"
    if metadata and name in metadata:
        key, virtual = metadata[name]
        return shown, " METADATA" + (f" FROM '{key}'" if key is not None else "") + (
            " VIRTUAL" if virtual else ""
        )
    return shown, ""


def _precision(t: DataType, default: int) -> int:
    return int(t.params[0]) if t.params else default


def column_width(t: DataType, max_width: int = MAX_COLUMN_WIDTH) -> int:
    """The width Flink gives a column of type ``t`` (before its name and ``<NULL>``): the
    type's own, else ``max_width`` (``table.display.max-column-width``)."""
    root = t.root
    if root in _WIDTHS:
        return _WIDTHS[root]
    if root == "DECIMAL":
        return int(t.params[0]) + 2
    if root == "TIME":
        precision = _precision(t, 0)
        return 8 if precision == 0 else precision + 9
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = _precision(t, 6)
        return 19 if precision == 0 else 19 + (4 if precision <= 3 else 7 if precision <= 6 else 10)
    return max_width


def java_hash_map_order(keys: Sequence[str]) -> list[str]:
    """String keys in the order a Java ``HashMap`` they were put into (in this order) iterates
    them: by bucket (``hashCode`` spread, over the table's power-of-two capacity, 16 at least,
    doubled past a load of 0.75), then insertion: how Flink prints a map of options."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = 0
        for unit in struct.unpack(f">{len(key.encode('utf-16-be')) // 2}H", key.encode("utf-16-be")):
            h = (31 * h + unit) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    position = {key: i for i, key in enumerate(keys)}
    return sorted(keys, key=lambda k: (bucket(k), position[k]))


# -- values -----------------------------------------------------------------------------------------


def format_value(t: DataType, value: Any) -> str:
    """A cell's text: ``value`` cast to STRING as Flink's SQL does (None: ``<NULL>``; bytes as
    ``x'0102'``: ``common/casts.py``'s printing form)."""
    return NULL_COLUMN if value is None else to_string(t, value, printing=True)


# -- the tableau ----------------------------------------------------------------------------------------


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("F", "W") else 1 for c in text)


def _cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` display columns, ending in ``...``."""
    target = width - len(_TRUNCATED)
    used, end = 0, 0
    for end, char in enumerate(text):  # noqa: B007 - the index where the room ran out
        used += 2 if unicodedata.east_asian_width(char) in ("F", "W") else 1
        if used > target:
            break
    else:
        end = len(text)
    head = text[:end]
    return " " * (target - _display_width(head)) + head + _TRUNCATED


def _line(widths: Sequence[int], cells: Sequence[str]) -> str:
    parts = []
    for width, cell in zip(widths, cells, strict=True):
        shown = _display_width(cell)
        parts.append(" " * (width - shown) + cell if shown <= width else _cut(cell, width))
    return "| " + " | ".join(parts) + " |"


def tableau(
    names: Sequence[str],
    types: Sequence[DataType],
    rows: Iterable[Any],
    with_kinds: bool = False,
    content_widths: bool = False,
    max_width: int = MAX_COLUMN_WIDTH,
) -> Iterable[str]:
    """The lines of a result in tableau form, as the rows come (``with_kinds``: the rows are
    ``(kind, values)`` pairs of a streaming result, ``kind`` being ``+I``/``-U``/``+U``/``-D``;
    otherwise plain values and no ``op`` column). ``content_widths``: each column as wide as
    its name and widest cell (Flink's widths for a SHOW statement's few rows, read first);
    ``max_width``: the width of a column whose type has none of its own (PyFlink's
    ``table.display.max-column-width``, 30 by default).

    Raises:
        ValueError: a value cannot be printed as its column's type (naming the column and row).
    """
    if content_widths:
        rows = list(rows)
        shown = [r[1] if with_kinds else r for r in rows]
        texts = [[format_value(t, v) for t, v in zip(types, r, strict=True)] for r in shown]
        widths = [max([len(name), *(_display_width(c[i]) for c in texts)]) for i, name in enumerate(names)]
    else:
        typed_names = zip(names, types, strict=True)
        widths = [max(len(n), column_width(t, max_width), len(NULL_COLUMN)) for n, t in typed_names]
    header = list(names)
    if with_kinds:
        widths.insert(0, len(ROW_KIND_COLUMN))
        header.insert(0, ROW_KIND_COLUMN)
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    count = 0
    for row in rows:
        if count == 0:
            yield border
            yield _line(widths, header)
            yield border
        kind, values = row if with_kinds else ("", row)
        typed = enumerate(zip(types, values, strict=True))
        cells = [_cell(names[i], t, v, count + 1) for i, (t, v) in typed]
        yield _line(widths, [kind, *cells] if with_kinds else cells)
        count += 1
    if count == 0:
        yield "Empty set"
        return
    yield border
    yield f"{count} {'row' if count == 1 else 'rows'} in set"


def _cell(name: str, t: DataType, value: Any, row: int) -> str:
    """A cell's text; a value its type cannot print fails in one line naming its column."""
    try:
        return format_value(t, value)
    except Exception as error:
        raise ValueError(
            f"cannot print column '{name}' of row {row}: {value!r} is not a {summary_string(t)} value "
            f"({type(error).__name__}: {error})"
        ) from None


def _java_string(t: DataType, value: Any) -> str:
    """A value as the Java object it is outside Flink's runtime prints inside a ``Row``
    (``RowUtils.deepToStringRow``): ``true``, ``null``, doubles as Java's, decimals as
    ``BigDecimal.toString`` (``1.50``, ``1E-8``), ``LocalDate``, ``LocalTime`` (``03:04``),
    ``LocalDateTime`` (``2024-01-02T03:04:05.500``) and ``Instant`` (``...Z``), bytes as Java's
    signed ``[1, -128]``, arrays ``[1, null]``, maps and multisets ``{k=1}`` in the order of a
    ``java.util.HashMap`` of the keys' Java classes, rows ``+I[1, x]``. PyFlink 2.3.0's print
    connector writes ``+I[[1, 0, 0], [true, false], +I[x, 0.1, null], {zz=4, Aa=5, a=2}]``."""
    if value is None:
        return "null"
    root = t.root
    if root == "BOOLEAN":
        return "true" if value else "false"
    if root in ("DOUBLE", "FLOAT"):
        return format_java_double(float(value)) if root == "DOUBLE" else format_java_float(float(value))
    if root == "DECIMAL" and len(t.params) == 2:  # Java's BigDecimal.toString is the same rule
        return str(decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-int(t.params[1]))))
    if root == "TIME" and isinstance(value, datetime.time):
        return java_local_time_string(value)
    if root == "TIMESTAMP" and isinstance(value, datetime.datetime):
        return java_local_date_time_string(value)
    if root == "TIMESTAMP_LTZ" and isinstance(value, datetime.datetime):
        return java_instant_string(value)
    if root in ("BINARY", "VARBINARY", "BYTES"):  # Arrays.toString(byte[])
        return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in bytes(value)) + "]"
    if isinstance(t, MapType):  # a MULTISET too: a map of each element to its count
        entries = dict(value.items() if isinstance(value, dict) else value)
        keys = hash_map_order(entries, t.key_type, external=True)
        return (
            "{"
            + ", ".join(
                f"{_java_string(t.key_type, k)}={_java_string(t.value_type, entries[k])}" for k in keys
            )
            + "}"
        )
    if isinstance(t, ArrayType):
        return "[" + ", ".join(_java_string(t.element_type, v) for v in value) + "]"
    if isinstance(t, RowType):
        fields = zip(t.field_types(), value, strict=False)
        return "+I[" + ", ".join(_java_string(f, v) for f, v in fields) + "]"
    return to_string(t, value, printing=True)


def row_to_string(kind: str, values: Sequence[Any], types: Sequence[DataType]) -> str:
    """A change as Flink's print connector writes it: ``+I[To, 1]``, ``-U[the, 1]``."""
    return f"{kind}[{', '.join(_java_string(t, v) for t, v in zip(types, values, strict=True))}]"
