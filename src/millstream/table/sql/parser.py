"""SQL text to sqlglot's tree in Flink's dialect: Spark's, with the calls whose Spark meaning
differs from Flink's kept plain, and parsers for Flink's own forms (window table functions
and their ``TABLE t PARTITION BY k`` argument, legacy group windows, ``WATERMARK FOR``,
``METADATA`` columns, ``TIMESTAMPADD`` units, the JSON calls' clauses: ``JSON_VALUE ...
RETURNING``, ``ON EMPTY`` ...). Only Flink's type names ``BYTES`` and ``ROW<...>`` are renamed
in the text before parsing. A refused statement gets Flink's message (``sql/syntax_errors.py``)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import Token, TokenType

from millstream.table.sql.errors import SqlError
from millstream.table.sql.json_syntax import (
    is_json_aggregate,
    parse_json_aggregate_suffix,
    parse_json_call,
    parse_json_key_value,
)
from millstream.table.sql.literals import (
    INTERVAL_UNITS,
    IntervalQualifier,
    LiteralError,
    binary_literal,
    check_character_set,
    interval_unit,
    unescape_unicode,
    unicode_escape_character,
)
from millstream.table.sql.match_syntax import parse_match_recognize
from millstream.table.sql.syntax_errors import (
    NON_QUERY,
    Edits,
    SyntaxFailure,
    early_failure,
    failure_message,
    lexical_error,
    non_query,
    refusal,
    restore_offsets,
    token_error,
)

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
    "DAYOFMONTH", "MAP_FROM_ARRAYS", "IFNULL", "TYPEOF",
    "FIRST", "LAST",  # MATCH_RECOGNIZE's FIRST(A.x, n) / LAST(A.x, n): Spark's drop the offset
}  # fmt: skip


_TVFS = {"TUMBLE", "HOP", "CUMULATE", "SESSION"}

# the types of Flink's typed literals (TIMESTAMP is TIMESTAMPTZ in Spark's dialect)
_TYPED_LITERALS = (
    exp.DType.DATE,
    exp.DType.TIME,
    exp.DType.TIMESTAMP,
    exp.DType.TIMESTAMPTZ,
    exp.DType.TIMESTAMPNTZ,
    exp.DType.TIMESTAMPLTZ,
)


def _window_parser(kind: str) -> Any:
    """The dialect's parser of the window function ``kind`` (``_parse_window_call``)."""
    return lambda parser: parser._parse_window_call(kind)


