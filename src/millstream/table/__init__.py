"""``pyflink.table`` names that the DataStream formats use (``DataTypes``); no Table API."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.types": ("DataType", "DataTypes", "RowType"),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.table.types import DataType as DataType
    from millstream.table.types import DataTypes as DataTypes
    from millstream.table.types import RowType as RowType
