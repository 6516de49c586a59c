"""The json format writes values as Flink 2.3's JSON formats do: ROW as an object, ARRAY as an
array, MAP as an object, DECIMAL as a number, BYTES as base64, temporal values in
``json.timestamp-format.standard``, and the writer options (``json.encode.ignore-null-fields``,
``json.encode.decimal-as-plain-number``, ``json.map-null-key.mode``); the same rows inside the
``debezium-json`` and ``canal-json`` envelopes.

Every expected line is what PyFlink 2.3.0 wrote to a filesystem table of that format (batch,
UTC, ``INSERT INTO t SELECT <one row of literals>``), byte for byte; the row here holds the
values Flink computed for those literals.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Sequence
from typing import Any

import pytest

from millstream.common.types import Row
from millstream.table.common.factories import INSERT, find_format_factory
from millstream.table.common.timestamps import from_epoch_millis, with_nano_of_second
from millstream.table.common.types import DataType, DataTypes

D = DataTypes
COLUMNS: list[tuple[str, DataType, Any]] = [
    ("ti", D.TINYINT(), -5),
    ("si", D.SMALLINT(), 300),
    ("i", D.INT(), 7),
    ("bi", D.BIGINT(), 9000000000),
    ("f", D.FLOAT(), 1.5),
    ("d", D.DOUBLE(), 1e20),
    ("dec1", D.DECIMAL(10, 2), decimal.Decimal("1.50")),
    ("dec2", D.DECIMAL(38, 18), decimal.Decimal("12345.678900000000000001")),
    ("dec3", D.DECIMAL(5, 0), decimal.Decimal("100")),
    ("b", D.BOOLEAN(), True),
    ("s", D.STRING(), 'a"b\\c/é\t<>&\x01('),
    ("c", D.CHAR(3), "ab "),
    ("vc", D.VARCHAR(5), "xy"),
    ("bin", D.BINARY(3), b"abc"),
    ("vb", D.VARBINARY(4), b"ab"),
    ("by1", D.BYTES(), b"hello"),
    ("dt", D.DATE(), datetime.date(2024, 2, 29)),
    ("tm", D.TIME(0), datetime.time(13, 4, 5)),
    ("tm3", D.TIME(3), datetime.time(13, 4, 5, 123000)),
    ("ts0", D.TIMESTAMP(0), datetime.datetime(2024, 1, 2, 3, 4, 5)),
    ("ts3", D.TIMESTAMP(3), datetime.datetime(2024, 1, 2, 3, 4, 5, 120000)),
    ("ts6", D.TIMESTAMP(6), datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    ("ts9", D.TIMESTAMP(9), with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 123456789)),
    ("ltz3", D.TIMESTAMP_LTZ(3), from_epoch_millis(1704164645120, "TIMESTAMP_LTZ")),
    ("ltz6", D.TIMESTAMP_LTZ(6), from_epoch_millis(1704164645000, "TIMESTAMP_LTZ")),
    ("arr", D.ARRAY(D.INT()), [1, 2, None]),
    ("arrs", D.ARRAY(D.STRING()), ["a", "b"]),
    (
        "arrr",
        D.ARRAY(D.ROW([D.FIELD("x", D.INT()), D.FIELD("y", D.STRING())])),
        [Row(1, "p"), Row(2, None)],
    ),
    ("m", D.MAP(D.STRING(), D.INT()), {"k1": 1, "k2": None}),
    ("mi", D.MAP(D.STRING(), D.ARRAY(D.STRING())), {"3": ["u"]}),
    ("r", D.ROW([D.FIELD("q", D.STRING()), D.FIELD("n", D.INT())]), Row("q", 3)),
    (
        "rn",
        D.ROW([D.FIELD("inr", D.ROW([D.FIELD("z", D.DOUBLE())])), D.FIELD("t", D.TIMESTAMP(3))]),
        Row(Row(0.5), datetime.datetime(2024, 1, 2, 3, 4, 5, 500000)),
    ),
]
NAMES = [name for name, _, _ in COLUMNS]
TYPES = [data_type for _, data_type, _ in COLUMNS]
VALUES = tuple(value for _, _, value in COLUMNS)
NULLS = tuple(None for _ in COLUMNS)

# PyFlink 2.3.0 writes, for the row above and for a row of NULLs (format, options):
WRITTEN = {
    "sql": (
        (
            '{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,"dec1":1.5,'
            '"dec2":12345.678900000000000001,"dec3":1E+2,"b":true,"s":"a\\"b\\\\c/é\\t<>&\\u0001(",'
            '"c":"ab ","vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=","dt":"2024-02-29",'
            '"tm":"13:04:05","tm3":"13:04:05.123","ts0":"2024-01-02 03:04:05",'
            '"ts3":"2024-01-02 03:04:05.12","ts6":"2024-01-02 03:04:05.123456",'
            '"ts9":"2024-01-02 03:04:05.123456789","ltz3":"2024-01-02 03:04:05.12Z",'
            '"ltz6":"2024-01-02 03:04:05Z","arr":[1,2,null],"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},'
            '{"x":2,"y":null}],"m":{"k1":1,"k2":null},"mi":{"3":["u"]},"r":{"q":"q","n":3},'
            '"rn":{"inr":{"z":0.5},"t":"2024-01-02 03:04:05.5"}}'
        ),
        (
            '{"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"dec1":null,"dec2":null,'
            '"dec3":null,"b":null,"s":null,"c":null,"vc":null,"bin":null,"vb":null,"by1":null,'
            '"dt":null,"tm":null,"tm3":null,"ts0":null,"ts3":null,"ts6":null,"ts9":null,"ltz3":null,'
            '"ltz6":null,"arr":null,"arrs":null,"arrr":null,"m":null,"mi":null,"r":null,"rn":null}'
        ),
    ),
    "iso": (
        (
            '{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,"dec1":1.5,'
            '"dec2":12345.678900000000000001,"dec3":1E+2,"b":true,"s":"a\\"b\\\\c/é\\t<>&\\u0001(",'
            '"c":"ab ","vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=","dt":"2024-02-29",'
            '"tm":"13:04:05","tm3":"13:04:05.123","ts0":"2024-01-02T03:04:05",'
            '"ts3":"2024-01-02T03:04:05.12","ts6":"2024-01-02T03:04:05.123456",'
            '"ts9":"2024-01-02T03:04:05.123456789","ltz3":"2024-01-02T03:04:05.12Z",'
            '"ltz6":"2024-01-02T03:04:05Z","arr":[1,2,null],"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},'
            '{"x":2,"y":null}],"m":{"k1":1,"k2":null},"mi":{"3":["u"]},"r":{"q":"q","n":3},'
            '"rn":{"inr":{"z":0.5},"t":"2024-01-02T03:04:05.5"}}'
        ),
        (
            '{"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"dec1":null,"dec2":null,'
            '"dec3":null,"b":null,"s":null,"c":null,"vc":null,"bin":null,"vb":null,"by1":null,'
            '"dt":null,"tm":null,"tm3":null,"ts0":null,"ts3":null,"ts6":null,"ts9":null,"ltz3":null,'
            '"ltz6":null,"arr":null,"arrs":null,"arrr":null,"m":null,"mi":null,"r":null,"rn":null}'
        ),
    ),
    "ignnull": (
        (
            '{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,"dec1":1.5,'
            '"dec2":12345.678900000000000001,"dec3":1E+2,"b":true,"s":"a\\"b\\\\c/é\\t<>&\\u0001(",'
            '"c":"ab ","vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=","dt":"2024-02-29",'
            '"tm":"13:04:05","tm3":"13:04:05.123","ts0":"2024-01-02 03:04:05",'
            '"ts3":"2024-01-02 03:04:05.12","ts6":"2024-01-02 03:04:05.123456",'
            '"ts9":"2024-01-02 03:04:05.123456789","ltz3":"2024-01-02 03:04:05.12Z",'
            '"ltz6":"2024-01-02 03:04:05Z","arr":[1,2,null],"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},'
            '{"x":2}],"m":{"k1":1,"k2":null},"mi":{"3":["u"]},"r":{"q":"q","n":3},'
            '"rn":{"inr":{"z":0.5},"t":"2024-01-02 03:04:05.5"}}'
        ),
        "{}",
    ),
    "plain": (
        (
            '{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,"dec1":1.50,'
            '"dec2":12345.678900000000000001,"dec3":100,"b":true,"s":"a\\"b\\\\c/é\\t<>&\\u0001(","c":"ab ",'
            '"vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=","dt":"2024-02-29","tm":"13:04:05",'
            '"tm3":"13:04:05.123","ts0":"2024-01-02 03:04:05","ts3":"2024-01-02 03:04:05.12",'
            '"ts6":"2024-01-02 03:04:05.123456","ts9":"2024-01-02 03:04:05.123456789",'
            '"ltz3":"2024-01-02 03:04:05.12Z","ltz6":"2024-01-02 03:04:05Z","arr":[1,2,null],'
            '"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},{"x":2,"y":null}],"m":{"k1":1,"k2":null},'
            '"mi":{"3":["u"]},"r":{"q":"q","n":3},"rn":{"inr":{"z":0.5},"t":"2024-01-02 03:04:05.5"}}'
        ),
        (
            '{"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"dec1":null,"dec2":null,'
            '"dec3":null,"b":null,"s":null,"c":null,"vc":null,"bin":null,"vb":null,"by1":null,'
            '"dt":null,"tm":null,"tm3":null,"ts0":null,"ts3":null,"ts6":null,"ts9":null,"ltz3":null,'
            '"ltz6":null,"arr":null,"arrs":null,"arrr":null,"m":null,"mi":null,"r":null,"rn":null}'
        ),
    ),
    "deb": (
        (
            '{"before":null,"after":{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,'
            '"dec1":1.5,"dec2":12345.678900000000000001,"dec3":1E+2,"b":true,'
            '"s":"a\\"b\\\\c/é\\t<>&\\u0001(","c":"ab ","vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=",'
            '"dt":"2024-02-29","tm":"13:04:05","tm3":"13:04:05.123","ts0":"2024-01-02 03:04:05",'
            '"ts3":"2024-01-02 03:04:05.12","ts6":"2024-01-02 03:04:05.123456",'
            '"ts9":"2024-01-02 03:04:05.123456789","ltz3":"2024-01-02 03:04:05.12Z",'
            '"ltz6":"2024-01-02 03:04:05Z","arr":[1,2,null],"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},'
            '{"x":2,"y":null}],"m":{"k1":1,"k2":null},"mi":{"3":["u"]},"r":{"q":"q","n":3},'
            '"rn":{"inr":{"z":0.5},"t":"2024-01-02 03:04:05.5"}},"op":"c"}'
        ),
        (
            '{"before":null,"after":{"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,'
            '"dec1":null,"dec2":null,"dec3":null,"b":null,"s":null,"c":null,"vc":null,"bin":null,'
            '"vb":null,"by1":null,"dt":null,"tm":null,"tm3":null,"ts0":null,"ts3":null,"ts6":null,'
            '"ts9":null,"ltz3":null,"ltz6":null,"arr":null,"arrs":null,"arrr":null,"m":null,"mi":null,'
            '"r":null,"rn":null},"op":"c"}'
        ),
    ),
    "canal": (
        (
            '{"data":[{"ti":-5,"si":300,"i":7,"bi":9000000000,"f":1.5,"d":1.0E20,"dec1":1.5,'
            '"dec2":12345.678900000000000001,"dec3":1E+2,"b":true,"s":"a\\"b\\\\c/é\\t<>&\\u0001(",'
            '"c":"ab ","vc":"xy","bin":"YWJj","vb":"YWI=","by1":"aGVsbG8=","dt":"2024-02-29",'
            '"tm":"13:04:05","tm3":"13:04:05.123","ts0":"2024-01-02 03:04:05",'
            '"ts3":"2024-01-02 03:04:05.12","ts6":"2024-01-02 03:04:05.123456",'
            '"ts9":"2024-01-02 03:04:05.123456789","ltz3":"2024-01-02 03:04:05.12Z",'
            '"ltz6":"2024-01-02 03:04:05Z","arr":[1,2,null],"arrs":["a","b"],"arrr":[{"x":1,"y":"p"},'
            '{"x":2,"y":null}],"m":{"k1":1,"k2":null},"mi":{"3":["u"]},"r":{"q":"q","n":3},'
            '"rn":{"inr":{"z":0.5},"t":"2024-01-02 03:04:05.5"}}],"type":"INSERT"}'
        ),
        (
            '{"data":[{"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"dec1":null,'
            '"dec2":null,"dec3":null,"b":null,"s":null,"c":null,"vc":null,"bin":null,"vb":null,'
            '"by1":null,"dt":null,"tm":null,"tm3":null,"ts0":null,"ts3":null,"ts6":null,"ts9":null,'
            '"ltz3":null,"ltz6":null,"arr":null,"arrs":null,"arrr":null,"m":null,"mi":null,"r":null,'
            '"rn":null}],"type":"INSERT"}'
        ),
    ),
}
FORMATS = {
    "sql": ("json", {}),
    "iso": ("json", {"json.timestamp-format.standard": "ISO-8601"}),
    "ignnull": ("json", {"json.encode.ignore-null-fields": "true"}),
    "plain": ("json", {"json.encode.decimal-as-plain-number": "true"}),
    "deb": ("debezium-json", {}),
    "canal": ("canal-json", {}),
}


def _encode(
    identifier: str, options: dict[str, str], names: list[str], types: list[DataType], row: Any
) -> str:
    encoder = find_format_factory(identifier).encoder(names, types, options, "")
    data = encoder((INSERT, tuple(row)))
    assert data is not None
    return data.decode("utf-8")


@pytest.mark.parametrize("case", sorted(WRITTEN))
def test_a_row_of_every_type_is_written_byte_for_byte_as_pyflink(case: str) -> None:
    identifier, options = FORMATS[case]
    written = tuple(_encode(identifier, options, NAMES, TYPES, row) for row in (VALUES, NULLS))
    assert written == WRITTEN[case]


def _one(identifier: str, options: dict[str, str], columns: Sequence[tuple[str, DataType, Any]]) -> str:
    return _encode(
        identifier, options, [c[0] for c in columns], [c[1] for c in columns], [c[2] for c in columns]
    )


def test_text_numbers_and_control_characters_as_jackson_writes_them() -> None:
    """PyFlink 2.3.0 writes ``{"s":"\\u001F\\u007f\\b\\f\\n\\r\\u2028é\\u001F600",...}`` with
    U+007F and U+2028 as raw UTF-8, the hex of an escape upper-case, NaN and -Infinity as
    strings, FLOAT 1.1 as 1.1 and 3.4028235E38, DOUBLE 1.0E-5."""
    columns = [
        ("s", D.STRING(), "\x1f\x7f\x08\x0c\n\r\u2028é\x1f600"),
        ("f", D.FLOAT(), 1.100000023841858),
        ("d", D.DOUBLE(), float("nan")),
        ("d2", D.DOUBLE(), float("-inf")),
        ("d3", D.DOUBLE(), 0.0),
        ("d4", D.DOUBLE(), 1e-5),
        ("f2", D.FLOAT(), 3.4028234663852886e38),
    ]
    assert _one("json", {}, columns) == (
        '{"s":"\\u001F\x7f\\b\\f\\n\\r\u2028é\\u001F600","f":1.1,"d":"NaN","d2":"-Infinity",'
        '"d3":0.0,"d4":1.0E-5,"f2":3.4028235E38}'
    )


def test_map_null_keys_by_the_mode() -> None:
    """PyFlink 2.3.0, ``MAP[CAST(NULL AS STRING), 1, 'a', 2]``: FAIL (the default) fails the job
    with "JSON format doesn't support to serialize map data with null keys. You can drop null
    key entries or encode null in literals by specifying map-null-key.mode option."; DROP writes
    ``{"m":{"a":2}}``; LITERAL with literal 'nil' writes ``{"m":{"nil":1,"a":2}}``."""
    column = [("m", D.MAP(D.STRING(), D.INT()), {None: 1, "a": 2})]
    with pytest.raises(ValueError, match="JSON format doesn't support to serialize map data with null keys"):
        _one("json", {}, column)
    assert _one("json", {"json.map-null-key.mode": "DROP"}, column) == '{"m":{"a":2}}'
    literal = {"json.map-null-key.mode": "LITERAL", "json.map-null-key.literal": "nil"}
    assert _one("json", literal, column) == '{"m":{"nil":1,"a":2}}'


def test_a_map_of_other_keys_is_refused() -> None:
    """PyFlink 2.3.0 refuses a MAP<INT, ARRAY<STRING>> column of a json table: "JSON format
    doesn't support non-string as key type of map. The type is: MAP<INT, ARRAY<STRING>>"."""
    with pytest.raises(ValueError, match=r"The type is: MAP<INT, ARRAY<STRING>>$"):
        find_format_factory("json").encoder(["mi"], [D.MAP(D.INT(), D.ARRAY(D.STRING()))], {}, "")


