"""Expression trees (Flink's ``org.apache.flink.table.expressions``): the ``Expression`` nodes,
walking and rewriting them (``walk``), calls of built-in functions (``calls``), and resolved,
typed expressions (``resolved``: Flink's ``ExpressionResolver`` and typing rules).

The package is also PyFlink's module path ``pyflink.table.expression``: it offers that module's
names lazily (importing the package imports none of its modules).
"""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.expression.expression": (
            "AggregateCall",
            "Expression",
            "JsonValueOnEmptyOrError",
            "Ordering",
            "RowInterval",
            "TimeIntervalUnit",
            "WindowProperty",
        ),
        "millstream.table.expression.resolved": ("Compiled",),
        "millstream.table.expression.enums": (
            "JsonExistsOnError",
            "JsonOnNull",
            "JsonQueryOnEmptyOrError",
            "JsonQueryWrapper",
            "JsonType",
            "TimePointUnit",
        ),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.table.expression.enums import JsonExistsOnError as JsonExistsOnError
    from millstream.table.expression.enums import JsonOnNull as JsonOnNull
    from millstream.table.expression.enums import JsonQueryOnEmptyOrError as JsonQueryOnEmptyOrError
    from millstream.table.expression.enums import JsonQueryWrapper as JsonQueryWrapper
    from millstream.table.expression.enums import JsonType as JsonType
    from millstream.table.expression.enums import TimePointUnit as TimePointUnit
    from millstream.table.expression.expression import AggregateCall as AggregateCall
    from millstream.table.expression.expression import Expression as Expression
    from millstream.table.expression.expression import JsonValueOnEmptyOrError as JsonValueOnEmptyOrError
    from millstream.table.expression.expression import Ordering as Ordering
    from millstream.table.expression.expression import RowInterval as RowInterval
    from millstream.table.expression.expression import TimeIntervalUnit as TimeIntervalUnit
    from millstream.table.expression.expression import WindowProperty as WindowProperty
    from millstream.table.expression.resolved import Compiled as Compiled
