"""The table formats of single records, by Flink's rules (flink-json, flink-csv, flink-avro,
the raw format), and the factory registry that finds them.

Where PyFlink 2.3 was run on the same data (its filesystem connector with the flink-json
formats), the expected values are what it printed and wrote: decimals written by Jackson with
trailing zeros stripped (``1.50`` -> ``1.5``, ``4.00`` -> ``4``), a TIMESTAMP(3) as
``2024-01-02 03:04:05.6``, BYTES as base64; a canal-json UPDATE's before-row is its data row
with the ``old`` fields put back.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from millstream.table import DataTypes
from millstream.table.common.factories import (
    DynamicTableFactory,
    TableContext,
    find_format_factory,
    find_table_factory,
    register_table_factory,
)
from millstream.table.schema import Schema

NAMES = ["id", "price", "ts", "b", "s"]
TYPES = [
    DataTypes.INT(),
    DataTypes.DECIMAL(10, 2),
    DataTypes.TIMESTAMP(3),
    DataTypes.BYTES(),
    DataTypes.STRING(),
]
ROW = (1, decimal.Decimal("1.50"), datetime.datetime(2024, 1, 2, 3, 4, 5, 600000), b"ab", 'say "hi", then go')


def _codec(name: str, names: list[str] = NAMES, types: list = TYPES, **options: str):
    factory = find_format_factory(name)
    return factory.decoder(names, types, options, ""), factory.encoder(names, types, options, "")


def test_json_writes_as_flink_and_reads_its_own_output():
    decode, encode = _codec("json")
    data = encode(("+I", ROW))
    assert data == b'{"id":1,"price":1.5,"ts":"2024-01-02 03:04:05.6","b":"YWI=","s":"say \\"hi\\", then go"}'
    assert decode(data) == (1, decimal.Decimal("1.50"), ROW[2], b"ab", ROW[4])
    assert encode(("+I", (1, decimal.Decimal("100"), None, None, None))).startswith(b'{"id":1,"price":1E+2,')
    # PyFlink 2.3.0 writes a DECIMAL(10, 2) 1.50 as 1.50 with decimal-as-plain-number: the scale's digits
    plain = _codec("json", **{"json.encode.decimal-as-plain-number": "true"})[1]
    assert plain(("+I", (1, decimal.Decimal("100.00"), None, None, None))).startswith(
        b'{"id":1,"price":100.00,'
    )


def test_json_missing_fields_and_parse_errors():
    decode, _ = _codec("json")
    assert decode(b'{"id": 7}') == (7, None, None, None, None)
    with pytest.raises(ValueError, match=r"Failed to deserialize JSON '\{oops'"):
        decode(b"{oops")
    strict, _ = _codec("json", **{"json.fail-on-missing-field": "true"})
    with pytest.raises(ValueError, match="Could not find field with name 'price'"):
        strict(b'{"id": 7}')
    lenient, _ = _codec("json", **{"json.ignore-parse-errors": "true"})
    assert lenient(b"{oops") is None


def test_csv_quotes_and_null_literals():
    decode, encode = _codec("csv")
    data = encode(("+I", ROW))
    # PyFlink 2.3.0's CsvRowDataSerializationSchema serialized this row to exactly these bytes
    assert data == b'1,1.50,"2024-01-02 03:04:05.6",YWI=,"say ""hi"", then go"'
    row = decode(b'1,1.50,,,"say ""hi"", then go"')
    assert row == (1, decimal.Decimal("1.50"), None, None, 'say "hi", then go')
    with pytest.raises(ValueError, match=r"Row length mismatch. 5 fields expected but was 2"):
        decode(b"1,2")
    semicolons, _ = _codec("csv", **{"csv.field-delimiter": ";", "csv.null-literal": "n/a"})
    assert semicolons(b"1;n/a;n/a;n/a;n/a") == (1, None, None, None, None)


def test_raw_reads_one_column_of_strings_bytes_or_big_endian_numbers():
    decode, encode = _codec("raw", ["n"], [DataTypes.BIGINT()])
    assert encode(("+I", (258,))) == b"\x00\x00\x00\x00\x00\x00\x01\x02"
    assert decode(b"\x00\x00\x00\x00\x00\x00\x01\x02") == (258,)
    little, _ = _codec("raw", ["n"], [DataTypes.INT()], **{"raw.endianness": "little-endian"})
    assert little(b"\x02\x01\x00\x00") == (258,)
    text, _ = _codec("raw", ["s"], [DataTypes.STRING()])
    assert text("héllo".encode()) == ("héllo",)
    with pytest.raises(ValueError, match="only supports single physical column"):
        _codec("raw", ["a", "b"], [DataTypes.INT(), DataTypes.INT()])


def test_debezium_json_changes():
    decode, encode = _codec("debezium-json", ["id", "name"], [DataTypes.INT(), DataTypes.STRING()])
    assert decode(b'{"before":null,"after":{"id":1,"name":"a"},"op":"r"}') == [("+I", (1, "a"))]
    assert decode(b'{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"},"op":"u"}') == [
        ("-U", (1, "a")),
        ("+U", (1, "b")),
    ]
    assert decode(b'{"before":{"id":1,"name":"b"},"after":null,"op":"d"}') == [("-D", (1, "b"))]
    assert decode(None) == []  # a tombstone
    with pytest.raises(ValueError, match='The "before" field of UPDATE message is null'):
        decode(b'{"before":null,"after":{"id":1,"name":"b"},"op":"u"}')
    assert encode(("-U", (1, "a"))) == b'{"before":{"id":1,"name":"a"},"after":null,"op":"d"}'
    assert encode(("+U", (1, "b"))) == b'{"before":null,"after":{"id":1,"name":"b"},"op":"c"}'
    wrapped, _ = _codec(
        "debezium-json", ["id"], [DataTypes.INT()], **{"debezium-json.schema-include": "true"}
    )
    assert wrapped(b'{"schema":{},"payload":{"before":null,"after":{"id":5},"op":"c"}}') == [("+I", (5,))]


def test_canal_json_changes():
    names, types = ["id", "name", "price"], [DataTypes.INT(), DataTypes.STRING(), DataTypes.DECIMAL(10, 2)]
    decode, encode = _codec("canal-json", names, types)
    update = b'{"data":[{"id":"1","name":"a2","price":"1.5"}],"old":[{"name":"a"}],"type":"UPDATE"}'
    assert decode(update) == [
        ("-U", (1, "a", decimal.Decimal("1.50"))),
        ("+U", (1, "a2", decimal.Decimal("1.50"))),
    ]
    assert decode(b'{"data":null,"type":"CREATE","isDdl":true,"sql":"create table t"}') == []
    assert encode(("-D", (1, "a", decimal.Decimal("4.00")))) == (
        b'{"data":[{"id":1,"name":"a","price":4}],"type":"DELETE"}'
    )
    only_t, _ = _codec("canal-json", names, types, **{"canal-json.table.include": "t"})
    assert only_t(b'{"data":[{"id":1}],"table":"other","type":"INSERT"}') == []
    assert only_t(b'{"data":[{"id":1}],"table":"t","type":"INSERT"}') == [("+I", (1, None, None))]


def test_avro_round_trips_nullable_decimal_and_temporal_columns():
    types = [
        DataTypes.INT(False),
        DataTypes.DECIMAL(10, 2),
        DataTypes.TIMESTAMP(3),
        DataTypes.BYTES(),
        DataTypes.STRING(),
    ]
    decode, encode = _codec("avro", NAMES, types)
    assert decode(encode(("+I", ROW))) == ROW
    assert decode(encode(("+I", (2, None, None, None, None)))) == (2, None, None, None, None)
    # a NOT NULL INT is a plain Avro int (zigzag 1 = 0x02); a nullable column a union index first
    assert encode(("+I", (1, None, None, None, None))) == b"\x02\x00\x00\x00\x00"


def test_the_registry_names_what_it_has_and_takes_new_connectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The connector registered here is gone after the test: another test's message lists the
    connectors there are.)"""
    from millstream.table.common import factories

    monkeypatch.setattr(factories, "_table_factories", dict(factories._table_factories))
    with pytest.raises(
        ValueError, match=r"identifier 'nope' that implements DynamicTableFactory.*kafka, postgres-cdc, print"
    ):
        find_table_factory("nope")
    with pytest.raises(ValueError, match=r"identifier 'yaml' that implements Format.*avro, canal-json, csv"):
        find_format_factory("yaml")

    class Custom(DynamicTableFactory):
        identifier = "custom-test"
        options = frozenset({"path"})
        required_options = frozenset({"path"})

    register_table_factory(Custom())
    factory = find_table_factory("custom-test")
    context = TableContext(
        "t", Schema.new_builder().column("a", DataTypes.INT()).build(), {"path": "x", "pth": "y"}
    )
    with pytest.raises(ValueError, match="Unsupported options found for 'custom-test' in table 't': pth"):
        factory.validate(context, [])


def test_a_lenient_csv_record_keeps_its_row_with_nulls_as_flinks_format() -> None:
    from millstream.connectors.formats.row_formats import lenient_csv_row

    parsers = [("a", "INT", int), ("b", "STRING", str), ("c", "DOUBLE", float)]
    assert lenient_csv_row(parsers, ["oops", "y", "2.5"], None) == (None, "y", 2.5)
    assert lenient_csv_row(parsers, ["3", "z"], None) == (3, "z", None)
    assert lenient_csv_row(parsers, ["4", "w", "5.5", "extra"], None) is None
