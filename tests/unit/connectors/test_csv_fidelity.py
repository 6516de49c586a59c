"""Flink's CSV formats read and write CSV as Jackson's dataformat-csv does: one empty trailing
field more is allowed when reading (ALLOW_TRAILING_COMMA), and a text field is quoted when
Jackson's CsvEncoder would quote it. Every expectation is what PyFlink 2.3.0 read or wrote for
the same input (filesystem tables of 'format' = 'csv', the DataStream CsvRow(De)Serialization
schemas called on the same rows, a CsvBulkWriters FileSink).
"""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path
from typing import Any

import pytest

from millstream.common.typeinfo import Types
from millstream.common.types import Row
from millstream.connectors.formats.csv import CsvBulkWriters, CsvSchema
from millstream.connectors.formats.csv_row import CsvRowDeserializationSchema, CsvRowSerializationSchema
from millstream.table import DataTypes
from millstream.table.common.factories import find_format_factory
from millstream.table.connectors.filesystem import _line_encoder, _read_csv

# -- reading ---------------------------------------------------------------------------------------------

ONE = 'one two\nthree four,\nfive,six\nseven, \neight,,\n"nine,ten"\n"q""uote",\n'
TWO = "a,1\nb,2,\nc,3, \nd,4,,\ne\nf,x\ng,5,z\n"


def _read(tmp_path: Path, text: str, columns: list[tuple[str, Any]], **options: str) -> list[tuple[Any, ...]]:
    path = tmp_path / "in.csv"
    path.write_text(text)
    return _read_csv(str(path), columns, options)


def test_one_empty_trailing_field_is_read_as_pyflink_reads_it(tmp_path: Path) -> None:
    """PyFlink 2.3.0 with 'csv.ignore-parse-errors' = 'true' printed, for one column
    (w STRING): one two | three four | seven | nine,ten | q"uote; for (s STRING, n INT): a 1 |
    b 2 | c 3 | e NULL | f NULL. (A public word count lost 'three four,' here before.)"""
    ignore = {"csv.ignore-parse-errors": "true"}
    one = _read(tmp_path, ONE, [("w", DataTypes.STRING())], **ignore)
    assert one == [("one two",), ("three four",), ("seven",), ("nine,ten",), ('q"uote',)]
    two = _read(tmp_path, TWO, [("s", DataTypes.STRING()), ("n", DataTypes.INT())], **ignore)
    assert two == [("a", 1), ("b", 2), ("c", 3), ("e", None), ("f", None)]


def test_without_ignore_an_extra_field_fails_as_jacksons_too_many_entries(tmp_path: Path) -> None:
    """PyFlink 2.3.0 failed on the first record with a field too many that is not one empty
    trailing field: 'Too many entries: expected at most 1 (value #1 (3 chars) "six")' (line 3
    of ONE), 'Too many entries: expected at most 2 (value #2 (0 chars) "")' (line 4 of TWO)."""
    with pytest.raises(
        ValueError,
        match=r'in.csv, line 3: Too many entries: expected at most 1 \(value #1 \(3 chars\) "six"\)',
    ):
        _read(tmp_path, ONE, [("w", DataTypes.STRING())])
    with pytest.raises(
        ValueError, match=r'line 4: Too many entries: expected at most 2 \(value #2 \(0 chars\) ""\)'
    ):
        _read(tmp_path, TWO, [("s", DataTypes.STRING()), ("n", DataTypes.INT())])


def test_an_empty_line_is_one_empty_field(tmp_path: Path) -> None:
    """PyFlink 2.3.0: 'one / (empty) / two' of (w STRING) printed three rows, the second
    empty; 'a,1 / (empty) / b,2 /    / c,3' of (s STRING, n INT) failed 'Row length mismatch.
    2 fields expected but was 1.', and with ignore-parse-errors gave a 1 | '' NULL | b 2 |
    '   ' NULL | c 3."""
    assert _read(tmp_path, "one\n\ntwo\n", [("w", DataTypes.STRING())]) == [("one",), ("",), ("two",)]
    columns = [("s", DataTypes.STRING()), ("n", DataTypes.INT())]
    text = "a,1\n\nb,2\n   \nc,3\n"
    with pytest.raises(ValueError, match=r"line 2: Row length mismatch. 2 fields expected but was 1."):
        _read(tmp_path, text, columns)
    rows = _read(tmp_path, text, columns, **{"csv.ignore-parse-errors": "true"})
    assert rows == [("a", 1), ("", None), ("b", 2), ("   ", None), ("c", 3)]