TIMES = [
    ("t0", D.TIME(0), datetime.time(1, 2, 3)),
    ("t3", D.TIME(3), datetime.time(1, 2, 3, 500000)),
    ("ts9a", D.TIMESTAMP(9), datetime.datetime(2024, 1, 2, 3, 4, 5, 100000)),
    ("ts9b", D.TIMESTAMP(9), with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 1)),
    ("ts3", D.TIMESTAMP(3), datetime.datetime(1, 1, 1)),
    ("ltz9", D.TIMESTAMP_LTZ(9), from_epoch_millis(1704164645123, "TIMESTAMP_LTZ")),
    ("ltz0", D.TIMESTAMP_LTZ(0), from_epoch_millis(1704164645000, "TIMESTAMP_LTZ")),
]


def test_temporal_values_in_both_standards() -> None:
    """PyFlink 2.3.0 writes the fraction to the nanosecond without trailing zeros, year 1 with
    four digits."""
    assert _one("json", {}, TIMES) == (
        '{"t0":"01:02:03","t3":"01:02:03.5","ts9a":"2024-01-02 03:04:05.1",'
        '"ts9b":"2024-01-02 03:04:05.000000001","ts3":"0001-01-01 00:00:00",'
        '"ltz9":"2024-01-02 03:04:05.123Z","ltz0":"2024-01-02 03:04:05Z"}'
    )
    assert _one("json", {"json.timestamp-format.standard": "ISO-8601"}, TIMES) == (
        '{"t0":"01:02:03","t3":"01:02:03.5","ts9a":"2024-01-02T03:04:05.1","ts9b":"2024-01-02T03:04:05.000000001",'
        '"ts3":"0001-01-01T00:00:00","ltz9":"2024-01-02T03:04:05.123Z","ltz0":"2024-01-02T03:04:05Z"}'
    )


