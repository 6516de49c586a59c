"""The sentinel an aggregate's argument gives for a row its ``FILTER (WHERE ...)`` leaves out."""

__all__ = ["SKIP"]


class SKIP:  # a sentinel: the argument of a row an aggregate's FILTER (WHERE ...) leaves out
    """Passed to an accumulator for a row ``FILTER (WHERE ...)`` leaves out. A class, so that
    a pickled closure refers to this one in every process (an ``object()`` would be copied)."""
