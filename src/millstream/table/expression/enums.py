"""PyFlink's enums of the expression methods' arguments (``col('ts').floor(TimeIntervalUnit.DAY)``,
``json_value(..., JsonValueOnEmptyOrError.NULL)``)."""

from __future__ import annotations

from enum import Enum

__all__ = ["JsonValueOnEmptyOrError", "TimeIntervalUnit"]

TimeIntervalUnit = Enum(
    "TimeIntervalUnit",
    "YEAR YEAR_TO_MONTH QUARTER MONTH WEEK DAY DAY_TO_HOUR DAY_TO_MINUTE DAY_TO_SECOND HOUR SECOND "
    "HOUR_TO_MINUTE HOUR_TO_SECOND MINUTE MINUTE_TO_SECOND",
    start=0,
)
JsonValueOnEmptyOrError = Enum("JsonValueOnEmptyOrError", "NULL ERROR DEFAULT", start=0)