class _FlinkSql(Spark):
    """Spark's dialect (backquoted identifiers and Flink's operators; CAST arrives as TryCast),
    with DATE_FORMAT left a plain call: Flink's pattern (Java's ``yyyy-MM-dd``) reaches the
    built-in as written. sqlglot's Spark mapping of the pattern turned ``yyyy-MM-dd`` into
    ``%Y-%mstrict-%dstrict`` (sqlglot 30). REGEXP_EXTRACT likewise (``_PLAIN_CALLS``)."""

    UNESCAPED_SEQUENCES: dict[str, str] = {}  # a backslash is an ordinary character

    class Tokenizer(Spark.Tokenizer):
        """Spark's, with SESSION a name (Flink's SESSION window function), not a keyword, and
        Flink's (Calcite's) literals: only ``'`` quotes a string, ``''`` in it is one quote, a
        backslash is an ordinary character (Spark's escapes made ``'it''s'`` two strings and
        ``'\\d+'`` ``d+``), ``U&'...'`` a Unicode string, ``_charset'...'`` (``_UTF16'abc'``)
        a string in a named character set (a NATIONAL_STRING token, as ``N'...'``)."""

        KEYWORDS = {k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k != "SESSION"}
        KEYWORDS["MATCH_RECOGNIZE"] = TokenType.MATCH_RECOGNIZE
        QUOTES = ["'"]
        STRING_ESCAPES = ["'"]
        RAW_STRINGS: ClassVar[list[str | tuple[str, str]]] = []
        UNICODE_STRINGS = [("U&'", "'"), ("u&'", "'")]

        def tokenize(self, sql: str) -> list[Token]:
            return _charset_strings(super().tokenize(sql), sql)

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
        TYPE_LITERAL_PARSERS = {
            **Spark.Parser.TYPE_LITERAL_PARSERS,
            **{kind: lambda self, this, to: self._typed_literal(this, to) for kind in _TYPED_LITERALS},
        }
        PRIMARY_PARSERS = {  # NULL, TRUE and FALSE keep where they stand (a validation error names it)
            **Spark.Parser.PRIMARY_PARSERS,
            **{
                kind: (lambda parse: lambda self, token: parse(self, token).update_positions(token))(
                    Spark.Parser.PRIMARY_PARSERS[kind]
                )
                for kind in (TokenType.NULL, TokenType.TRUE, TokenType.FALSE)
            },
        }
        FUNCTION_PARSERS = {
            **Spark.Parser.FUNCTION_PARSERS,
            "CEILING": Spark.Parser.FUNCTION_PARSERS["CEIL"],  # CEILING(t TO HOUR) as CEIL(t TO HOUR)
            "SUBSTRING": lambda self: self._parse_substring_call(),
            "TIMESTAMPADD": lambda self: self._parse_timestamp_call("__TIMESTAMPADD"),
            "TIMESTAMPDIFF": lambda self: self._parse_timestamp_call("__TIMESTAMPDIFF"),
            **{
                name: (lambda n: lambda self: self._parse_json_call(n))(name)
                for name in ("JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_ARRAY", "JSON_ARRAYAGG")
            },
            **{name: _window_parser(name) for name in _TVFS},
        }

        def raise_error(self, message: str, token: Token | None = None) -> None:
            """sqlglot's, raising a ``SyntaxFailure`` with the token the statement failed at: the
            next one when the error names the last one taken (``Expected END after CASE``)."""
            failed = self._curr if not token or token is self._prev else token
            try:
                super().raise_error(message, token or self._curr or self._prev)
            except sqlglot.errors.ParseError as err:
                raise SyntaxFailure(err, message, failed.start if failed else None) from None

        def _refuse(self, message: str, token: Token | None = None) -> None:
            """Refuse the statement with Flink's own message (a literal's, an interval's ...),
            at ``token`` when its position is part of the message."""
            offset = token.start if token else None
            failure = SyntaxFailure(sqlglot.errors.ParseError(message), message, offset, True)
            if self.error_level != sqlglot.errors.ErrorLevel.IMMEDIATE:
                self.errors.append(failure)  # as sqlglot's raise_error does at the other levels
                return
            raise failure

        def _parse_types(
            self,
            check_func: bool = False,
            schema: bool = False,
            allow_identifiers: bool = True,
            with_collation: bool = False,
        ) -> exp.Expression | None:
            """Spark's, Flink's interval types (``INTERVAL DAY TO SECOND(3)``: the DataType of an Interval of
            the qualifier), and Flink's ``NOT NULL`` after an element type (``ARRAY<INT NOT
            NULL>``, ``MAP<STRING NOT NULL, INT>``): the DataType's ``nullable`` False."""
            if self._curr is not None and self._curr.token_type == TokenType.INTERVAL:
                index = self._index
                self._advance()
                qualifier = self._parse_interval_qualifier()
                if qualifier is not None:  # INTERVAL DAY TO SECOND(3): an Interval of its qualifier
                    return exp.DataType(this=exp.Interval(unit=exp.var(str(qualifier))))
                self._retreat(index)
            # CHAR(n) and VARCHAR(n) keep their length in a CAST too (Hive's parser, under
            # Spark's, makes them STRING outside a schema)
            this: Any = sqlglot.parser.Parser._parse_types(
                self, check_func, schema, allow_identifiers, with_collation
            )
            following = self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
            if (
                isinstance(this, exp.DataType)
                and following is not None
                and following.token_type in (TokenType.GT, TokenType.COMMA)
                and self._match_text_seq("NOT", "NULL")
            ):
                this.set("nullable", False)
            return this

        def _parse_match_recognize(self) -> exp.Expression | None:
            """Flink's MATCH_RECOGNIZE clause, WITHIN included (``sql/match_syntax.py``)."""
            return parse_match_recognize(self, SqlError)

        def _parse_position(self, haystack_first: bool = False) -> exp.StrPosition:
            """sqlglot's ``POSITION(needle IN text)``, and Flink's ``... FROM start``."""
            node: exp.StrPosition = super()._parse_position(haystack_first)
            if node.args.get("position") is None and self._match(TokenType.FROM):
                node.set("position", self._parse_bitwise())
            return node

        def _parse_atom(self) -> exp.Expression | None:
            """sqlglot's fast path for a single token, except a string literal: it may go on
            (``_parse_literal``)."""
            if self._curr is not None and self._curr.token_type in _LITERAL_HEADS:
                return None
            return super()._parse_atom()

        def _parse_primary(self) -> exp.Expression | None:
            """Spark's, with Flink's string and binary literals (``_parse_literal``); a string
            literal keeps where it stands (a validation error names it, as NULL's, TRUE's ...)."""
            token = self._curr
            if token is not None and token.token_type in _LITERAL_HEADS:
                literal = self._parse_literal()
                end = self._prev.end if self._prev is not None else token.end  # its closing quote
                return literal.update_positions(line=token.line, col=token.col, start=token.start, end=end)
            if self._match_pair(TokenType.DOT, TokenType.NUMBER):  # .5, as written: DECIMAL(1, 1)
                return exp.Literal.number(f".{self._prev.text}")
            primary = super()._parse_primary()
            unit = self._curr.text.upper() if self._curr is not None else ""
            if isinstance(primary, exp.Paren) and isinstance(primary.this, exp.Sub) and unit in _MINUS_UNITS:
                self._advance()  # Calcite's (datetime - datetime) unit: an interval
                minus = primary.this
                operands = [exp.Literal.string(unit), minus.this, minus.expression]
                return exp.Anonymous(this="__DATETIME_MINUS", expressions=operands)
            return primary

        def _parse_substring_call(self) -> exp.Expression:
            """sqlglot's SUBSTRING; of one argument Calcite's parser stops at its ')'."""
            call = self._parse_substring()
            if call.args.get("start") is None and self._curr is not None:
                self.raise_error("Expecting FROM or a comma")
            return call

        def _parse_unary(self) -> exp.Expression | None:
            """sqlglot's; a negation keeps where its ``-`` stands."""
            token = self._curr
            unary = super()._parse_unary()
            if isinstance(unary, exp.Neg) and token is not None and "start" not in unary.meta:
                unary.update_positions(token)
            return unary

        def _parse_literal(self) -> exp.Expression:
            """A character or binary string literal as Calcite's parser reads one: its head
            (``'...'``, ``U&'...'``, ``N'...'``, ``_charset'...'``, ``X'...'``) and the
            fragments continuing it on later lines (``'a'`` newline ``'b'`` is ``'ab'``; on the
            same line Flink refuses it), then ``UESCAPE 'c'`` after a Unicode literal. A
            character string is a string Literal, a binary one a HexString of its bytes."""
            head = self._curr
            fragments = [head]
            self._advance()
            while self._match(TokenType.STRING):
                if _line_of(self.sql, self._prev) <= _line_of(self.sql, fragments[-1]):
                    self._refuse("String literal continued on same line")
                fragments.append(self._prev)
            try:
                if head.token_type == TokenType.HEX_STRING:
                    value = binary_literal([f.text for f in fragments])
                    return self.expression(exp.HexString(this=value.hex()))
                escape = None
                if self._curr is not None and self._curr.text.upper() == "UESCAPE":
                    if head.token_type != TokenType.UNICODE_STRING:
                        self._refuse("UESCAPE cannot be specified without Unicode literal introducer")
                    self._advance()
                    if not self._match(TokenType.STRING):
                        self._refuse("expected a string after UESCAPE")
                    escape = unicode_escape_character(self._prev.text)
                if head.token_type == TokenType.UNICODE_STRING:
                    text = "".join(unescape_unicode(f.text, escape or "\\") for f in fragments)
                else:
                    text = "".join(f.text for f in fragments)
            except LiteralError as err:
                self._refuse(str(err))
            return self.expression(exp.Literal.string(text))

        def _parse_interval(
            self, require_interval: bool = True, parse_function_unit: bool = True
        ) -> exp.Expression | None:
            """Flink's interval literal: ``INTERVAL [+|-] 'value' qualifier`` (the value may be
            an unsigned number: ``INTERVAL 2 DAY``), the qualifier as Calcite's
            (``_parse_interval_qualifier``); an Interval of the value (negated for ``-``) and the
            qualifier's text (``DAY(3) TO SECOND(6)``), read by ``interval_qualifier``."""
            index = self._index
            if not self._match(TokenType.INTERVAL):
                return None
            negative = self._match(TokenType.DASH)
            if not negative:
                self._match(TokenType.PLUS)
            if self._curr is not None and self._curr.token_type in (TokenType.STRING, TokenType.NUMBER):
                value: exp.Expression | None = self._parse_primary()
            else:
                value = None
            if value is None:
                self._retreat(index)
                return None
            qualifier = self._parse_interval_qualifier()
            if qualifier is None:
                found = self._curr.text if self._curr is not None else "the end"
                units = ", ".join(INTERVAL_UNITS)
                self._refuse(f'Encountered "{found}": an interval\'s unit is one of {units}')
            text = exp.Literal.string(value.name)
            return self.expression(
                exp.Interval(this=exp.Neg(this=text) if negative else text, unit=exp.var(str(qualifier)))
            )

        def _parse_interval_qualifier(self) -> IntervalQualifier | None:
            """``YEAR [(p)] [TO MONTH]``, ``DAY [(p)] [TO HOUR | MINUTE | SECOND [(f)]]``,
            ``SECOND [(p [, f])]`` ... (plural unit names too: ``DAYS``); None when no unit
            follows."""
            start = self._parse_interval_unit()
            if start is None:
                return None
            precision = fractional = None
            if self._match(TokenType.L_PAREN):
                precision = self._parse_precision()
                if start == "SECOND" and self._match(TokenType.COMMA):
                    fractional = self._parse_precision()
                self._match_r_paren()
            end = None
            if self._match_text_seq("TO"):
                end = self._parse_interval_unit()
                if end is None:
                    self._refuse("expected a time unit after TO in an interval")
                if end == "SECOND" and self._match(TokenType.L_PAREN):
                    fractional = self._parse_precision()
                    self._match_r_paren()
            try:
                return IntervalQualifier(start, end, precision, fractional)
            except LiteralError as err:
                self._refuse(str(err))
                return None

        def _typed_literal(self, this: exp.Expression, to: exp.DataType) -> exp.Expression:
            """``DATE '...'``, ``TIME '...'``, ``TIMESTAMP '...'``, ``TIMESTAMP WITH LOCAL TIME
            ZONE '...'``: a Cast marked ``literal`` in its meta (the string is read as Calcite
            reads the literal, not cast). Flink has no ``TIMESTAMP_LTZ '...'`` literal."""
            before = self._index - 1
            while before > 0 and self._tokens[before].token_type == TokenType.STRING:
                before -= 1
            spelled = self._tokens[before].text.upper()
            if to.this == exp.DType.TIMESTAMPLTZ and spelled != "ZONE":
                self._refuse(
                    f"Incorrect syntax near the keyword '{self._tokens[before].text}'", self._tokens[before]
                )
            first = before  # where the literal stands: from its type's first word to its string's end
            while first > 0 and self._tokens[first - 1].text.upper() in _TYPE_WORDS:
                first -= 1
            head, end = self._tokens[first], self._tokens[self._index - 1].end
            literal = self.expression(exp.Cast(this=this, to=to))
            literal.update_positions(line=head.line, col=head.col, start=head.start, end=end)
            literal.meta["literal"] = True
            return literal

        def _parse_interval_unit(self) -> str | None:
            unit = interval_unit(self._curr.text) if self._curr is not None else None
            if unit is not None:
                self._advance()
            return unit

        def _parse_precision(self) -> int:
            if not self._match(TokenType.NUMBER):
                self._refuse("expected a precision")
            return int(self._prev.text)

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
                self._refuse(f"expected a time unit in {name.strip('_')}(...)")
            self._advance()
            if not self._match(TokenType.COMMA):
                self._refuse(f"expected a comma after the unit of {name.strip('_')}(...)")
            arguments = self._parse_csv(self._parse_assignment)
            return self.expression(
                exp.Anonymous(this=name, expressions=[exp.Literal.string(unit.text.upper()), *arguments])
            )

        def _parse_json_call(self, name: str) -> exp.Expression:
            """Flink's JSON calls with their clauses (``sql/json_syntax.py``)."""
            return parse_json_call(self, name)

        def _parse_function_call(self, *args: Any, **kwargs: Any) -> exp.Expression | None:
            """sqlglot's, the call's position its name's also where a function parser made it
            (``LISTAGG``, ``JSON_ARRAYAGG`` ...): a validation error names it there."""
            token = self._curr
            result = super()._parse_function_call(*args, **kwargs)
            call = result
            while isinstance(call, (exp.Window, exp.WithinGroup, exp.Filter)):
                call = call.this
            if isinstance(call, exp.Func) and token is not None and "start" not in call.meta:
                call.update_positions(token)
            return result

        def _parse_window(self, this: exp.Expression | None, alias: bool = False) -> exp.Expression | None:
            """sqlglot's, and after a JSON aggregate Flink's rules (``sql/json_syntax.py``)."""
            if alias or not is_json_aggregate(this):
                return super()._parse_window(this, alias)
            return parse_json_aggregate_suffix(self, this)  # type: ignore[arg-type]

        def _parse_json_object(self, agg: bool = False) -> exp.Expression:
            """sqlglot's JSON_OBJECT / JSON_OBJECTAGG, ended by its ')' (what else follows is
            where Flink's parser stops: ``JSON_OBJECTAGG(KEY k VALUE v ORDER BY v)``)."""
            result = super()._parse_json_object(agg)
            if self._curr is not None and self._curr.token_type != TokenType.R_PAREN:
                self.raise_error("Expecting )")
            return result

        def _parse_json_key_value(self) -> exp.JSONKeyValue | None:
            """A JSON_OBJECT / JSON_OBJECTAGG entry (``sql/json_syntax.py``)."""
            return parse_json_key_value(self)

        def _parse_watermark(self) -> exp.Expression | None:
            if not self._match(TokenType.FOR):
                return None
            column = self._parse_column()
            if not self._match(TokenType.ALIAS):
                self._refuse("expected AS after WATERMARK FOR <column>")
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

