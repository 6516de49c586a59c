"""Python functions ``CREATE FUNCTION ... AS 'tests.unit.table.ddl_udfs.plus_one' LANGUAGE
PYTHON`` names in ``pyflink_transcripts/functions.txt`` (PyFlink 2.3.0 ran the transcript with
this module, its imports from ``pyflink``)."""

from __future__ import annotations

from millstream.table import DataTypes
from millstream.table.udf import udf


@udf(result_type=DataTypes.BIGINT())
def plus_one(x: int) -> int:
    return x + 1


@udf(result_type=DataTypes.BIGINT())
def times_two(x: int) -> int:
    return x * 2


def plain(x: int) -> int:
    """No user-defined function: a call of it fails."""
    return x + 1
