"""Word count throughput: millstream at parallelism 1 against a plain-Python Counter floor.

Both run in this process on the same file (1,000,000 lines from ../shared/bench/gen_words.py,
or the identical generator in examples/word_count.py when ../shared is absent):

* floor: ``for line in f: counter.update(line.split())``;
* millstream: source -> flat_map(words) -> key_by(word) -> sum(1) -> FileSink, on the
  embedded runtime (STREAMING: every rolling count is written, as Flink does);
* also the exact shape of PyFlink's word_count example (generator flat_map, map to
  (word, 1), reduce with a lambda), for reference.

The final count of every word is checked against the Counter. Prints words/second and
the ratio to the floor measured in the same run: floor and pipeline runs alternate and
the median of the per-pair ratios is reported (the machine's speed drifts over time).

    python benchmarks/word_count.py [--lines N] [--parallelism P ...] [--repeat R]
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))

from millstream.common import Encoder, Types, WatermarkStrategy  # noqa: E402
from millstream.datastream import StreamExecutionEnvironment  # noqa: E402
from millstream.datastream.connectors.file_system import (  # noqa: E402
    BucketAssigner,
    FileSink,
    FileSource,
    StreamFormat,
)

GEN_WORDS = os.path.join(ROOT, "..", "shared", "bench", "gen_words.py")


def make_input(path: str, lines: int) -> None:
    if os.path.exists(GEN_WORDS):
        subprocess.run([sys.executable, GEN_WORDS, path, str(lines)], check=True)
    else:
        import word_count

        word_count.generate_input(path, lines)


def counter_floor(path: str) -> tuple[float, collections.Counter]:
    started = time.perf_counter()
    counts: collections.Counter = collections.Counter()
    with open(path) as f:
        for line in f:
            counts.update(line.split())
    return time.perf_counter() - started, counts


def lean_pipeline(env: StreamExecutionEnvironment, ds):  # type: ignore[no-untyped-def]
    return (
        ds.flat_map(
            lambda line: [(w, 1) for w in line.split()],
            output_type=Types.TUPLE([Types.STRING(), Types.INT()]),
        )
        .key_by(lambda t: t[0])
        .sum(1)
    )


def pyflink_example_pipeline(env: StreamExecutionEnvironment, ds):  # type: ignore[no-untyped-def]
    def split(line):  # type: ignore[no-untyped-def]
        yield from line.split()

    return (
        ds.flat_map(split)
        .map(lambda i: (i, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda i: i[0])
        .reduce(lambda i, j: (i[0], i[1] + j[1]))
    )


def run_millstream(path: str, out_dir: str, parallelism: int, shape) -> float:  # type: ignore[no-untyped-def]
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    ds = env.from_source(source, WatermarkStrategy.no_watermarks(), "words")
    shape(env, ds).sink_to(
        FileSink.for_row_format(out_dir, Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    started = time.perf_counter()
    env.execute("word count benchmark")
    return time.perf_counter() - started


def final_counts(out_dir: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in os.listdir(out_dir):
        with open(os.path.join(out_dir, name)) as f:
            for line in f:
                word, _, count = line.rstrip("\n")[1:-1].rpartition(",")
                counts[word] = max(counts.get(word, 0), int(count))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--parallelism", type=int, nargs="+", default=[1])
    parser.add_argument("--repeat", type=int, default=3, help="floor/pipeline pairs per measurement")
    parser.add_argument("--skip-example-shape", action="store_true")
    args = parser.parse_args(argv)

    work = tempfile.mkdtemp(prefix="millstream-bench-")
    try:
        path = os.path.join(work, "words.txt")
        make_input(path, args.lines)
        _, expected = counter_floor(path)
        words = sum(expected.values())
        print(f"input: {args.lines:,} lines, {words:,} words, {len(expected):,} distinct")
        shapes = [("sum", lean_pipeline)]
        if not args.skip_example_shape:
            shapes.append(("pyflink-example", pyflink_example_pipeline))
        ok = True
        for name, shape in shapes:
            for p in args.parallelism:
                # Interleave floor and pipeline runs: the machine's speed drifts, so each
                # ratio compares two runs made side by side; the median ratio is reported.
                pairs = []
                for attempt in range(args.repeat):
                    floor_s, _ = counter_floor(path)
                    out_dir = os.path.join(work, f"out-{name}-{p}-{attempt}")
                    seconds = run_millstream(path, out_dir, p, shape)
                    if final_counts(out_dir) != dict(expected):
                        print(f"  MISMATCH: {name} at parallelism {p} differs from Counter")
                        ok = False
                    shutil.rmtree(out_dir)
                    pairs.append((floor_s, seconds))
                ratios = sorted(f / s for f, s in pairs)
                median = ratios[len(ratios) // 2]
                best = min(s for _, s in pairs)
                floor_best = min(f for f, _ in pairs)
                print(
                    f"millstream {name:16s} p={p}  {words / best:>10,.0f} words/s (best {best:.2f} s)  "
                    f"floor {words / floor_best:>10,.0f} words/s (best {floor_best:.2f} s)  "
                    f"ratio to floor: median {median:.3f} of {[round(r, 3) for r in ratios]}"
                )
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
