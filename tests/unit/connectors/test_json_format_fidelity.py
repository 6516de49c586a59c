"""The JSON format reads values as Flink's does (``JsonParserToRowDataConverters``), and with
``json.ignore-parse-errors`` only the value that does not convert is NULL.

Each expectation is what PyFlink 2.3.0 printed for the same input (programs run on PyFlink with
a filesystem table of ``'format' = 'json'``, and the DataStream ``JsonRowDeserializationSchema``
called on the same bytes).
"""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path

import pytest

from millstream.common.typeinfo import Types
from millstream.common.types import Row
from millstream.connectors.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema
from millstream.table import DataTypes
from millstream.table.common.factories import Decoder, find_format_factory
from millstream.table.connectors.filesystem import _line_encoder, _read_json

# (name STRING, n INT), 'json.ignore-parse-errors' = 'true': PyFlink 2.3.0 printed
#   alice 1 | bob 2 | carol <NULL> | dave 4 | erin <NULL> | frank <NULL> | 5 6 | hank <NULL>
#   | ivy <NULL> | jon 9   (10 rows: 'this is not json', '[1,2]', the unterminated object and
#   '"just a string"' dropped)
LINES = [
    ('{"name":"alice","n":1}', ("alice", 1)),
    ('{"name":"bob","n":"2"}', ("bob", 2)),
    ('{"name":"carol","n":"x3"}', ("carol", None)),
    ("this is not json", None),
    ('{"name":"dave","n":4.5}', ("dave", 4)),
    ('{"name":"erin","n":true}', ("erin", None)),
    ('{"name":"frank","n":[1]}', ("frank", None)),
    ('{"name":5,"n":6}', ("5", 6)),
    ("[1,2]", None),
    ('{"name":"gina","n":7', None),
    ('{"name":"hank","n":{"a":1}}', ("hank", None)),
    ('"just a string"', None),
    ('{"name":"ivy","n":2147483648}', ("ivy", None)),
    ('{"name":"jon","n":" 9 "}', ("jon", 9)),
]
NAMES, TYPES = ["name", "n"], [DataTypes.STRING(), DataTypes.INT()]


def _decoder(**options: str) -> Decoder:
    return find_format_factory("json").decoder(NAMES, TYPES, options, "")


def test_ignore_parse_errors_keeps_the_row_with_only_the_failing_field_null() -> None:
    decode = _decoder(**{"json.ignore-parse-errors": "true"})
    assert [decode(line.encode()) for line, _ in LINES] == [expected for _, expected in LINES]


