"""Word count throughput: millstream at parallelism 1 and 2, STREAMING and BATCH, with
uniformly and Zipf-distributed words, against a plain-Python Counter floor.

Each measurement runs in this process on the same file (1,000,000 lines: Zipf-distributed
words from ../shared/bench/gen_words.py, or the identical generator in examples/word_count.py
when ../shared is absent; uniform: the same 10,000 words and line length, each equally likely):

* floor: ``for line in f: counter.update(line.split())``;
* millstream: source -> flat_map(words) -> key_by(word) -> sum(1) -> FileSink, on the
  embedded runtime (STREAMING: every rolling count is written, as Flink does);
* also the exact shape of PyFlink's word_count example (generator flat_map, map to
  (word, 1), reduce with a lambda), for reference.

The final count of every word is checked against the Counter. Prints words/second and
the ratio to the floor measured in the same run: floor and pipeline runs alternate and
the median of the per-pair ratios is reported (the machine's speed drifts over time).

At parallelism 2 the job runs in two TaskManager processes (one slot each) and the
keyed exchange crosses between them over the network stack; the speed-up over
parallelism 1 is reported per attempt. BATCH writes one final count per word (its keyed
sum is combined before the shuffle); next to it, in the same run, the word count a PySpark
user writes by hand (textFile, flatMap, reduceByKey, saveAsTextFile) on Spark ``local[2]``,
after a warm-up run, with millstream's speed at the highest parallelism as a ratio to it.

    python benchmarks/word_count.py [--lines N] [--parallelism P ...] [--repeat R]
        [--mode STREAMING BATCH] [--distribution uniform zipf] [--no-pyspark]

With ``--target spark`` it runs the same pipeline on Spark ``local[2]`` through the
Spark runner (BATCH semantics: one final count per word is written) and, in the same
run, a hand-written PySpark RDD word count over the same file (textFile, flatMap,
reduceByKey, saveAsTextFile), and reports words/second of both and their ratio
(target: the translated pipeline within 1.3x of the hand-written one).
"""

from __future__ import annotations

import argparse
import collections
import gc
import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))

from millstream.common import Encoder, Types, WatermarkStrategy  # noqa: E402
from millstream.common.config_options import GC_THRESHOLD  # noqa: E402
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment  # noqa: E402
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
    else:  # the identical generator of the example (loaded by path: this module is word_count too)
        spec = importlib.util.spec_from_file_location(
            "word_count_example", os.path.join(ROOT, "examples", "word_count.py")
        )
        assert spec is not None and spec.loader is not None
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        example.generate_input(path, lines)


def make_uniform_input(path: str, lines: int, seed: int = 42) -> None:
    """The same vocabulary and line length as the Zipf input, every word equally likely."""
    import random

    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(10_000)]
    with open(path, "w") as f:
        for _ in range(lines):
            f.write(" ".join(rng.choices(vocab, k=10)))
            f.write("\n")


def counter_floor(path: str) -> tuple[float, collections.Counter]:
    started = time.perf_counter()
    counts: collections.Counter = collections.Counter()
    with open(path) as f:
        for line in f:
            counts.update(line.split())
    return time.perf_counter() - started, counts


# The user functions of each shape, shared by the pipeline and the hand-written loop.
def _pairs(line):  # type: ignore[no-untyped-def]
    return [(w, 1) for w in line.split()]


def _first(t):  # type: ignore[no-untyped-def]
    return t[0]


def _split(line):  # type: ignore[no-untyped-def]
    yield from line.split()


def _one(i):  # type: ignore[no-untyped-def]
    return (i, 1)


def _add(i, j):  # type: ignore[no-untyped-def]
    return (i[0], i[1] + j[1])


PAIR = Types.TUPLE([Types.STRING(), Types.INT()])


def lean_pipeline(env: StreamExecutionEnvironment, ds):  # type: ignore[no-untyped-def]
    return ds.flat_map(_pairs, output_type=PAIR).key_by(_first).sum(1)


