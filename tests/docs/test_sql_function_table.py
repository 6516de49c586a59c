"""``docs/sql-functions.md`` is what the code gives today: every sample of
``docs/sql_functions.jsonl`` run on millstream and compared with Flink 2.3's result for it
(recorded from PyFlink 2.3.0). A function gained, lost or changed makes the page stale;
``python -m millstream.testing.function_table --write`` rewrites it."""

from __future__ import annotations

import pytest

from millstream.testing.function_table import PAGE, markdown, samples

pytestmark = pytest.mark.timeout(600)


def test_the_function_table_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == markdown(), (
        "docs/sql-functions.md is stale: run python -m millstream.testing.function_table --write"
    )


def test_every_sample_has_flinks_result_and_a_unique_name() -> None:
    items = samples()
    assert len(items) > 200
    assert len({(s.category, s.name) for s in items}) == len(items)
    assert all(s.flink is not None for s in items)
