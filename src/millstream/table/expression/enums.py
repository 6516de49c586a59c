"""PyFlink's enums of the expression methods' and functions' arguments
(``col('ts').floor(TimeIntervalUnit.DAY)``, ``json_value(..., JsonValueOnEmptyOrError.NULL)``,
``timestamp_diff(TimePointUnit.DAY, a, b)``, ``json_object(JsonOnNull.ABSENT, ...)``), with
``pyflink.table.expression``'s members in its order."""

from __future__ import annotations

from enum import Enum

__all__ = [
    "JsonExistsOnError",
    "JsonOnNull",
    "JsonQueryOnEmptyOrError",
    "JsonQueryWrapper",
    "JsonType",
    "JsonValueOnEmptyOrError",
    "TimeIntervalUnit",
    "TimePointUnit",
]

TimeIntervalUnit = Enum(
    "TimeIntervalUnit",
    "YEAR YEAR_TO_MONTH QUARTER MONTH WEEK DAY DAY_TO_HOUR DAY_TO_MINUTE DAY_TO_SECOND HOUR SECOND "
    "HOUR_TO_MINUTE HOUR_TO_SECOND MINUTE MINUTE_TO_SECOND",
    start=0,
)
# the units of timestamp_diff (Flink's TimePointUnit)
TimePointUnit = Enum(
    "TimePointUnit", "YEAR MONTH DAY HOUR MINUTE SECOND QUARTER WEEK MILLISECOND MICROSECOND", start=0
)
JsonType = Enum("JsonType", "VALUE SCALAR ARRAY OBJECT", start=0)
JsonExistsOnError = Enum("JsonExistsOnError", "TRUE FALSE UNKNOWN ERROR", start=0)
JsonValueOnEmptyOrError = Enum("JsonValueOnEmptyOrError", "NULL ERROR DEFAULT", start=0)
JsonQueryWrapper = Enum("JsonQueryWrapper", "WITHOUT_ARRAY CONDITIONAL_ARRAY UNCONDITIONAL_ARRAY", start=0)
JsonQueryOnEmptyOrError = Enum("JsonQueryOnEmptyOrError", "NULL EMPTY_ARRAY EMPTY_OBJECT ERROR", start=0)
# what json_object / json_array / their aggregates write for a NULL value: null, or nothing
JsonOnNull = Enum("JsonOnNull", "NULL ABSENT", start=0)
