"""Test utilities shipped with millstream: operator harnesses."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.testing.operator_harness": ("OperatorHarness",),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.testing.operator_harness import OperatorHarness as OperatorHarness