def pyflink_example_pipeline(env: StreamExecutionEnvironment, ds):  # type: ignore[no-untyped-def]
    return ds.flat_map(_split).map(_one, output_type=PAIR).key_by(_first).reduce(_add)


def _rolling_by_hand(path: str, out_path: str, words_of, reduce) -> None:  # type: ignore[no-untyped-def]
    """The same functions in one hand-written loop, writing the same text: no framework."""
    reduced: dict = {}
    get = reduced.get
    with open(path) as f, open(out_path, "w") as out:
        while lines := f.readlines(1 << 16):
            rolled = []
            append = rolled.append
            for v in words_of(lines):
                k = _first(v)
                current = get(k)
                if current is not None:
                    v = reduce(current, v)
                reduced[k] = v
                append(v)
            out.write("".join([f"({w},{c})\n" for w, c in rolled]))


def lean_by_hand(path: str, out_path: str) -> None:
    sum_1 = _add  # what sum(1) computes on (word, count) pairs
    _rolling_by_hand(path, out_path, lambda lines: itertools.chain.from_iterable(map(_pairs, lines)), sum_1)


def pyflink_example_by_hand(path: str, out_path: str) -> None:
    _rolling_by_hand(
        path, out_path, lambda lines: map(_one, itertools.chain.from_iterable(map(_split, lines))), _add
    )


