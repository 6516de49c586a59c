"""SQL text to sqlglot's tree: Flink's dialect (Spark's, with the calls whose Spark meaning
differs from Flink's kept plain) and the token-level rewrites of Flink syntax sqlglot does
not parse (window TVFs, ``WATERMARK FOR``, ``METADATA`` columns, ``TIMESTAMPADD`` units,
``JSON_VALUE ... RETURNING``)."""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import TokenType

__all__ = ["SqlError"]  # and the parser internals the other sql_* modules use


# calls whose Spark meaning differs from Flink's: parsed as plain calls of the built-ins
# (Spark's REGEXP_EXTRACT defaults to group 1, Flink's to 0, the whole match)
_PLAIN_CALLS = {"DATE_FORMAT", "REGEXP_EXTRACT"} | {
    # Flink built-ins sqlglot would turn into its own nodes (with Spark's argument orders and
    # defaults): their names as written, their arguments in order
    "TRUNCATE", "TRUNC", "LOCATE", "INSTR", "LEFT", "RIGHT", "REGEXP", "TO_DATE", "IF",
    "CARDINALITY", "ELEMENT", "LOG", "LOG2", "ATAN2", "HEX", "BIN", "MD5", "SHA1", "SHA256",
    "TO_BASE64", "FROM_BASE64", "UUID", "ASCII", "DAYOFWEEK", "DAYOFYEAR", "WEEK", "QUARTER",
    "RAND", "RAND_INTEGER", "DEGREES", "RADIANS", "COT", "SINH", "COSH", "TANH", "NOW",
    "STARTSWITH", "ENDSWITH", "FROM_UNIXTIME", "UNIX_TIMESTAMP", "ARRAY_APPEND", "ARRAY_PREPEND",
    "ARRAY_CONCAT", "ARRAY_REMOVE", "ARRAY_SORT", "ARRAY_JOIN", "STR_TO_MAP", "YEAR", "MONTH",
    "DAYOFMONTH", "MAP_FROM_ARRAYS",
}  # fmt: skip


class _FlinkSql(Spark):
    """Spark's dialect (backquoted identifiers and Flink's operators; CAST arrives as TryCast),
    with DATE_FORMAT left a plain call: Flink's pattern (Java's ``yyyy-MM-dd``) reaches the
    built-in as written. sqlglot's Spark mapping of the pattern turned ``yyyy-MM-dd`` into
    ``%Y-%mstrict-%dstrict`` (sqlglot 30). REGEXP_EXTRACT likewise (``_PLAIN_CALLS``)."""

    class Parser(Spark.Parser):  # type: ignore[misc,valid-type]
        """Spark's parser, and Flink's column forms of CREATE TABLE: ``WATERMARK FOR c AS
        expr`` (a ``WatermarkColumnConstraint`` in the column list, its expression as written)
        and ``METADATA [FROM 'key'] [VIRTUAL]`` after a column's type (a column constraint
        ``METADATA(key or NULL, virtual)``)."""

        FUNCTIONS = {name: f for name, f in Spark.Parser.FUNCTIONS.items() if name not in _PLAIN_CALLS}
        CONSTRAINT_PARSERS = {
            **Spark.Parser.CONSTRAINT_PARSERS,
            "WATERMARK": lambda self: self._parse_watermark(),
            "METADATA": lambda self: self._parse_metadata(),
        }
        SCHEMA_UNNAMED_CONSTRAINTS = {*Spark.Parser.SCHEMA_UNNAMED_CONSTRAINTS, "WATERMARK"}
        FUNCTION_PARSERS = {
            **Spark.Parser.FUNCTION_PARSERS,
            "TIMESTAMPADD": lambda self: self._parse_timestamp_call("__TIMESTAMPADD"),
            "TIMESTAMPDIFF": lambda self: self._parse_timestamp_call("__TIMESTAMPDIFF"),
            "JSON_VALUE": lambda self: self._parse_json_value(),
        }

        def _parse_timestamp_call(self, name: str) -> exp.Expression:
            """``TIMESTAMPADD(DAY, n, ts)`` / ``TIMESTAMPDIFF(HOUR, a, b)``: Flink's argument
            order, the unit a string (``__TIMESTAMPADD('DAY', n, ts)``, ``sql_forms.py``)."""
            unit = self._curr
            if unit is None:
                self.raise_error(f"expected a time unit in {name.strip('_')}(...)")
            self._advance()
            if not self._match(TokenType.COMMA):
                self.raise_error(f"expected a comma after the unit of {name.strip('_')}(...)")
            arguments = self._parse_csv(self._parse_assignment)
            return self.expression(
                exp.Anonymous(this=name, expressions=[exp.Literal.string(unit.text.upper()), *arguments])
            )

        def _parse_json_value(self) -> exp.Expression:
            """``JSON_VALUE(j, path [RETURNING t] [NULL ON EMPTY] [NULL ON ERROR])``: the value
            converted to ``t`` (``TRY_CAST``), NULL when missing or when it does not convert
            (Flink's defaults)."""
            arguments = self._parse_csv(self._parse_assignment)
            value = self.expression(exp.Anonymous(this="JSON_VALUE", expressions=arguments))
            if not self._match_text_seq("RETURNING"):
                return value
            to = self._parse_types()
            while self._curr is not None and self._curr.token_type != TokenType.R_PAREN:
                if not (
                    self._match_text_seq("NULL", "ON", "EMPTY") or self._match_text_seq("NULL", "ON", "ERROR")
                ):
                    rest = self._find_sql(self._curr, self._tokens[-1]).rsplit(")", 1)[0].strip()
                    raise SqlError(f"JSON_VALUE(... {rest}) is not supported: only NULL ON EMPTY / ERROR")
            return self.expression(exp.TryCast(this=value, to=to, safe=True))

        def _parse_watermark(self) -> exp.Expression | None:
            if not self._match(TokenType.FOR):
                return None
            column = self._parse_column()
            if not self._match(TokenType.ALIAS):
                self.raise_error("expected AS after WATERMARK FOR <column>")
            first = self._curr
            self._parse_disjunction()
            text = self.sql[first.start : self._prev.end + 1]  # the expression as written
            return self.expression(
                exp.WatermarkColumnConstraint(this=column, expression=exp.Literal.string(text))
            )

        def _parse_metadata(self) -> exp.Expression:
            key = self._parse_string() if self._match(TokenType.FROM) else exp.null()
            virtual = exp.true() if self._match_text_seq("VIRTUAL") else exp.false()
            return self.expression(exp.Anonymous(this="METADATA", expressions=[key, virtual]))


