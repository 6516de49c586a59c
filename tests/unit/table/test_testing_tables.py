"""millstream.testing.tables: printed output cut into parts, changelogs folded strictly."""

from __future__ import annotations

from collections import Counter

import pytest

from millstream.testing.tables import fold_changelog, printed_parts


def test_printed_parts_cut_after_each_schema_and_table() -> None:
    text = "(\n  `a` INT\n)\n+--+\n| a |\n+--+\n1 row in set\n+I[1]\n"
    assert printed_parts(text) == [
        ["(", "  `a` INT", ")"],
        ["+--+", "| a |", "+--+", "1 row in set"],
        ["+I[1]"],
    ]


def test_fold_keeps_what_the_changelog_leaves_and_refuses_unknown_withdrawals() -> None:
    changes = [("+I", ("a", 1)), ("-U", ("a", 1)), ("+U", ("a", 2)), ("+I", ("b", 1)), ("-D", ("b", 1))]
    assert fold_changelog(changes) == Counter([("a", 2)])
    with pytest.raises(AssertionError, match="never added"):
        fold_changelog([("+I", ("a", 1)), ("-D", ("a", 2))])
