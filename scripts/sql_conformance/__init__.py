"""The Flink SQL conformance corpus: every case, built by the parts of this package.

``scripts/gen_sql_conformance.py`` runs the cases on PyFlink 2.3 and writes
``tests/differential/sql_conformance.jsonl``. The corpus covers every scalar function and
operator of Flink 2.3's built-in function list (``docs/data/sql_functions.yml`` and
``SHOW FUNCTIONS`` of PyFlink 2.3), every sample of ``docs/sql_functions.jsonl``, casts between
every pair of types, string literals, integer widths, DECIMAL precision and scale,
TIMESTAMP(p), Java date-time patterns, intervals, EXTRACT and FLOOR/CEIL units, JSON functions
and binary values, with NULL and edge inputs.
"""

from __future__ import annotations

from scripts.sql_conformance import (
    binary,
    casts,
    edges,
    general,
    json_functions,
    numbers,
    patterns,
    strings,
    structured,
    temporal,
)
from scripts.sql_conformance.corpus import Corpus
from tests.differential.sql_conformance import Case

__all__ = ["all_cases"]


def all_cases() -> list[Case]:
    """Every case of the corpus, in order."""
    corpus = Corpus()
    for part in (
        general,
        numbers,
        strings,
        binary,
        temporal,
        patterns,
        casts,
        json_functions,
        structured,
        edges,
    ):
        for build in part.PARTS:
            build(corpus)
    return corpus.cases