_DIALECT = _FlinkSql


class SqlError(ValueError):
    """A statement that could not be parsed or is not supported (yet)."""


_TVFS = {"TUMBLE", "HOP", "CUMULATE", "SESSION"}


def _flink_syntax(statement: str) -> str:
    """Flink SQL's own syntax the parser does not take rewritten into what it parses, by token
    positions: ``TABLE(TUMBLE(TABLE t, ...))`` -> ``TABLE(MS_TUMBLE(t, ...))``, ``GROUP BY
    TUMBLE(ts, ...)`` -> ``MS_GW_TUMBLE(ts, ...)``, ``TABLE t PARTITION BY k`` -> ``t,
    MS_PARTITION_BY(k)``, and Flink's type names as sqlglot's (``_type_name``)."""
    from sqlglot.dialects.spark import Spark
    from sqlglot.tokens import TokenType

    try:
        tokens = Spark().tokenize(statement)
    except sqlglot.errors.TokenError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
    edits: list[tuple[int, int, str]] = []  # (start, end exclusive, replacement)
    depth = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        text = tok.text.upper()
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tok.token_type, 0)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        prev = tokens[i - 1] if i else None
        after_table = i >= 2 and tokens[i - 2].token_type == TokenType.TABLE
        if text in _TVFS and nxt is not None and nxt.token_type == TokenType.L_PAREN:
            # TABLE(TUMBLE(...)) is a window TVF; GROUP BY TUMBLE(ts, ...) a legacy group window
            table_function = prev is not None and prev.token_type == TokenType.L_PAREN and after_table
            edits.append((tok.start, tok.end + 1, f"MS_{text}" if table_function else f"MS_GW_{text}"))
        elif tok.token_type == TokenType.TABLE and prev is not None and prev.text in ("(", ","):
            if nxt is not None and nxt.token_type != TokenType.L_PAREN:
                edits.append((tok.start, nxt.start, ""))
        elif tok.token_type == TokenType.PARTITION_BY and after_table:
            i = _partition_by(statement, tokens, i, edits)
        elif _type_name(tok, nxt, depth) is not None:
            edits.append((tok.start, tok.end + 1, str(_type_name(tok, nxt, depth))))
        i += 1
    for start, end, replacement in sorted(edits, reverse=True):
        statement = statement[:start] + replacement + statement[end:]
    return statement


def _type_name(tok: Any, nxt: Any, depth: int) -> str | None:
    """sqlglot's name of a Flink type name: BYTES is BINARY, ``ROW<f type, ...>`` is
    ``STRUCT<f type, ...>``; None for any other token."""
    from sqlglot.tokens import TokenType

    text = tok.text.upper()
    if text == "BYTES" and tok.token_type == TokenType.VAR and depth >= 1:
        return "BINARY"
    if text == "ROW" and nxt is not None and nxt.token_type == TokenType.LT:
        return "STRUCT"
    return None


def _partition_by(statement: str, tokens: list[Any], i: int, edits: list[tuple[int, int, str]]) -> int:
    """``PARTITION BY k`` / ``PARTITION BY (k1, k2)`` of a TVF's table argument; returns the
    index of its last token."""
    from sqlglot.tokens import TokenType

    tok, nxt = tokens[i], tokens[i + 1]
    if nxt.token_type == TokenType.L_PAREN:
        close = next(j for j in range(i + 1, len(tokens)) if tokens[j].token_type == TokenType.R_PAREN)
        inner = statement[tokens[i + 2].start : tokens[close - 1].end + 1]
        edits.append((tok.start, tokens[close].end + 1, f", MS_PARTITION_BY({inner})"))
        return close
    edits.append((tok.start, nxt.end + 1, f", MS_PARTITION_BY({nxt.text})"))
    return i + 1


def _metadata_of(column: exp.ColumnDef) -> tuple[str | None, bool] | None:
    """(metadata key or None for the column's name, virtual) of a METADATA column."""
    for constraint in column.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.Anonymous) and kind.name == "METADATA":
            key, virtual = kind.expressions
            return (None if isinstance(key, exp.Null) else key.this), virtual.this is True
    return None


def _parse(statement: str) -> Any:
    text = _flink_syntax(statement)
    try:
        return sqlglot.parse_one(text, read=_DIALECT)
    except sqlglot.errors.ParseError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
