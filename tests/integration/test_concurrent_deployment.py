"""Many tasks deployed at once into one TaskManager process load their user code safely.

Each task thread unpickles its vertex, and unpickling imports the modules its functions
come from for the first time in that process: millstream's window, join and aggregation
modules, and the user's own package. Threads entering an import cycle at different
modules failed with ``ImportError ... partially initialized module
'millstream.datastream.join'`` (examples/window_join.py in about 1 of 15 runs, a
``window_all`` job collected with ``execute_and_collect`` in 10 of 11). millstream's
package re-exports are now lazy (an acyclic import graph: the job test below failed in 4
of 9 runs before), and user code is loaded one task at a time (the cyclic user package
test failed without it).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from millstream.common import Duration, Time, Types, WatermarkStrategy
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.functions import ProcessAllWindowFunction
from millstream.datastream.window import TumblingEventTimeWindows
from tests.conftest import make_env

PARALLELISM = 12
N = 1_200

# A user package whose __init__ imports its own submodules, which import the package: an
# import cycle entered at ``a`` by some task threads and at ``b`` by others. The modules
# take a while to import (a table built at import time), as real libraries do.
USER_PACKAGE = {
    "__init__.py": "from stresspkg.a import Tag\nfrom stresspkg.b import Double\n",
    "a.py": "from stresspkg import b\n\nSQUARES = [i * i for i in range(20_000)]\n\n"
    "class Tag:\n    def __call__(self, v):\n        return ('k%d' % (v % 7), b.double(v) // 2, v)\n",
    "b.py": "import stresspkg\n\nCUBES = [i * i * i for i in range(20_000)]\n\ndef double(v):\n"
    "    return 2 * v\n\nclass Double:\n    def __call__(self, v):\n"
    "        return (v[0], double(v[1]), v[2])\n",
}


class CountAll(ProcessAllWindowFunction):
    def process(self, context, elements):  # type: ignore[no-untyped-def]
        yield ("all", sum(1 for _ in elements), context.window().start)


def _timestamp(value, record_ts):  # type: ignore[no-untyped-def]
    return value * 10


def _write_user_package(root: Path) -> None:
    package = root / "stresspkg"
    package.mkdir()
    for name, text in USER_PACKAGE.items():
        (package / name).write_text(textwrap.dedent(text))


@pytest.mark.timeout(240)
@pytest.mark.parametrize("run", range(5))
def test_a_dozen_subtasks_of_window_join_and_user_code_deploy_at_once_in_one_process(
    run: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_user_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # TaskManagers inherit the client's path
    import stresspkg

    env = make_env(
        PARALLELISM,
        minicluster__number_of_taskmanagers=1,
        taskmanager__numberOfTaskSlots=PARALLELISM,
    )
    env.disable_operator_chaining()  # one task per operator and subtask: many threads
    env.get_config().set_auto_watermark_interval(20)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
    numbers = env.from_source(
        DataGeneratorSource(lambda i: i, N, type_info=Types.INT()),
        strategy.with_timestamp_assigner(_timestamp),
        "n",
    )
    tagged = numbers.map(stresspkg.Tag())
    doubled = tagged.map(stresspkg.Double())
    per_key = tagged.key_by(lambda t: t[0]).count_window(10).reduce(lambda a, b: (a[0], a[1] + b[1], 0))
    everything = numbers.window_all(TumblingEventTimeWindows.of(Time.milliseconds(1_000))).process(CountAll())
    joined = (
        tagged.join(doubled)
        .where(lambda t: t[2])
        .equal_to(lambda t: t[2])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(500)))
        .apply(lambda a, b: ("join", b[1] - a[1], a[2]))
    )
    out = list(per_key.map(lambda t: ("key", 10, t[0])).union(everything, joined).execute_and_collect())

    assert sum(n for kind, n, _ in out if kind == "all") == N
    assert sorted(v for kind, _, v in out if kind == "join") == list(range(N))
    assert all(kind != "join" or diff == v for kind, diff, v in out)
    per_key_expected = sum((N // 7 + (k < N % 7)) // 10 for k in range(7))
    assert sum(1 for kind, *_ in out if kind == "key") == per_key_expected


# Runs ``work(item)`` for every item on its own thread, all released at once, then prints
# the errors (nothing when every call succeeded).
AT_ONCE = textwrap.dedent(
    """
    import sys, threading

    def at_once(work, items):
        start = threading.Barrier(len(items))
        errors = []

        def run(item):
            start.wait()
            try:
                work(item)
            except BaseException as err:
                errors.append(f"{item!r}: {err!r}")

        threads = [threading.Thread(target=run, args=(i,)) for i in items]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("\\n".join(errors))
    """
)


def _errors_in_fresh_interpreters(script: str, args: list[str], runs: int) -> list[str]:
    """Run ``AT_ONCE`` + ``script`` ``runs`` times in new interpreters; the errors printed."""
    errors = []
    for _ in range(runs):
        result = subprocess.run(
            [sys.executable, "-c", AT_ONCE + textwrap.dedent(script), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        errors += [line for line in result.stdout.splitlines() if line]
    return errors


# Modules a task thread may import first when it unpickles a user function.
FIRST_IMPORTS = [
    "millstream.datastream.join",
    "millstream.datastream.windowed_stream",
    "millstream.datastream.window",
    "millstream.datastream.functions",
    "millstream.datastream.data_stream",
    "millstream.datastream.aggregations",
    "millstream.datastream.state",
    "millstream.common.watermark_strategy",
    "millstream.common.typeinfo",
    "millstream.datastream",
    "millstream.common",
]


@pytest.mark.timeout(120)
def test_threads_importing_api_modules_at_once_in_a_fresh_interpreter_all_succeed() -> None:
    # Before the package re-exports became lazy this failed in 30 of 30 runs.
    script = "import importlib\nat_once(importlib.import_module, sys.argv[1:])\n"
    assert _errors_in_fresh_interpreters(script, FIRST_IMPORTS, runs=8) == []


LOAD_USER_CODE_IN_THREADS = """
from millstream.runtime.taskmanager.task import load_user_code
sys.path.insert(0, sys.argv[1])

def load(payload):
    assert load_user_code(payload).__name__ == "X"

# Protocol-0 GLOBAL opcodes, as a pickled class of an importable module: loading one
# imports cyclicpkg.<m> and returns its class X.
at_once(load, [b"ccyclicpkg.%s\\nX\\n." % m for m in (b"a", b"b", b"c", b"d")] * 3)
"""


def _write_cyclic_package(root: Path) -> None:
    package = root / "cyclicpkg"
    package.mkdir()
    names = "abcd"
    (package / "__init__.py").write_text("".join(f"from cyclicpkg.{m} import X as X_{m}\n" for m in names))
    for index, m in enumerate(names):
        sibling = names[(index + 1) % len(names)]
        (package / f"{m}.py").write_text(
            f"import cyclicpkg\nfrom cyclicpkg import {sibling}\n"
            "TABLE = [i * i for i in range(100_000)]  # a module that takes a moment to import\n"
            "class X:\n    pass\n"
        )


@pytest.mark.timeout(120)
def test_task_threads_load_user_code_from_a_cyclic_user_package_one_at_a_time(tmp_path: Path) -> None:
    # A user package whose __init__ imports its submodules, which import the package and
    # each other; twelve task threads unpickle classes of different submodules at once.
    # With plain cloudpickle.loads in place of load_user_code this failed (checked).
    _write_cyclic_package(tmp_path)
    assert _errors_in_fresh_interpreters(LOAD_USER_CODE_IN_THREADS, [str(tmp_path)], runs=5) == []
