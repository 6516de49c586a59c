"""Word count, written as a PyFlink user writes it (PyFlink's own word_count example shape).

Reads text lines from a file (or generates 1,000,000 lines with ../shared/bench-style
Zipf words when no input is given), counts words per key with a rolling reduce, and
writes ``(word,count)`` lines with a FileSink. In STREAMING mode every update of a
count is written, as in Flink; the last line per word holds its total.

    python examples/word_count.py [--input FILE] [--output DIR] [--parallelism N]
"""

import argparse
import os
import random
import sys
import tempfile

from millstream.common import Encoder, Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import (
    FileSink,
    FileSource,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
)


def generate_input(path: str, lines: int = 1_000_000, seed: int = 42) -> None:
    """Zipf-distributed words, 10 per line (the same shape as ../shared/bench/gen_words.py)."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(10_000)]
    cum, total = [], 0.0
    for i in range(len(vocab)):
        total += 1.0 / (i + 1)
        cum.append(total)
    with open(path, "w") as f:
        for _ in range(lines):
            f.write(" ".join(rng.choices(vocab, cum_weights=cum, k=10)))
            f.write("\n")


def word_count(input_path: str, output_path: str, parallelism: int | None = None) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    if parallelism is not None:
        env.set_parallelism(parallelism)

    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), input_path).build()
    ds = env.from_source(source, WatermarkStrategy.no_watermarks(), "file_source")

    def split(line):
        yield from line.split()

    ds = (
        ds.flat_map(split)
        .map(lambda i: (i, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda i: i[0])
        .reduce(lambda i, j: (i[0], i[1] + j[1]))
    )
    ds.sink_to(
        FileSink.for_row_format(output_path, Encoder.simple_string_encoder())
        .with_output_file_config(
            OutputFileConfig.builder().with_part_prefix("prefix").with_part_suffix(".ext").build()
        )
        .with_rolling_policy(RollingPolicy.default_rolling_policy())
        .build()
    )
    result = env.execute("word_count")
    print(f"word_count finished in {result.get_net_runtime()} ms; output written to {output_path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--input", help="text file or directory (default: generate 1,000,000 lines)")
    parser.add_argument("--output", help="output directory (default: a new temporary directory)")
    parser.add_argument(
        "--parallelism",
        type=int,
        default=None,
        help="default: millstream run -p, else the number of cores",
    )
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines to generate without --input")
    args = parser.parse_args(argv)
    input_path = args.input
    if input_path is None:
        input_path = os.path.join(tempfile.mkdtemp(prefix="millstream-wc-in-"), "words.txt")
        print(f"generating {args.lines} lines of input into {input_path}", file=sys.stderr)
        generate_input(input_path, args.lines)
    output_path = args.output or tempfile.mkdtemp(prefix="millstream-wc-out-")
    word_count(input_path, output_path, args.parallelism)


if __name__ == "__main__":
    main()
