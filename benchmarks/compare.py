"""Run one benchmark against two commits in the same run: did a change make millstream slower?

The machine's speed drifts, so absolute figures of two separate runs mean little. This runs
a benchmark script of the working tree alternately with the working tree's ``src`` and with
a base commit's ``src`` on ``PYTHONPATH`` (checked out in a temporary git worktree; the
TaskManager processes inherit the path), ``--rounds`` times each, base and head in
alternating order, and reports every "ratio to floor" line the benchmark prints: the
median per commit and head / base.

    python benchmarks/compare.py BASE [--rounds N] -- word_count.py --lines 500000 --parallelism 1

A head / base ratio within the spread of the per-round figures is noise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIO = re.compile(r"^(?P<label>.*?)\s*ratio to floor: median (?P<value>[0-9.]+)")
PARALLEL = re.compile(r"^(.*?p=\d+)")


def _run(benchmark: list[str], src: Path) -> list[tuple[str, float]]:
    """The ratio lines of one run of ``benchmark`` with ``src`` first on the path."""
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    script = ROOT / "benchmarks" / benchmark[0]
    done = subprocess.run(
        [sys.executable, str(script), *benchmark[1:]], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"{benchmark[0]} failed with {src}")
    ratios = []
    label = ""
    for line in done.stdout.splitlines():
        match = RATIO.match(line.strip())
        if match is None:  # a measurement line: its name and parallelism label the ratios below
            named = PARALLEL.match(line.strip()) or re.match(r"^(.*?)(?:\s{2,}|$)", line.strip())
            label = " ".join(named[1].split()) if named and named[1] else label
            continue
        ratios.append((label, float(match["value"])))
    return ratios


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("base", help="the commit to compare against (e.g. HEAD~3, a tag)")
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    benchmark = argv[split + 1 :]
    if not benchmark:
        parser.error("name the benchmark script after --: compare.py BASE -- SCRIPT [ARGS]")
    tree = Path(tempfile.mkdtemp(prefix="millstream-base-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.base], check=True)
    results: dict[str, dict[str, list[float]]] = {"base": {}, "head": {}}
    try:
        for round_index in range(args.rounds):
            order = [("base", tree / "src"), ("head", ROOT / "src")]
            for name, src in order if round_index % 2 == 0 else reversed(order):
                for label, value in _run(benchmark, src):
                    results[name].setdefault(label, []).append(value)
                print(f"round {round_index + 1} {name}: done", flush=True)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(tree, ignore_errors=True)
    print(f"\n{' '.join(benchmark)}: ratio to floor, {args.rounds} rounds each, base {args.base}")
    for label, base_values in results["base"].items():
        head_values = results["head"].get(label, [])
        if not head_values:
            continue
        base, head = statistics.median(base_values), statistics.median(head_values)
        print(f"  {label}")
        print(f"    base {base:.3f} {sorted(base_values)}  head {head:.3f} {sorted(head_values)}")
        print(f"    head / base: {head / base:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
