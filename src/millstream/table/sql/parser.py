"""SQL text to sqlglot's tree in Flink's dialect: Spark's, with the calls whose Spark meaning
differs from Flink's kept plain, and parsers for Flink's own forms (window table functions
and their ``TABLE t PARTITION BY k`` argument, legacy group windows, ``WATERMARK FOR``,
``METADATA`` columns, ``TIMESTAMPADD`` units, ``JSON_VALUE ... RETURNING``). Only Flink's
type names ``BYTES`` and ``ROW<...>`` are renamed in the text before parsing."""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import TokenType

__all__ = ["SqlError"]  # and the parser internals the other sql_* modules use


# calls whose Spark meaning differs from Flink's: parsed as plain calls of the built-ins
# (Spark's REGEXP_EXTRACT defaults to group 1, Flink's to 0, the whole match)
_PLAIN_CALLS = {"DATE_FORMAT", "REGEXP_EXTRACT", "TO_TIMESTAMP", "LTRIM", "RTRIM"} | {
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


_TVFS = {"TUMBLE", "HOP", "CUMULATE", "SESSION"}


def _window_parser(kind: str) -> Any:
    """The dialect's parser of the window function ``kind`` (``_parse_window_call``)."""
    return lambda parser: parser._parse_window_call(kind)


class _FlinkSql(Spark):
    """Spark's dialect (backquoted identifiers and Flink's operators; CAST arrives as TryCast),
    with DATE_FORMAT left a plain call: Flink's pattern (Java's ``yyyy-MM-dd``) reaches the
    built-in as written. sqlglot's Spark mapping of the pattern turned ``yyyy-MM-dd`` into
    ``%Y-%mstrict-%dstrict`` (sqlglot 30). REGEXP_EXTRACT likewise (``_PLAIN_CALLS``)."""

    class Tokenizer(Spark.Tokenizer):
        """Spark's, with SESSION a name (Flink's SESSION window function), not a keyword."""

        KEYWORDS = {k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k != "SESSION"}

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
            **{name: _window_parser(name) for name in _TVFS},
        }

        def _parse_types(
            self,
            check_func: bool = False,
            schema: bool = False,
            allow_identifiers: bool = True,
            with_collation: bool = False,
        ) -> exp.Expression | None:
            """Spark's, and Flink's ``NOT NULL`` after an element type (``ARRAY<INT NOT NULL>``,
            ``MAP<STRING NOT NULL, INT>``): the DataType's ``nullable`` False."""
            this = super()._parse_types(check_func, schema, allow_identifiers, with_collation)
            following = self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
            if (
                isinstance(this, exp.DataType)
                and following is not None
                and following.token_type in (TokenType.GT, TokenType.COMMA)
                and self._match_text_seq("NOT", "NULL")
            ):
                this.set("nullable", False)
            return this

        def _parse_window_call(self, kind: str) -> exp.Expression:
            """``TABLE(TUMBLE(TABLE t [PARTITION BY k | (k1, k2)], DESCRIPTOR(ts), ...))``: the
            window table function ``MS_TUMBLE(t, [MS_PARTITION_BY(k ...),] DESCRIPTOR(ts), ...)``;
            ``GROUP BY TUMBLE(ts, size)``: the legacy group window ``MS_GW_TUMBLE(ts, size)``."""
            start = self._index - 2  # the function's name; before it: TABLE ( for a table function
            in_table = start >= 2 and self._tokens[start - 1].token_type == TokenType.L_PAREN
            in_table = in_table and self._tokens[start - 2].token_type == TokenType.TABLE
            if not self._match(TokenType.TABLE) and not in_table:
                arguments = self._parse_csv(self._parse_assignment)
                return self.expression(exp.Anonymous(this=f"MS_GW_{kind}", expressions=arguments))
            arguments = [self._parse_table_parts()]
            if self._match(TokenType.PARTITION_BY):
                if self._match(TokenType.L_PAREN):
                    keys = self._parse_csv(self._parse_assignment)
                    self._match_r_paren()
                else:
                    keys = [self._parse_column()]
                arguments.append(self.expression(exp.Anonymous(this="MS_PARTITION_BY", expressions=keys)))
            if self._match(TokenType.COMMA):
                arguments += self._parse_csv(self._parse_assignment)
            return self.expression(exp.Anonymous(this=f"MS_{kind}", expressions=arguments))

        def _parse_timestamp_call(self, name: str) -> exp.Expression:
            """``TIMESTAMPADD(DAY, n, ts)`` / ``TIMESTAMPDIFF(HOUR, a, b)``: Flink's argument
            order, the unit a string (``__TIMESTAMPADD('DAY', n, ts)``, ``sql/forms.py``)."""
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


def _flink_syntax(statement: str) -> str:
    """Flink's type names that sqlglot's tokenizer reads as another thing, as sqlglot's: BYTES
    is BINARY, ``ROW<f type, ...>`` is ``STRUCT<f type, ...>`` (``_type_name``), by token
    positions; every other Flink form is parsed by the dialect (``_FlinkSql``)."""
    from sqlglot.dialects.spark import Spark

    try:
        tokens = Spark().tokenize(statement)
    except sqlglot.errors.TokenError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
    edits: list[tuple[int, int, str]] = []  # (start, end exclusive, replacement)
    depth = 0
    for i, tok in enumerate(tokens):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tok.token_type, 0)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        name = _type_name(tok, nxt, depth)
        if name is not None:
            edits.append((tok.start, tok.end + 1, name))
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