def test_the_record_format_and_the_datastream_schema_read_records_the_same_way() -> None:
    """PyFlink 2.3.0's CsvRowDeserializationSchema of (s STRING, n INT) with ignore-parse-errors:
    a,1 -> +I[a, 1]; b,2, -> +I[b, 2]; c,x -> +I[c, null]; d -> +I[d, null]; e,3,, -> null;
    f,4,z -> null. Of (w STRING) without it: 'three four,' -> +I[three four], 'x, ' -> +I[x],
    'a,b' fails with Too many entries."""
    row = Types.ROW_NAMED(["s", "n"], [Types.STRING(), Types.INT()])
    lenient = CsvRowDeserializationSchema.Builder(row).set_ignore_parse_errors(True).build()
    got = [lenient.deserialize(line) for line in (b"a,1", b"b,2,", b"c,x", b"d", b"e,3,,", b"f,4,z")]
    assert [None if r is None else tuple(r) for r in got] == [
        ("a", 1),
        ("b", 2),
        ("c", None),
        ("d", None),
        None,
        None,
    ]
    one = CsvRowDeserializationSchema.Builder(Types.ROW_NAMED(["w"], [Types.STRING()])).build()
    assert tuple(one.deserialize(b"three four,")) == ("three four",) and tuple(one.deserialize(b"x, ")) == (
        "x",
    )
    with pytest.raises(ValueError, match="Too many entries"):
        one.deserialize(b"a,b")
    decode = find_format_factory("csv").decoder(["w"], [DataTypes.STRING()], {}, "")
    assert decode(b"three four,") == ("three four",)


# -- writing ---------------------------------------------------------------------------------------------

