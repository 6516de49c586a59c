"""Test utilities shipped with millstream: operator harnesses."""

from millstream.testing.operator_harness import OperatorHarness

__all__ = ["OperatorHarness"]