def test_the_filesystem_table_reads_the_same_rows(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text("".join(line + "\n" for line, _ in LINES) + "\n")  # a blank line is skipped
    rows = _read_json(str(path), list(zip(NAMES, TYPES)), {"json.ignore-parse-errors": "true"})
    assert rows == [expected for _, expected in LINES if expected is not None]


def test_without_ignore_a_value_that_does_not_convert_fails_naming_the_file_line_and_field(
    tmp_path: Path,
) -> None:
    """PyFlink 2.3.0: ``Failed to deserialize JSON '{"name":"carol","n":"x3"}'`` caused by
    ``Fail to deserialize at field: n``; a number with a fraction is truncated there too
    (``{"name":"dave","n":4.5}`` is ``+I[dave, 4]`` without ignore-parse-errors)."""
    decode = _decoder()
    assert decode(b'{"name":"dave","n":4.5}') == ("dave", 4)
    assert decode(b'{"name":"a","n":1} trailing') == ("a", 1)  # Jackson reads the first value only
    with pytest.raises(ValueError, match=r"Failed to deserialize JSON .*Fail to deserialize at field: n"):
        decode(b'{"name":"carol","n":"x3"}')
    with pytest.raises(ValueError, match=r"out of range"):
        decode(b'{"name":"ivy","n":2147483648}')
    path = tmp_path / "bad.json"
    path.write_text('{"name":"alice","n":1}\n{"name":"carol","n":"x3"}\n')
    with pytest.raises(ValueError, match=rf"{path}, line 2: Fail to deserialize at field: n"):
        _read_json(str(path), list(zip(NAMES, TYPES)), {})


def test_values_of_every_type_convert_as_flinks_json_format() -> None:
    """PyFlink 2.3.0 printed, for these three lines of (s STRING, b BOOLEAN, d DOUBLE, `dec`
    DECIMAL(5, 2), ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), dt DATE, tm TIME(3), arr ARRAY<INT>,
    r ROW<a INT, b INT>, m MAP<STRING, INT>, bt BYTES) with ignore-parse-errors, in UTC:

        1.50 | TRUE | 1.5 | 12.35 | 2024-01-02 03:04:05.678 | 2024-01-02 03:04:05.000 |
          2024-01-02 | 03:04:05.123 | [1, NULL, 3] | (7, NULL) | {j=NULL, k=1} | x'0102ff'
        {"x":[1,2]} | FALSE | NULL ... (every other column NULL)
        plain | FALSE | 7.0 | 100.00 | 2024-01-02 03:04:05.000 | 2024-01-02 03:04:05.500 |
          2024-01-02 | 03:04:05.0 | [] | (1, NULL) | {} | x''
    """
    names = ["s", "b", "d", "dec", "ts", "ltz", "dt", "tm", "arr", "r", "m", "bt"]
    types = [
        DataTypes.STRING(),
        DataTypes.BOOLEAN(),
        DataTypes.DOUBLE(),
        DataTypes.DECIMAL(5, 2),
        DataTypes.TIMESTAMP(3),
        DataTypes.TIMESTAMP_LTZ(3),
        DataTypes.DATE(),
        DataTypes.TIME(3),
        DataTypes.ARRAY(DataTypes.INT()),
        DataTypes.ROW([DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("b", DataTypes.INT())]),
        DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()),
        DataTypes.BYTES(),
    ]
    decode = find_format_factory("json").decoder(names, types, {"json.ignore-parse-errors": "true"}, "")
    first = decode(
        b'{"s":1.50,"b":"TRUE","d":"1.5f","dec":"12.345","ts":"2024-01-02 03:04:05.678",'
        b'"ltz":"2024-01-02 03:04:05Z","dt":"2024-01-02","tm":"03:04:05.123","arr":[1,"x",3],'
        b'"r":{"a":"7","b":"bad"},"m":{"k":"1","j":"z"},"bt":"AQL/"}'
    )
    utc = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC).astimezone().replace(tzinfo=None)
    assert first is not None
    assert first[:8] == (
        "1.50",
        True,
        1.5,
        decimal.Decimal("12.35"),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
        utc,
        datetime.date(2024, 1, 2),
        datetime.time(3, 4, 5, 123000),
    )
    assert first[8] == [1, None, 3] and tuple(first[9]) == (7, None)
    assert first[10] == {"k": 1, "j": None} and first[11] == b"\x01\x02\xff"
    second = decode(
        b'{"s":{"x":[1,2]},"b":"yes","d":true,"dec":123456.7,"ts":"2024-01-02T03:04:05",'
        b'"ltz":"2024-01-02 03:04:05","dt":"2024-1-2","tm":"3:04:05","arr":"notarray","r":5,'
        b'"m":[1],"bt":"!!"}'
    )
    assert second == ('{"x":[1,2]}', False) + (None,) * 10
    third = decode(
        b'{"s":"plain","b":false,"d":7,"dec":1e2,"ts":"2024-01-02 03:04:05",'
        b'"ltz":"2024-01-02 03:04:05.5Z","dt":"2024-01-02","tm":"03:04:05","arr":[],"r":{"a":1},'
        b'"m":{},"bt":""}'
    )
    assert third is not None
    assert third[:4] == ("plain", False, 7.0, decimal.Decimal("100.00"))
    assert third[5] == utc.replace(microsecond=500000) and third[8:] == ([], third[9], {}, b"")
    assert tuple(third[9]) == (1, None)


def test_the_datastream_schema_keeps_the_record_with_the_failing_field_none() -> None:
    """PyFlink 2.3.0's ``JsonRowDeserializationSchema`` of ROW_NAMED(['name', 'n'], [STRING,
    INT]) deserialized: with ignore_parse_errors ``{"name":"carol","n":"x3"}`` -> +I[carol, null],
    ``{"name":"dave","n":4.5}`` -> +I[dave, 4], ``{"name":"ivy","n":2147483648}`` -> +I[ivy, null],
    ``not json`` and ``[1]`` -> null; without it "x3" fails with NumberFormatException."""
    row = Types.ROW_NAMED(["name", "n"], [Types.STRING(), Types.INT()])
    lenient = JsonRowDeserializationSchema.builder().type_info(row).ignore_parse_errors().build()
    got = [
        lenient.deserialize(line)
        for line in (
            b'{"name":"carol","n":"x3"}',
            b'{"name":"dave","n":4.5}',
            b'{"name":"ivy","n":2147483648}',
            b"not json",
            b"[1]",
        )
    ]
    assert [None if r is None else tuple(r) for r in got] == [
        ("carol", None),
        ("dave", 4),
        ("ivy", None),
        None,
        None,
    ]
    strict = JsonRowDeserializationSchema.builder().type_info(row).build()
    with pytest.raises(ValueError, match=r"field 'n'"):
        strict.deserialize(b'{"name":"carol","n":"x3"}')


