"""Net units sold per product, read from CSV, JSON Lines and Parquet files.

This year's orders arrive as CSV, returns as JSON Lines, and last year's orders are
archived in Parquet. Each source gives typed rows (``Row``s with named fields) from its
schema. The three streams are united, keyed by product and summed. The job runs in
BATCH mode, so it prints one final line per product. Run it on Spark, unchanged, with
``millstream run --target spark examples/file_formats.py``.

    python examples/file_formats.py [--parallelism N] [--data DIR]
"""

import argparse
import json
import os
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

from millstream.common import Types, WatermarkStrategy
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import FileSource
from millstream.datastream.formats.csv import CsvReaderFormat, CsvSchema
from millstream.datastream.formats.json import JsonLinesReaderFormat, JsonRowDeserializationSchema
from millstream.datastream.formats.parquet import ParquetColumnarRowInputFormat
from millstream.table import DataTypes

ORDERS_CSV = """order,product,units,note
1,"lamp, desk",2,
2,chair,4,"gift, wrapped"
3,"lamp, desk",1,
4,table,1,
"""

RETURNS = [
    {"order": 2, "product": "chair", "units": 1, "reason": "scratched"},
    {"order": 3, "product": "lamp, desk", "units": 1},
]

ARCHIVE = {"product": ["chair", "table", "chair"], "units": [10, 2, 5], "order": [-3, -2, -1]}


def write_inputs(directory):
    """The three input files, as another system would have written them."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "orders.csv"), "w") as f:
        f.write(ORDERS_CSV)
    with open(os.path.join(directory, "returns.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in RETURNS)
    pq.write_table(pa.table(ARCHIVE), os.path.join(directory, "archive.parquet"), row_group_size=2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--data", help="directory for the input files (default: a temporary one)")
    args = parser.parse_args(argv)
    data = args.data or tempfile.mkdtemp(prefix="millstream-formats-")
    write_inputs(data)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    no_watermarks = WatermarkStrategy.no_watermarks()

    orders_schema = (
        CsvSchema.builder()
        .add_number_column("order", number_type=DataTypes.INT())
        .add_string_column("product")
        .add_number_column("units", number_type=DataTypes.INT())
        .add_string_column("note")
        .set_use_header()
        .set_strict_headers()
        .build()
    )
    orders = env.from_source(
        FileSource.for_record_stream_format(
            CsvReaderFormat.for_schema(orders_schema), os.path.join(data, "orders.csv")
        ).build(),
        no_watermarks,
        "orders (CSV)",
    )

    returns_schema = (
        JsonRowDeserializationSchema.builder()
        .type_info(Types.ROW_NAMED(["product", "units"], [Types.STRING(), Types.INT()]))
        .build()
    )
    returns = env.from_source(
        FileSource.for_record_stream_format(
            JsonLinesReaderFormat.for_schema(returns_schema), os.path.join(data, "returns.jsonl")
        ).build(),
        no_watermarks,
        "returns (JSON Lines)",
    )

    archive_type = DataTypes.ROW(
        [DataTypes.FIELD("product", DataTypes.STRING()), DataTypes.FIELD("units", DataTypes.BIGINT())]
    )
    archive = env.from_source(
        FileSource.for_bulk_file_format(
            ParquetColumnarRowInputFormat(row_type=archive_type), os.path.join(data, "archive.parquet")
        ).build(),
        no_watermarks,
        "archive (Parquet)",
    )

    net = (
        orders.map(lambda row: (row.product, row.units))
        .union(
            returns.map(lambda row: (row["product"], -row["units"])),
            archive.map(lambda row: (row.product, row.units)),
        )
        .key_by(lambda sold: sold[0])
        .sum(1)
    )
    with net.execute_and_collect("net units per product") as results:
        for product, units in sorted(results):
            print(f"{product}: {units}")


if __name__ == "__main__":
    main()
