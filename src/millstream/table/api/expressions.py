# ruff: noqa: F822 - some names of __all__ come from expression_functions through __getattr__
"""The Table API's expressions, as ``pyflink.table.expressions`` (``col``, ``lit``, ``and_`` ...).

The functions here build expression trees (``expression/expression.py``); ``expression/resolved.py`` has the
typing rules they resolve by (Flink's: literals are ``NOT NULL``, ``lit(7)`` is INT, integer
division truncates toward zero as Java's ...). Importing this module also gives expressions
the Table API's methods that call built-in functions (``api/expression_methods.py``).
"""

from typing import Any

from millstream.table.api import expression_functions, json_expressions
from millstream.table.api.expression_methods import install_methods
from millstream.table.expression.expression import (
    AggregateCall,
    Compiled,
    Expression,
    RowInterval,
    _Interval,
    col,
    lit,
)
from millstream.table.expression.logic import and_, if_then_else, not_, or_
from millstream.table.functions.builtins import call_builtin
from millstream.table.functions.lookup import call

install_methods()  # col('s').upper_case, .substring(1, 2) ... on every expression

__all__ = [
    "CURRENT_RANGE",
    "CURRENT_ROW",
    "UNBOUNDED_RANGE",
    "UNBOUNDED_ROW",
    "AggregateCall",
    "Compiled",
    "Expression",
    "and_",
    "array",
    "atan2",
    "call",
    "call_sql",
    "coalesce",
    "col",
    "concat",
    "concat_ws",
    "convert_tz",
    "current_database",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_watermark",
    "date_format",
    "descriptor",
    "e",
    "from_unixtime",
    "if_then_else",
    "json",
    "json_array",
    "json_array_agg",
    "json_object",
    "json_object_agg",
    "json_string",
    "lit",
    "local_time",
    "local_timestamp",
    "log",
    "map_",
    "negative",
    "not_",
    "null_of",
    "or_",
    "pi",
    "rand",
    "rand_integer",
    "range_",
    "row",
    "row_interval",
    "source_watermark",
    "temporal_overlaps",
    "timestamp_diff",
    "to_date",
    "to_timestamp",
    "to_timestamp_ltz",
    "unix_timestamp",
    "uuid",
    "with_columns",
    "without_columns",
]


def concat(first: Any, *others: Any) -> Expression:
    """The strings joined (NULL if any is NULL)."""
    return call_builtin("CONCAT", first, *others)


def concat_ws(separator: Any, first: Any, *others: Any) -> Expression:
    """The non-NULL strings joined by ``separator``."""
    return call_builtin("CONCAT_WS", separator, first, *others)


def coalesce(*args: Any) -> Expression:
    """The first non-NULL argument."""
    return call_builtin("COALESCE", *args)


def to_timestamp_ltz(*args: Any) -> Expression:
    """A TIMESTAMP_LTZ of an epoch number: ``(numeric, precision)``, seconds for precision 0,
    milliseconds for 3 (PyFlink's signature takes ``*args``)."""
    return call_builtin("TO_TIMESTAMP_LTZ", *args)


def date_format(timestamp: Any, format: Any) -> Expression:
    """The timestamp as text in a Java date-time ``format``."""
    return call_builtin("DATE_FORMAT", timestamp, format)


def row_interval(rows: int) -> Expression:
    """An interval of ``rows`` rows (over windows)."""
    return RowInterval(lit(rows))


UNBOUNDED_ROW = RowInterval(lit(-1))
UNBOUNDED_RANGE = _Interval(lit(-1), 1)
CURRENT_ROW = RowInterval(lit(0))
CURRENT_RANGE = _Interval(lit(0), 1)


def __getattr__(name: str) -> Any:
    """The functions of ``expression_functions`` (``pi``, ``array``, ``with_columns`` ...) and
    ``json_expressions`` (``json_object`` ...) under
    this module's name, as PyFlink's ``pyflink.table.expressions`` has them; imported when first
    asked for (that module builds on this one)."""
    if name in expression_functions.__all__:
        return getattr(expression_functions, name)
    if name in json_expressions.__all__:
        return getattr(json_expressions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