def test_a_json_key_schema_takes_the_first_fields_of_a_longer_row() -> None:
    """PyFlink 2.3.0's JsonRowSerializationSchema of ROW_NAMED(['id'], [INT]) serialized the row
    (1, 'a', 2) as {"id":1}; of ROW_NAMED(['id', 'name'], ...) the row (1,) failed: "Could not
    serialize row '+I[1]'. Make sure that the schema matches the input." (before, millstream
    failed with 'zip() argument 2 is longer than argument 1')."""
    key = JsonRowSerializationSchema.builder().with_type_info(Types.ROW_NAMED(["id"], [Types.INT()])).build()
    assert key.serialize(Row(1, "a", 2)) == b'{"id":1}'
    pair = (
        JsonRowSerializationSchema.builder()
        .with_type_info(Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()]))
        .build()
    )
    with pytest.raises(
        ValueError,
        match=r"Could not serialize row .*\(id: INT, name: STRING\): the row has 1 fields, the schema 2",
    ):
        pair.serialize(Row(1))


def test_the_filesystem_sink_writes_json_lines_as_pyflink() -> None:
    """PyFlink 2.3.0 wrote these two lines for (i INT, d DOUBLE, f FLOAT, de DECIMAL(10, 3), b
    BOOLEAN, ts TIMESTAMP(3), dt DATE, tm TIME(3), arr ARRAY<INT>, ltz TIMESTAMP_LTZ(3), s
    STRING, n STRING), in UTC (millstream wrote decimals as strings, 1e+20, bytes as x'..', an
    array as "[1, 2]")."""
    types = [
        DataTypes.INT(),
        DataTypes.DOUBLE(),
        DataTypes.FLOAT(),
        DataTypes.DECIMAL(10, 3),
        DataTypes.BOOLEAN(),
        DataTypes.TIMESTAMP(3),
        DataTypes.DATE(),
        DataTypes.TIME(3),
        DataTypes.ARRAY(DataTypes.INT()),
        DataTypes.TIMESTAMP_LTZ(3),
        DataTypes.STRING(),
        DataTypes.STRING(),
    ]
    names = ["i", "d", "f", "de", "b", "ts", "dt", "tm", "arr", "ltz", "s", "n"]
    to_json = _line_encoder("json", names, types, list(range(len(names))), {})

    def ltz(millis: int) -> datetime.datetime:
        stamp = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(milliseconds=millis)
        return stamp.astimezone().replace(tzinfo=None)

    day = datetime.date(2024, 1, 2)
    rows = [
        (-5, 1e20, 2.25, decimal.Decimal("-3.500"), True, datetime.datetime(2024, 1, 2, 3, 4, 5, 600000), day,
         datetime.time(3, 4, 5, 123000), [1, 2], ltz(1704164645678), 'say "hi"', None),
        (0, 0.1, 1e-5, decimal.Decimal("100.000"), False, datetime.datetime(2024, 1, 2, 3, 4, 5), day,
         datetime.time(3, 4), [3], ltz(0), "é", "x"),
    ]  # fmt: skip
    assert "".join(to_json(r) + "\n" for r in rows).encode("utf-8") == (
        b'{"i":-5,"d":1.0E20,"f":2.25,"de":-3.5,"b":true,"ts":"2024-01-02 03:04:05.6","dt":"2024-01-02",'
        b'"tm":"03:04:05.123","arr":[1,2],"ltz":"2024-01-02 03:04:05.678Z","s":"say \\"hi\\"","n":null}\n'
        b'{"i":0,"d":0.1,"f":1.0E-5,"de":1E+2,"b":false,"ts":"2024-01-02 03:04:05","dt":"2024-01-02",'
        b'"tm":"03:04:00","arr":[3],"ltz":"1970-01-01 00:00:00Z","s":"\xc3\xa9","n":"x"}\n'
    )
    # a 30-digit DECIMAL(32, 2) of datagen keeps every digit: PyFlink 2.3.0 wrote
    # "amount":619655533488344883041325285376 and "amount":8.423446656557767254737944576E+29
    wide = _line_encoder("json", ["amount"], [DataTypes.DECIMAL(32, 2)], [0], {})
    assert wide((decimal.Decimal("619655533488344883041325285376.00"),)) == (
        '{"amount":619655533488344883041325285376}'
    )
    assert wide((decimal.Decimal("842344665655776725473794457600.00"),)) == (
        '{"amount":8.423446656557767254737944576E+29}'
    )
