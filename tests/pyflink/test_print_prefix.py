"""When ``print`` shows the subtask (``2> ``), as PyFlink 2.3 does (issue 46, point 12).

PyFlink's print sink shows the subtask when the sink runs with parallelism > 1. In BATCH
mode Flink's adaptive batch scheduler decides the parallelism of every chain whose
operators' parallelism the program did not set (``env.set_parallelism`` does not count)
from the size of its input: 1 for such small inputs, so those sinks print no subtask.
Before, millstream printed ``1>`` / ``2>`` there.
"""

from __future__ import annotations

import re

from millstream.common import Types
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

PAIRS = [("a", 1), ("b", 2), ("a", 3), ("c", 4)]
PAIR = Types.TUPLE([Types.STRING(), Types.INT()])


def _env(mode: RuntimeExecutionMode) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(mode)
    env.set_parallelism(2)  # the default parallelism; operators' own stay unset
    return env


def _by_sink(out: str) -> dict[str, list[str]]:
    """Lines by sink identifier, with the subtask number replaced by N (subtasks are
    assigned round-robin from a random first one, in Flink too)."""
    lines: dict[str, list[str]] = {}
    for line in out.splitlines():
        identifier = line.split(">")[0].split(":")[0]
        lines.setdefault(identifier, []).append(re.sub(r":\d>", ":N>", line))
    return {k: sorted(v) for k, v in lines.items()}


def test_batch_prints_the_subtask_only_in_chains_whose_parallelism_the_program_set(capfd):
    env = _env(RuntimeExecutionMode.BATCH)
    ds = env.from_collection(PAIRS, type_info=PAIR)
    words = ds.map(lambda t: t[0], output_type=Types.STRING())
    words.print("default")  # chained with sink2's map: a chain with a set parallelism
    words.print("sink2").set_parallelism(2)
    ds.map(lambda t: t[0], output_type=Types.STRING()).set_parallelism(2).print("chained2")
    ds.map(lambda t: t[0], output_type=Types.STRING()).set_parallelism(2).rebalance().print("rebalanced")
    ds.key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print("reduce")
    env.execute()
    # PyFlink 2.3.0 prints (sorted): chained2:1> a, chained2:1> a, chained2:2> b, chained2:2> c,
    # default:1> a, default:1> a, default:2> b, default:2> c, rebalanced> a, rebalanced> a,
    # rebalanced> b, rebalanced> c, reduce> (a,4), reduce> (b,2), reduce> (c,4), sink2:1> a,
    # sink2:1> a, sink2:2> b, sink2:2> c
    assert _by_sink(capfd.readouterr().out) == {
        "chained2": ["chained2:N> a", "chained2:N> a", "chained2:N> b", "chained2:N> c"],
        "default": ["default:N> a", "default:N> a", "default:N> b", "default:N> c"],
        "rebalanced": ["rebalanced> a", "rebalanced> a", "rebalanced> b", "rebalanced> c"],
        "reduce": ["reduce> (a,4)", "reduce> (b,2)", "reduce> (c,4)"],
        "sink2": ["sink2:N> a", "sink2:N> a", "sink2:N> b", "sink2:N> c"],
    }


def test_batch_without_any_set_parallelism_prints_no_subtask(capfd):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    ds = env.from_collection(PAIRS, type_info=PAIR)
    ds.map(lambda t: t[0], output_type=Types.STRING()).print()
    ds.key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
    env.execute()
    # PyFlink 2.3.0 (2 cores, default parallelism 2) prints a, a, b, c and (a,4), (b,2), (c,4)
    assert sorted(capfd.readouterr().out.splitlines()) == ["(a,4)", "(b,2)", "(c,4)", "a", "a", "b", "c"]


def test_streaming_prints_the_subtask_of_every_parallel_sink(capfd):
    env = _env(RuntimeExecutionMode.STREAMING)
    ds = env.from_collection(PAIRS, type_info=PAIR)
    ds.map(lambda t: t[0], output_type=Types.STRING()).print()
    ds.map(lambda t: t[0], output_type=Types.STRING()).print("one").set_parallelism(1)
    env.execute()
    # PyFlink 2.3.0 with the default parallelism 2: 1> a, 2> b, 2> c, 1> a (subtasks vary);
    # a sink set to parallelism 1 prints a, b, a, c without them
    lines = capfd.readouterr().out.splitlines()
    assert sorted(line for line in lines if line.startswith("one")) == [
        "one> a",
        "one> a",
        "one> b",
        "one> c",
    ]
    parallel = sorted(line for line in lines if not line.startswith("one"))
    assert sorted(re.sub(r"^\d> ", "", line) for line in parallel) == ["a", "a", "b", "c"]
    assert all(re.match(r"^[12]> ", line) for line in parallel)
