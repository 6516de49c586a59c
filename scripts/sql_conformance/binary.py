"""Conformance cases: binary literals, BINARY/VARBINARY/BYTES values and their casts and operators."""

from __future__ import annotations

from scripts.sql_conformance.corpus import A, Corpus, N


def binary(c: Corpus) -> None:
    for value in ["X'0102'", "X''", "X'00'", "X'FF'", "x'abcdef'"]:
        c.expr("binary", "literal", value)
        c.expr("binary", "CAST", f"CAST({value} AS STRING)")
        c.expr("binary", "CAST", f"CAST({value} AS BINARY(3))")
        c.expr("binary", "CAST", f"CAST({value} AS VARBINARY(1))")
    for text in [
        "X'01' || X'02'",
        "CONCAT(X'01', X'02')",
        "X'01' = X'01'",
        "X'01' < X'02'",
        "X'0100' > X'01'",
        "X'FF' > X'01'",
        "CHAR_LENGTH(X'0102')",
        "CAST('abc' AS BYTES)",
        "CAST('héllo' AS BYTES)",
        "CAST(X'68C3A96C6C6F' AS STRING)",
        "CAST(X'FF' AS STRING)",
        "CAST('abc' AS BINARY(5))",
        "CAST('abcdef' AS BINARY(2))",
        "CAST('abc' AS VARBINARY(2))",
        "TO_BASE64(X'0102')",
        "HEX(X'0102')",
        "MD5(X'0102')",
        "UNHEX('0102') = X'0102'",
        "TYPEOF(X'0102')",
        "TYPEOF(CAST(X'01' AS BYTES))",
        "ARRAY[X'01', X'0203']",
        "COALESCE(CAST(NULL AS BYTES), X'01')",
        "X'01' IS NULL",
        "ENCODE('a', 'UTF-8') = X'61'",
    ]:
        c.expr("binary", text.split("(")[0] if "(" in text.split(" ")[0] else "operator", text)
    for column in [A("BYTES", "X'0102'"), A("BINARY(2)", "X'0102'"), A("VARBINARY(4)", "X'01'"), N("BYTES")]:
        c.col("binary", "column", "$0", column)
        c.col("binary", "CAST", "CAST($0 AS STRING)", column)
        c.col("binary", "||", "$0 || X'FF'", column)
        c.col("binary", "SUBSTRING", "SUBSTRING($0, 2, 1)", column)


PARTS = (binary,)