def test_ignore_null_fields_leaves_out_nulls_of_rows_only() -> None:
    """PyFlink 2.3.0 with ``json.encode.ignore-null-fields``: a NULL field of a row, nested rows
    too, is left out; a NULL element of an array and a NULL value of a map are written."""
    columns = [
        (
            "r",
            D.ROW(
                [
                    D.FIELD("a", D.INT()),
                    D.FIELD("b", D.ROW([D.FIELD("c", D.STRING()), D.FIELD("d", D.INT())])),
                ]
            ),
            Row(None, Row(None, 4)),
        ),
        ("ar", D.ARRAY(D.ROW([D.FIELD("x", D.INT()), D.FIELD("y", D.STRING())])), [Row(1, None), None]),
        (
            "m",
            D.MAP(D.STRING(), D.ROW([D.FIELD("p", D.INT()), D.FIELD("q", D.INT())])),
            {"k": Row(None, 2), "n": None},
        ),
    ]
    assert _one("json", {"json.encode.ignore-null-fields": "true"}, columns) == (
        '{"r":{"b":{"d":4}},"ar":[{"x":1},null],"m":{"k":{"q":2},"n":null}}'
    )


def test_decimals_without_and_with_plain_numbers() -> None:
    """PyFlink 2.3.0: DECIMAL(38,0) 12345678901234567890123456789012345678, DECIMAL(20,10)
    0.0000000100 as 1E-8 (plain: 0.0000000100), DECIMAL(5,4) 0 as 0 (0.0000), DECIMAL(10,2)
    -1200.00 as -1.2E+3 (-1200.00), DECIMAL(3,0) 0 as 0."""
    columns = [
        ("a", D.DECIMAL(38, 0), decimal.Decimal("12345678901234567890123456789012345678")),
        ("b", D.DECIMAL(20, 10), decimal.Decimal("0.0000000100")),
        ("c", D.DECIMAL(5, 4), decimal.Decimal("0.0000")),
        ("e", D.DECIMAL(10, 2), decimal.Decimal("-1200.00")),
        ("f", D.DECIMAL(3, 0), decimal.Decimal("0")),
    ]
    assert (
        _one("json", {}, columns)
        == '{"a":12345678901234567890123456789012345678,"b":1E-8,"c":0,"e":-1.2E+3,"f":0}'
    )
    assert _one("json", {"json.encode.decimal-as-plain-number": "true"}, columns) == (
        '{"a":12345678901234567890123456789012345678,"b":0.0000000100,"c":0.0000,"e":-1200.00,"f":0}'
    )