def run_millstream(
    path: str,
    out_dir: str,
    parallelism: int,
    shape,
    checkpoint_ms: int = 0,
    stats=None,
    unaligned=False,
    mode: str = "STREAMING",
):  # type: ignore[no-untyped-def]
    """Seconds of one run (``checkpoint_ms`` > 0: with checkpoints that often; the job's
    accumulators, checkpoint statistics among them, go into ``stats``; ``mode`` STREAMING or
    BATCH)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    if checkpoint_ms:
        env.enable_checkpointing(checkpoint_ms)
        if unaligned:
            env.get_checkpoint_config().enable_unaligned_checkpoints()
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    ds = env.from_source(source, WatermarkStrategy.no_watermarks(), "words")
    shape(env, ds).sink_to(
        FileSink.for_row_format(out_dir, Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    started = time.perf_counter()
    result = env.execute("word count benchmark")
    seconds = time.perf_counter() - started
    if stats is not None:
        stats.update(result.get_all_accumulator_results())
    return seconds


def timed_by_hand(by_hand, path: str, out_path: str) -> float:  # type: ignore[no-untyped-def]
    """Seconds for the hand-written loop, under the GC threshold the runtime uses for jobs."""
    thresholds = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD.default, *thresholds[1:])
    try:
        started = time.perf_counter()
        by_hand(path, out_path)
        return time.perf_counter() - started
    finally:
        gc.set_threshold(*thresholds)
        os.remove(out_path)


def _median(values: list[float]) -> float:
    return values[len(values) // 2]


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
    parser.add_argument("--parallelism", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3, help="floor/pipeline pairs per measurement")
    parser.add_argument("--skip-example-shape", action="store_true")
    parser.add_argument("--target", choices=["embedded", "spark"], default="embedded")
    parser.add_argument("--mode", nargs="+", choices=["STREAMING", "BATCH"], default=["STREAMING", "BATCH"])
    parser.add_argument("--distribution", nargs="+", choices=["uniform", "zipf"], default=["uniform", "zipf"])
    parser.add_argument(
        "--no-pyspark", action="store_true", help="BATCH without the hand-written PySpark comparison"
    )
    parser.add_argument("--json", help="also write the figures here (benchmarks/plot.py draws them)")
    args = parser.parse_args(argv)
    if args.target == "spark":
        return spark_main(args)

    work = tempfile.mkdtemp(prefix="millstream-bench-")
    spark = _spark_session() if "BATCH" in args.mode and not args.no_pyspark else None
    try:
        ok = True
        for distribution in args.distribution:
            path = os.path.join(work, f"words-{distribution}.txt")
            if distribution == "zipf":
                make_input(path, args.lines)
            else:
                make_uniform_input(path, args.lines)
            for mode in args.mode:
                ok &= _measure(args, work, path, distribution, mode, spark)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"lines": args.lines, "results": FIGURES}, f, indent=2)
        return 0 if ok else 1
    finally:
        if spark is not None:
            spark.stop()
        shutil.rmtree(work, ignore_errors=True)


FIGURES: list[dict[str, object]] = []  # what --json writes: one entry per measurement


def _measure(args: argparse.Namespace, work: str, path: str, distribution: str, mode: str, spark) -> bool:  # type: ignore[no-untyped-def]
    """Floor, hand-written loop, millstream at each parallelism (and in BATCH the hand-written
    PySpark RDD word count on local[2], warmed up first), interleaved; prints the figures."""
    _, expected = counter_floor(path)
    words = sum(expected.values())
    print(
        f"\n== {mode}, {distribution} words: {args.lines:,} lines, {words:,} words, "
        f"{len(expected):,} distinct"
    )
    shapes = [("sum", lean_pipeline, lean_by_hand)]
    if not args.skip_example_shape and mode == "STREAMING":
        shapes.append(("pyflink-example", pyflink_example_pipeline, pyflink_example_by_hand))
    ok = True
    pyspark_s: list[float] = []
    if spark is not None and mode == "BATCH":
        warm = os.path.join(work, "pyspark-warm")
        run_pyspark_by_hand(spark, path, warm)
        shutil.rmtree(warm)
    for name, shape, by_hand in shapes:
        # Interleave the runs: the machine's speed drifts, so each ratio compares runs
        # made side by side (one attempt = floor, hand-written loop, every parallelism);
        # the median over attempts is reported.
        runs: dict[int, list[tuple[float, float, float]]] = {p: [] for p in args.parallelism}
        for attempt in range(args.repeat):
            floor_s, _ = counter_floor(path)
            hand_s = timed_by_hand(by_hand, path, os.path.join(work, "by-hand.txt"))
            for p in args.parallelism:
                out_dir = os.path.join(work, f"out-{name}-{p}-{attempt}")
                seconds = run_millstream(path, out_dir, p, shape, mode=mode)
                if final_counts(out_dir) != dict(expected):
                    print(f"  MISMATCH: {name} at parallelism {p} differs from Counter")
                    ok = False
                shutil.rmtree(out_dir)
                runs[p].append((floor_s, hand_s, seconds))
            if spark is not None and mode == "BATCH" and name == "sum":
                out_dir = os.path.join(work, f"pyspark-{attempt}")
                pyspark_s.append(run_pyspark_by_hand(spark, path, out_dir))
                if _final_counts_in(out_dir) != dict(expected):
                    print("  MISMATCH: hand-written PySpark differs from Counter")
                    ok = False
                shutil.rmtree(out_dir)
        first = args.parallelism[0]
        for p in args.parallelism:
            ratios = sorted(f / s for f, _, s in runs[p])
            hand_ratios = sorted(h / s for _, h, s in runs[p])
            best = min(s for _, _, s in runs[p])
            floor_best = min(f for f, _, _ in runs[p])
            FIGURES.append(
                {
                    "mode": mode,
                    "distribution": distribution,
                    "shape": name,
                    "parallelism": p,
                    "millstream": words / best,
                    "floor": words / floor_best,
                    "hand_written": words / min(h for _, h, _ in runs[p]),
                    "ratio_to_floor": _median(ratios),
                    "pyspark": words / min(pyspark_s) if pyspark_s and name == "sum" else None,
                }
            )
            print(
                f"millstream {mode} {name:16s} p={p}  {words / best:>10,.0f} words/s (best {best:.2f} s)  "
                f"floor {words / floor_best:>10,.0f} words/s (best {floor_best:.2f} s)\n"
                f"    ratio to floor: median {_median(ratios):.3f} of {[round(r, 3) for r in ratios]}\n"
                f"    ratio to the same functions in a hand-written loop: median "
                f"{_median(hand_ratios):.3f} of {[round(r, 3) for r in hand_ratios]}"
            )
            if p != first:
                speedups = sorted(a[2] / b[2] for a, b in zip(runs[first], runs[p]))
                print(
                    f"    speed-up over p={first} (TaskManager processes): median "
                    f"{_median(speedups):.2f}x of {[round(x, 2) for x in speedups]}"
                )
        if pyspark_s:
            last = args.parallelism[-1]
            ratios = sorted(h / m for (_, _, m), h in zip(runs[last], pyspark_s))
            print(
                f"hand-written PySpark RDD on local[2] {words / min(pyspark_s):>10,.0f} words/s "
                f"(best {min(pyspark_s):.2f} s, warm)\n"
                f"    millstream BATCH p={last} speed / PySpark speed: median {_median(ratios):.2f}x of "
                f"{[round(r, 2) for r in ratios]} (target > 1)"
            )
    return ok


def _spark_session():  # type: ignore[no-untyped-def]
    from millstream.spark.runner import local_session, use_session

    spark = local_session("local[2]", "word count benchmark")
    use_session(spark)
    return spark


def run_millstream_on_spark(path: str, out_dir: str) -> float:
    from millstream.common import Configuration

    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("execution.target", "spark")
    )
    env.set_parallelism(2)
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    lean_pipeline(env, env.from_source(source, WatermarkStrategy.no_watermarks(), "words")).sink_to(
        FileSink.for_row_format(out_dir, Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    started = time.perf_counter()
    env.execute("word count benchmark on spark")
    return time.perf_counter() - started


def _sum(a, b):  # type: ignore[no-untyped-def]
    return a + b


def _render(pair):  # type: ignore[no-untyped-def]
    return f"({pair[0]},{pair[1]})"


def run_pyspark_by_hand(spark, path: str, out_dir: str) -> float:  # type: ignore[no-untyped-def]
    """The word count a PySpark user writes by hand, writing the same lines."""
    started = time.perf_counter()
    spark.sparkContext.textFile(path, 2).flatMap(_pairs).reduceByKey(_sum).map(_render).saveAsTextFile(
        out_dir
    )
    return time.perf_counter() - started


def _final_counts_in(out_dir: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            if name.startswith(("part-", "part")) and not name.endswith(".crc"):
                with open(os.path.join(root, name)) as f:
                    for line in f:
                        word, _, count = line.rstrip("\n")[1:-1].rpartition(",")
                        counts[word] = max(counts.get(word, 0), int(count))
    return counts


def spark_main(args: argparse.Namespace) -> int:
    """millstream on Spark local[2] against a hand-written PySpark RDD word count."""
    work = tempfile.mkdtemp(prefix="millstream-bench-spark-")
    try:
        path = os.path.join(work, "words.txt")
        make_input(path, args.lines)
        _, expected = counter_floor(path)
        words = sum(expected.values())
        print(f"input: {args.lines:,} lines, {words:,} words, {len(expected):,} distinct; Spark local[2]")
        spark = _spark_session()
        ok = True
        pairs = []
        for attempt in range(args.repeat + 1):  # the first pair warms up the session and workers
            mine_dir, hand_dir = os.path.join(work, f"ms-{attempt}"), os.path.join(work, f"hand-{attempt}")
            mine = run_millstream_on_spark(path, mine_dir)
            hand = run_pyspark_by_hand(spark, path, hand_dir)
            for name, out in (("millstream", mine_dir), ("hand-written", hand_dir)):
                if _final_counts_in(out) != dict(expected):
                    print(f"  MISMATCH: {name} on Spark differs from Counter")
                    ok = False
            shutil.rmtree(mine_dir)
            shutil.rmtree(hand_dir)
            if attempt:
                pairs.append((mine, hand))
        ratios = sorted(m / h for m, h in pairs)
        print(
            f"millstream on spark      {words / min(m for m, _ in pairs):>10,.0f} words/s\n"
            f"hand-written PySpark RDD {words / min(h for _, h in pairs):>10,.0f} words/s\n"
            f"    millstream time / hand-written time: median {_median(ratios):.2f}x of "
            f"{[round(r, 2) for r in ratios]} (target <= 1.3x)"
        )
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