VALUES = [
    "plain",
    "'tis",
    'say "hi"',
    "a,b",
    "two words",
    "line\nbreak",
    "",
    None,
    " lead",
    "trail ",
    "tab\there",
    "back\\slash",
    "#hash",
    "semi;colon",
    "x-y_z.w",
    "A+B",
    "(p)",
    "a!b",
    "a/b",
    "a:b",
    "cr\rx",
    "é ü",
    "~",
    "a$b",
    "-",
    "1.5",
    "a|b",
    "broken line with no comma",
    "abcdefghijklmnopqrstuvwx",
    "abcdefghijklmnopqrstuvwxy",
    "x^y",
]
OPTIONS = {
    "default": {},
    "esc": {"csv.escape-character": "^"},
    "noquote": {"csv.disable-quote-character": "true"},
    "pipe": {"csv.field-delimiter": "|"},
    "star": {"csv.quote-character": "*"},
    "nulllit": {"csv.null-literal": "NA"},
}
# the files PyFlink 2.3.0 wrote for (s STRING, n INT) rows (VALUES[i], i), each option set
PYFLINK_CSV_FILES = {
    "default": (
        b"plain,0\n"
        b'"\'tis",1\n'
        b'"say ""hi""",2\n'
        b'"a,b",3\n'
        b'"two words",4\n'
        b'"line\nbreak",5\n'
        b",6\n"
        b",7\n"
        b'" lead",8\n'
        b'"trail ",9\n'
        b'"tab\there",10\n'
        b'"back\\slash",11\n'
        b'"#hash",12\n'
        b"semi;colon,13\n"
        b"x-y_z.w,14\n"
        b'"A+B",15\n'
        b'"(p)",16\n'
        b'"a!b",17\n'
        b"a/b,18\n"
        b"a:b,19\n"
        b'"cr\rx",20\n'
        b'"\xc3\xa9 \xc3\xbc",21\n'
        b"~,22\n"
        b'"a$b",23\n'
        b"-,24\n"
        b"1.5,25\n"
        b"a|b,26\n"
        b'"broken line with no comma",27\n'
        b"abcdefghijklmnopqrstuvwx,28\n"
        b'"abcdefghijklmnopqrstuvwxy",29\n'
        b"x^y,30\n"
    ),
    "esc": (
        b"plain,0\n"
        b'"\'tis",1\n'
        b'"say ""hi""",2\n'
        b'"a,b",3\n'
        b'"two words",4\n'
        b'"line\nbreak",5\n'
        b",6\n"
        b",7\n"
        b'" lead",8\n'
        b'"trail ",9\n'
        b'"tab\there",10\n'
        b"back\\slash,11\n"
        b'"#hash",12\n'
        b"semi;colon,13\n"
        b"x-y_z.w,14\n"
        b'"A+B",15\n'
        b'"(p)",16\n'
        b'"a!b",17\n'
        b"a/b,18\n"
        b"a:b,19\n"
        b'"cr\rx",20\n'
        b'"\xc3\xa9 \xc3\xbc",21\n'
        b"~,22\n"
        b'"a$b",23\n'
        b"-,24\n"
        b"1.5,25\n"
        b"a|b,26\n"
        b'"broken line with no comma",27\n'
        b"abcdefghijklmnopqrstuvwx,28\n"
        b'"abcdefghijklmnopqrstuvwxy",29\n'
        b'"x^^y",30\n'
    ),
    "noquote": (
        b"plain,0\n"
        b"'tis,1\n"
        b'say "hi",2\n'
        b"a,b,3\n"
        b"two words,4\n"
        b"line\nbreak,5\n"
        b",6\n"
        b",7\n"
        b" lead,8\n"
        b"trail ,9\n"
        b"tab\there,10\n"
        b"back\\slash,11\n"
        b"#hash,12\n"
        b"semi;colon,13\n"
        b"x-y_z.w,14\n"
        b"A+B,15\n"
        b"(p),16\n"
        b"a!b,17\n"
        b"a/b,18\n"
        b"a:b,19\n"
        b"cr\rx,20\n"
        b"\xc3\xa9 \xc3\xbc,21\n"
        b"~,22\n"
        b"a$b,23\n"
        b"-,24\n"
        b"1.5,25\n"
        b"a|b,26\n"
        b"broken line with no comma,27\n"
        b"abcdefghijklmnopqrstuvwx,28\n"
        b"abcdefghijklmnopqrstuvwxy,29\n"
        b"x^y,30\n"
    ),
    "pipe": (
        b'"plain"|0\n'
        b'"\'tis"|1\n'
        b'"say ""hi"""|2\n'
        b'"a,b"|3\n'
        b'"two words"|4\n'
        b'"line\nbreak"|5\n'
        b"|6\n"
        b"|7\n"
        b'" lead"|8\n'
        b'"trail "|9\n'
        b'"tab\there"|10\n'
        b'"back\\slash"|11\n'
        b'"#hash"|12\n'
        b'"semi;colon"|13\n'
        b'"x-y_z.w"|14\n'
        b'"A+B"|15\n'
        b'"(p)"|16\n'
        b'"a!b"|17\n'
        b'"a/b"|18\n'
        b'"a:b"|19\n'
        b'"cr\rx"|20\n'
        b'"\xc3\xa9 \xc3\xbc"|21\n'
        b"~|22\n"
        b'"a$b"|23\n'
        b'"-"|24\n'
        b'"1.5"|25\n'
        b'"a|b"|26\n'
        b'"broken line with no comma"|27\n'
        b'"abcdefghijklmnopqrstuvwx"|28\n'
        b'"abcdefghijklmnopqrstuvwxy"|29\n'
        b'"x^y"|30\n'
    ),
    "star": (
        b"plain,0\n"
        b"*'tis*,1\n"
        b'*say "hi"*,2\n'
        b"*a,b*,3\n"
        b"*two words*,4\n"
        b"*line\nbreak*,5\n"
        b",6\n"
        b",7\n"
        b"* lead*,8\n"
        b"*trail *,9\n"
        b"*tab\there*,10\n"
        b"*back\\slash*,11\n"
        b"*#hash*,12\n"
        b"semi;colon,13\n"
        b"x-y_z.w,14\n"
        b"*A+B*,15\n"
        b"*(p)*,16\n"
        b"*a!b*,17\n"
        b"a/b,18\n"
        b"a:b,19\n"
        b"*cr\rx*,20\n"
        b"*\xc3\xa9 \xc3\xbc*,21\n"
        b"~,22\n"
        b"*a$b*,23\n"
        b"-,24\n"
        b"1.5,25\n"
        b"a|b,26\n"
        b"*broken line with no comma*,27\n"
        b"abcdefghijklmnopqrstuvwx,28\n"
        b"*abcdefghijklmnopqrstuvwxy*,29\n"
        b"x^y,30\n"
    ),
    "nulllit": (
        b"plain,0\n"
        b'"\'tis",1\n'
        b'"say ""hi""",2\n'
        b'"a,b",3\n'
        b'"two words",4\n'
        b'"line\nbreak",5\n'
        b",6\n"
        b"NA,7\n"
        b'" lead",8\n'
        b'"trail ",9\n'
        b'"tab\there",10\n'
        b'"back\\slash",11\n'
        b'"#hash",12\n'
        b"semi;colon,13\n"
        b"x-y_z.w,14\n"
        b'"A+B",15\n'
        b'"(p)",16\n'
        b'"a!b",17\n'
        b"a/b,18\n"
        b"a:b,19\n"
        b'"cr\rx",20\n'
        b'"\xc3\xa9 \xc3\xbc",21\n'
        b"~,22\n"
        b'"a$b",23\n'
        b"-,24\n"
        b"1.5,25\n"
        b"a|b,26\n"
        b'"broken line with no comma",27\n'
        b"abcdefghijklmnopqrstuvwx,28\n"
        b'"abcdefghijklmnopqrstuvwxy",29\n'
        b"x^y,30\n"
    ),
}
PYFLINK_CSV_TYPES = (
    b'-5,-1.5,2.25,-3.5,true,"2024-01-02 03:04:05.678","2024-01-02 03:04:05",2024-01-02,03:04:05.123,'
    b'AQL/,"a b;c,d;e","2024-01-02 03:04:05.678Z",12345678901\n'
    b'0,1.0E20,1.0E-5,1E+2,false,"2024-01-02 03:04:05.5","2024-01-02 03:04:05",2024-01-02,03:04:00,'
    b'"+/8=",x,"1970-01-01 00:00:00Z",-1\n'
)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_the_filesystem_sink_quotes_as_pyflink(name: str) -> None:
    to_csv = _line_encoder("csv", ["s", "n"], [DataTypes.STRING(), DataTypes.INT()], [0, 1], OPTIONS[name])
    written = "".join(to_csv((v, i)) + "\n" for i, v in enumerate(VALUES)).encode("utf-8")
    assert written == PYFLINK_CSV_FILES[name]


