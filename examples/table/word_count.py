"""Word count with the Table API: a table function splits lines into words, a group
aggregation counts them, a print table shows every change of the result.

    python examples/table/word_count.py [--input FILE]

Each line of output is one change of the result table, as Flink's print connector writes
it: ``+I[stream, 1]`` when a word is first seen, then ``-U[stream, 1]`` and
``+U[stream, 2]`` when its count goes up. The same program runs on PyFlink with
``pyflink`` in place of ``millstream`` in the imports.
"""

from __future__ import annotations

import argparse

from millstream.common import Row
from millstream.table import DataTypes, EnvironmentSettings, Schema, TableDescriptor, TableEnvironment
from millstream.table.expressions import col, lit
from millstream.table.udf import udtf

TEXT = [
    "a stream is a table in motion",
    "a table is a stream at rest",
    "every change to the table is a record in the stream",
]


@udtf(result_types=[DataTypes.STRING()])
def split(line: Row):  # type: ignore[no-untyped-def]
    """The words of a line."""
    for word in line[0].split():
        yield Row(word)


def main(input_path: str | None = None) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")  # one subtask: the changes in input order
    if input_path is not None:
        with open(input_path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f]
    else:
        lines = TEXT
    text = t_env.from_elements(
        [(line,) for line in lines], DataTypes.ROW([DataTypes.FIELD("line", DataTypes.STRING())])
    )
    t_env.create_temporary_table(
        "counts",
        TableDescriptor.for_connector("print")
        .schema(
            Schema.new_builder()
            .column("word", DataTypes.STRING())
            .column("count", DataTypes.BIGINT())
            .build()
        )
        .build(),
    )
    words = text.flat_map(split).alias("word")
    words.group_by(col("word")).select(col("word"), lit(1).count).execute_insert("counts").wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--input", default=None, help="a text file (default: three built-in lines)")
    main(parser.parse_args().input)