def test_changelog_envelopes_take_the_writer_options() -> None:
    """PyFlink 2.3.0: debezium-json with ``debezium-json.encode.ignore-null-fields`` writes
    ``{"after":{"a":1},"op":"c"}`` (the NULL ``before`` left out too); canal-json with
    ``canal-json.encode.ignore-null-fields`` ``{"data":[{"a":1}],"type":"INSERT"}``; debezium-json
    with ``debezium-json.encode.decimal-as-plain-number`` ``{"before":null,"after":{"a":1.50},"op":"c"}``."""
    columns = [("a", D.INT(), 1), ("b", D.STRING(), None)]
    assert _one("debezium-json", {"debezium-json.encode.ignore-null-fields": "true"}, columns) == (
        '{"after":{"a":1},"op":"c"}'
    )
    assert _one("canal-json", {"canal-json.encode.ignore-null-fields": "true"}, columns) == (
        '{"data":[{"a":1}],"type":"INSERT"}'
    )
    plain = {"debezium-json.encode.decimal-as-plain-number": "true"}
    assert _one("debezium-json", plain, [("a", D.DECIMAL(5, 2), decimal.Decimal("1.50"))]) == (
        '{"before":null,"after":{"a":1.50},"op":"c"}'
    )


def test_nanoseconds_are_read_and_written_again() -> None:
    """PyFlink 2.3.0 reads ``{"t":"2024-01-02 03:04:05.123456789","l":"2024-01-02
    03:04:05.123456789Z"}`` into TIMESTAMP(9) / TIMESTAMP_LTZ(9) columns as
    ``2024-01-02 03:04:05.123456789`` (printed, UTC), unequal to ``...788``."""
    names, types = ["t", "l"], [D.TIMESTAMP(9), D.TIMESTAMP_LTZ(9)]
    line = b'{"t":"2024-01-02 03:04:05.123456789","l":"2024-01-02 03:04:05.123456789Z"}'
    row = find_format_factory("json").decoder(names, types, {}, "")(line)
    assert row is not None
    assert row[0] == with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 123456789)
    assert row[0] != with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 123456788)
    assert _encode("json", {}, names, types, row) == line.decode()