def test_every_type_is_written_as_pyflink_writes_it() -> None:
    """PyFlink 2.3.0 wrote these two rows of (i INT, d DOUBLE, f FLOAT, de DECIMAL(10, 3), b
    BOOLEAN, ts TIMESTAMP(3), ts0 TIMESTAMP(0), dt DATE, tm TIME(3), bt BYTES, arr ARRAY<STRING>,
    ltz TIMESTAMP_LTZ(3), big BIGINT), in UTC."""
    types = [
        DataTypes.INT(),
        DataTypes.DOUBLE(),
        DataTypes.FLOAT(),
        DataTypes.DECIMAL(10, 3),
        DataTypes.BOOLEAN(),
        DataTypes.TIMESTAMP(3),
        DataTypes.TIMESTAMP(0),
        DataTypes.DATE(),
        DataTypes.TIME(3),
        DataTypes.BYTES(),
        DataTypes.ARRAY(DataTypes.STRING()),
        DataTypes.TIMESTAMP_LTZ(3),
        DataTypes.BIGINT(),
    ]
    names = [f"c{i}" for i in range(len(types))]
    to_csv = _line_encoder("csv", names, types, list(range(len(types))), {})

    def ltz(millis: int) -> datetime.datetime:  # the local wall-clock time of the instant
        stamp = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(milliseconds=millis)
        return stamp.astimezone().replace(tzinfo=None)

    rows = [
        (
            -5,
            -1.5,
            2.25,
            decimal.Decimal("-3.500"),
            True,
            datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            datetime.date(2024, 1, 2),
            datetime.time(3, 4, 5, 123000),
            b"\x01\x02\xff",
            ["a b", "c,d", "e"],
            ltz(1704164645678),
            12345678901,
        ),
        (
            0,
            1e20,
            1e-5,
            decimal.Decimal("100.000"),
            False,
            datetime.datetime(2024, 1, 2, 3, 4, 5, 500000),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            datetime.date(2024, 1, 2),
            datetime.time(3, 4),
            b"\xfb\xff",
            ["x"],
            ltz(0),
            -1,
        ),
    ]
    assert "".join(to_csv(r) + "\n" for r in rows).encode("utf-8") == PYFLINK_CSV_TYPES


