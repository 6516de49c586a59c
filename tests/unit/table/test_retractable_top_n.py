"""Top-N over an updating input (Flink's RetractableTopNFunction): after every change, the
changelog emitted so far folds into exactly the top N of the rows present, with or without
their row numbers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from millstream.datastream import StreamExecutionEnvironment
from millstream.table.runtime.over import RetractableTopNFunction
from millstream.testing.operator_harness import OperatorHarness
from millstream.testing.tables import fold_changelog
from tests.conftest import ci_examples

LIMIT = 3


def harness(rank_column):
    function = RetractableTopNFunction([(lambda row: row[1], True)], LIMIT, rank_column)
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("+I", (0, 0))]).key_by(lambda kv: ()).process(function)
    return OperatorHarness.of(stream)


@ci_examples(60)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 12)), min_size=1, max_size=40),
    st.sampled_from([None, 2]),
)
def test_the_changelog_folds_into_the_top_n_of_the_rows_present(operations, rank_column):
    h = harness(rank_column)
    present: dict[int, int] = {}  # id -> score (scores unique: no ties to order)
    changes = []
    for add, ident in operations:
        if add and ident not in present:
            present[ident] = ident * 7 % 13
            h.process_element(("+I", (ident, present[ident])))
        elif not add and ident in present:
            h.process_element(("-D", (ident, present.pop(ident))))
        else:
            continue
        changes.extend(h.values())
        top = sorted(present.items(), key=lambda item: -item[1])[:LIMIT]
        if rank_column is None:
            expected = {(i, s) for i, s in top}
        else:
            expected = {(i, s, rank) for rank, (i, s) in enumerate(top, start=1)}
        assert set(fold_changelog(changes)) == expected
    h.close()


def test_a_retraction_of_a_row_never_added_changes_nothing():
    h = harness(None)
    h.process_element(("+I", (1, 5)))
    h.process_element(("-D", (2, 9)))
    assert h.values() == [("+I", (1, 5))]
    h.close()