# the tokens a character or binary string literal starts with
_LITERAL_HEADS = {
    TokenType.STRING,
    TokenType.NATIONAL_STRING,
    TokenType.UNICODE_STRING,
    TokenType.HEX_STRING,
}
# Calcite's character set names: a letter or digit, then letters, digits and : . - _
_CHARSET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9:._-]*")


_TYPE_WORDS = {"DATE", "TIME", "TIMESTAMP", "WITH", "WITHOUT", "LOCAL", "ZONE"}  # a typed literal's
_MINUS_UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")  # (a - b) HOUR


def _line_of(sql: str, token: Token) -> int:
    """The line a token starts on."""
    return sql.count("\n", 0, token.start)


def _charset_strings(tokens: list[Token], sql: str) -> list[Token]:
    """``_UTF16'abc'``, ``_ISO-8859-1'abc'``: a string in a named character set (Calcite's
    PREFIXED_STRING_LITERAL, no space before the quote) as one NATIONAL_STRING token, as
    ``N'abc'`` is; the set must be known and hold the text. Spark's tokenizer split it into a
    name, the name's parts and a string."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        j = i
        if token.token_type == TokenType.VAR and token.text.startswith("_"):
            while j + 1 < len(tokens) and tokens[j + 1].start == tokens[j].end + 1:
                j += 1
                if tokens[j].token_type == TokenType.STRING:
                    break
        string = tokens[j]
        name = sql[token.start + 1 : string.start]
        if j > i and string.token_type == TokenType.STRING and _CHARSET_NAME.fullmatch(name):
            try:
                check_character_set(name, string.text)
            except LiteralError as err:
                raise sqlglot.errors.TokenError(str(err)) from err
            out.append(
                Token(
                    TokenType.NATIONAL_STRING, string.text, string.line, string.col, token.start, string.end
                )
            )
            i = j + 1
            continue
        out.append(token)
        i += 1
    return out


def _tokens(statement: str) -> list[Token]:
    try:
        return _DIALECT().tokenize(statement)
    except sqlglot.errors.TokenError as err:
        raise SqlError(f"SQL parse failed. {token_error(err)}") from None


def _flink_syntax(statement: str, tokens: list[Token]) -> tuple[str, Edits]:
    """Flink's type names that sqlglot's tokenizer reads as another thing, as sqlglot's: BYTES
    is BINARY, ``ROW<f type, ...>`` is ``STRUCT<f type, ...>`` (``_type_name``), by token
    positions; every other Flink form is parsed by the dialect (``_FlinkSql``). Returns the
    text and its edits: (start, end exclusive, replacement) in ``statement``, in order."""
    edits: Edits = []
    depth = 0
    for i, tok in enumerate(tokens):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tok.token_type, 0)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        name = _type_name(tok, nxt, depth)
        if name is not None:
            edits.append((tok.start, tok.end + 1, name))
    for start, end, replacement in reversed(edits):
        statement = statement[:start] + replacement + statement[end:]
    return statement, edits


def _type_name(tok: Any, nxt: Any, depth: int) -> str | None:
    """sqlglot's name of a Flink type name: BYTES is VARBINARY of the longest length (Flink's
    meaning; BINARY(n) is another type), ``ROW<f type, ...>`` is ``STRUCT<f type, ...>``;
    None for any other token."""
    text = tok.text.upper()
    if text == "BYTES" and tok.token_type == TokenType.VAR and depth >= 1:
        return "VARBINARY(2147483647)"
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
    """sqlglot's tree of one statement; the nodes' ``meta`` offsets are the statement's.

    Raises:
        SqlError: the statement does not parse, with Flink's message (``sql/syntax_errors.py``).
    """
    lexical = lexical_error(statement)
    if lexical is not None:
        raise SqlError(lexical)
    tokens = _tokens(statement)
    if non_query(statement, tokens):
        raise SqlError(NON_QUERY)
    early = early_failure(statement, tokens)
    text, edits = _flink_syntax(statement, tokens)
    try:
        tree = sqlglot.parse_one(text, read=_DIALECT)
    except sqlglot.errors.ParseError as err:
        raise SqlError(refusal(statement, tokens, err, edits, early)) from None
    if early is not None:
        raise SqlError(failure_message(statement, tokens, early))
    restore_offsets(tree, edits)
    return tree