def test_records_keep_decimal_scale_as_pyflinks_record_schemas() -> None:
    """PyFlink 2.3.0's CsvRowDataSerializationSchema (the 'csv' format of a Kafka table) wrote
    100.000,1.0E20,0,"two words" and -3.500,-1.5,2,x-y; its DataStream CsvRowSerializationSchema
    of a BIG_DEC field wrote 100.000 and 1.50 (files strip the zeros: 1E+2, 1.5)."""
    names, types = (
        ["de", "d", "i", "s"],
        [DataTypes.DECIMAL(10, 3), DataTypes.DOUBLE(), DataTypes.INT(), DataTypes.STRING()],
    )
    encode = find_format_factory("csv").encoder(names, types, {}, "")
    assert (
        encode(("+I", (decimal.Decimal("100.000"), 1e20, 0, "two words"))) == b'100.000,1.0E20,0,"two words"'
    )
    assert encode(("+I", (decimal.Decimal("-3.500"), -1.5, 2, "x-y"))) == b"-3.500,-1.5,2,x-y"
    schema = CsvRowSerializationSchema.Builder(Types.ROW_NAMED(["d"], [Types.BIG_DEC()])).build()
    assert schema.serialize(Row(decimal.Decimal("1.50"))) == b"1.50\n"


def test_the_datastream_csv_row_schema_quotes_as_pyflink() -> None:
    """PyFlink 2.3.0's CsvRowSerializationSchema of (s STRING, n INT) serialized these rows
    (default; escape character '^'; '|' as field delimiter; quoting disabled)."""
    values = [
        "plain",
        "'tis",
        'say "hi"',
        "a,b",
        "two words",
        "line\nbreak",
        "",
        None,
        " lead",
        "back\\slash",
        "#hash",
        "abcdefghijklmnopqrstuvwxy",
        "x-y",
        "a|b",
    ]
    row = Types.ROW_NAMED(["s", "n"], [Types.STRING(), Types.INT()])
    builders = {
        "default": CsvRowSerializationSchema.Builder(row),
        "escape": CsvRowSerializationSchema.Builder(row).set_escape_character("^"),
        "pipe": CsvRowSerializationSchema.Builder(row).set_field_delimiter("|"),
        "noquote": CsvRowSerializationSchema.Builder(row).disable_quote_character(),
    }
    written = {
        name: b"".join(builder.build().serialize(Row(v, i)) for i, v in enumerate(values))
        for name, builder in builders.items()
    }
    assert written == {
        "default": b'plain,0\n"\'tis",1\n"say ""hi""",2\n"a,b",3\n"two words",4\n"line\nbreak",5\n,6\n,7\n'
        b'" lead",8\n"back\\slash",9\n"#hash",10\n"abcdefghijklmnopqrstuvwxy",11\nx-y,12\na|b,13\n',
        "escape": b'plain,0\n"\'tis",1\n"say ""hi""",2\n"a,b",3\n"two words",4\n"line\nbreak",5\n,6\n,7\n'
        b'" lead",8\nback\\slash,9\n"#hash",10\n"abcdefghijklmnopqrstuvwxy",11\nx-y,12\na|b,13\n',
        "pipe": b'"plain"|0\n"\'tis"|1\n"say ""hi"""|2\n"a,b"|3\n"two words"|4\n"line\nbreak"|5\n|6\n|7\n'
        b'" lead"|8\n"back\\slash"|9\n"#hash"|10\n"abcdefghijklmnopqrstuvwxy"|11\n"x-y"|12\n"a|b"|13\n',
        "noquote": b'plain,0\n\'tis,1\nsay "hi",2\na,b,3\ntwo words,4\nline\nbreak,5\n,6\n,7\n lead,8\n'
        b"back\\slash,9\n#hash,10\nabcdefghijklmnopqrstuvwxy,11\nx-y,12\na|b,13\n",
    }
    with pytest.raises(ValueError, match=r"Row length mismatch. 2 fields expected but was 3"):
        builders["default"].build().serialize(Row(1, "a", 2))


def test_the_datastream_bulk_writer_writes_as_pyflinks(tmp_path: Path) -> None:
    """PyFlink 2.3.0's CsvBulkWriters.for_schema(d DECIMAL(10, 3), s STRING, x DOUBLE) wrote
    1E+2,"two words",1.0E20 / -3.5,"'tis",-1.5 / 1.5,x-y,2.0."""
    schema = (
        CsvSchema.builder()
        .add_number_column("d", DataTypes.DECIMAL(10, 3))
        .add_string_column("s")
        .add_number_column("x", DataTypes.DOUBLE())
        .build()
    )
    path = tmp_path / "part"
    writer = CsvBulkWriters.for_schema(schema).create(str(path))
    writer.add_batch(
        [
            (decimal.Decimal("100.000"), "two words", 1e20),
            (decimal.Decimal("-3.500"), "'tis", -1.5),
            (decimal.Decimal("1.5"), "x-y", 2.0),
        ]
    )
    writer.finish()
    assert path.read_bytes() == b'1E+2,"two words",1.0E20\n-3.5,"\'tis",-1.5\n1.5,x-y,2.0\n'
