"""The null-aware anti join of ``x NOT IN (SELECT y ...)``: each change of the subquery
re-decides exactly the left rows SQL's NULL rules say it affects."""

from __future__ import annotations

from millstream.datastream import StreamExecutionEnvironment
from millstream.table.runtime.null_aware_anti_join import NullAwareAntiJoinFunction
from millstream.testing.operator_harness import OperatorHarness

LEFT, RIGHT = 0, 1


def test_the_subquery_filling_gaining_a_null_and_emptying_again() -> None:
    function = NullAwareAntiJoinFunction(lambda row: row[1])
    env = StreamExecutionEnvironment.get_execution_environment()
    h = OperatorHarness.of(env.from_collection([(0, "+I", (0,))]).key_by(lambda t: 0).process(function))
    for row in [(1, 10), (2, 20), (3, None)]:
        h.process_element((LEFT, "+I", row))
    assert h.values() == [("+I", (1, 10)), ("+I", (2, 20)), ("+I", (3, None))]  # empty subquery: all
    h.process_element((RIGHT, "+I", (10,)))
    assert sorted(h.values()) == [("-D", (1, 10)), ("-D", (3, None))]  # 10 blocked; NULL unknown
    h.process_element((RIGHT, "+I", (30,)))
    assert h.values() == []
    h.process_element((LEFT, "+I", (4, 30)))
    assert h.values() == []
    h.process_element((RIGHT, "+I", (None,)))
    assert h.values() == [("-D", (2, 20))]  # a NULL in the subquery: nothing is NOT IN it
    h.process_element((RIGHT, "-D", (None,)))
    assert h.values() == [("+I", (2, 20))]
    h.process_element((RIGHT, "-D", (30,)))
    assert h.values() == [("+I", (4, 30))]
    h.process_element((RIGHT, "-D", (10,)))
    assert sorted(h.values()) == [("+I", (1, 10)), ("+I", (3, None))]  # empty again
    h.process_element((LEFT, "-D", (3, None)))
    assert h.values() == [("-D", (3, None))]
    h.close()
