"""The syntax of Flink's MATCH_RECOGNIZE clause: the clause as Flink's (Calcite's) parser reads
it, and its PATTERN as a tree of row pattern operators.

::

    FROM t MATCH_RECOGNIZE (
        [PARTITION BY k, ...] [ORDER BY ts [ASC | DESC], ...]
        [MEASURES expr AS name, ...] [ONE ROW PER MATCH]
        [AFTER MATCH SKIP PAST LAST ROW | TO NEXT ROW | TO [FIRST | LAST] var]
        PATTERN (pattern) [WITHIN interval]
        [SUBSET name = (var, ...), ...]
        DEFINE var AS condition, ...
    ) [[AS] alias]

``parse_match_recognize`` is the dialect's parser of the clause (``sql/parser.py``); ALL ROWS
PER MATCH, a measure without a name and a missing DEFINE fail as Flink's parser fails on
them. ``parse_pattern`` reads the PATTERN text: variables, concatenation, ``|``,
parentheses, ``PERMUTE(...)``, ``{- ... -}``, anchors ``^`` / ``$`` and the quantifiers
``*``, ``+``, ``?``, ``{n}``, ``{n,}``, ``{n,m}``, ``{,m}``, each maybe reluctant (``?``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

__all__ = [
    "MatchRecognizeClause",
    "PatternNode",
    "parse_match_recognize",
    "parse_pattern",
]


class MatchRecognizeClause(exp.MatchRecognize):
    """sqlglot's MATCH_RECOGNIZE with Flink's ``WITHIN interval`` (``within``) and ``SUBSET
    name = (var, ...)`` (``subset``: a Tuple per name, aliased by it)."""

    arg_types = {**exp.MatchRecognize.arg_types, "within": False, "subset": False}


def _position(parser: Any, token: Token | None) -> str:
    """``at line L, column C`` of ``token`` in the statement, as Calcite says it."""
    sql: str = parser.sql
    start = token.start if token is not None else len(sql)
    line = sql.count("\n", 0, start) + 1
    column = start - (sql.rfind("\n", 0, start) + 1) + 1
    return f"at line {line}, column {column}"


def _encountered(parser: Any, error: type[Exception]) -> Exception:
    """Flink's parse error at the current token."""
    token = parser._curr
    text = token.text if token is not None else "<EOF>"
    return error(f'SQL parse failed. Encountered "{text}" {_position(parser, token)}.')


def parse_match_recognize(parser: Any, error: type[Exception]) -> exp.Expression | None:
    """The clause after the MATCH_RECOGNIZE keyword (the dialect parser's
    ``_parse_match_recognize``); ``error``: the SQL front end's error type."""
    if not parser._match(TokenType.MATCH_RECOGNIZE):
        return None
    parser._match_l_paren()
    partition = parser._parse_partition_by()
    order = parser._parse_order()
    measures = None
    if parser._match_text_seq("MEASURES"):
        measures = parser._parse_csv(lambda: _measure(parser, error))
    rows = None
    if parser._match_text_seq("ONE", "ROW", "PER", "MATCH"):
        rows = exp.var("ONE ROW PER MATCH")
    elif parser._curr is not None and parser._curr.text.upper() == "ALL":
        raise _encountered(parser, error)  # ALL ROWS PER MATCH: Flink's parser refuses it
    after = _after(parser, error)
    if not parser._match_text_seq("PATTERN"):
        raise _encountered(parser, error)
    pattern = _pattern_text(parser, error)
    within = parser._parse_interval() if parser._match_text_seq("WITHIN") else None
    subset = parser._parse_csv(lambda: _subset(parser, error)) if parser._match_text_seq("SUBSET") else None
    if not parser._match_text_seq("DEFINE"):
        raise _encountered(parser, error)
    define = parser._parse_csv(parser._parse_name_as_expression)
    parser._match_r_paren()
    return parser.expression(
        MatchRecognizeClause(
            partition_by=partition,
            order=order,
            measures=measures,
            rows=rows,
            after=after,
            pattern=pattern,
            define=define,
            within=within,
            subset=subset,
            alias=parser._parse_table_alias(),
        )
    )


def _subset(parser: Any, error: type[Exception]) -> exp.Expression:
    """``name = (var, ...)``."""
    name = parser._parse_id_var(any_token=True)
    if name is None or not parser._match(TokenType.EQ) or not parser._match(TokenType.L_PAREN):
        raise _encountered(parser, error)
    members = parser._parse_csv(lambda: parser._parse_id_var(any_token=True))
    parser._match_r_paren()
    return exp.Alias(this=exp.Tuple(expressions=members), alias=name)


def _measure(parser: Any, error: type[Exception]) -> exp.Expression:
    """``[FINAL | RUNNING] expr AS name``."""
    frame = parser._match_texts(("FINAL", "RUNNING")) and parser._prev.text.upper()
    this = parser._parse_disjunction()
    if not parser._match(TokenType.ALIAS):
        raise _encountered(parser, error)
    name = parser._parse_id_var(any_token=True)
    measure = exp.MatchRecognizeMeasure(window_frame=frame or None, this=exp.Alias(this=this, alias=name))
    return parser.expression(measure)


def _after(parser: Any, error: type[Exception]) -> exp.Expression | None:
    """``AFTER MATCH SKIP ...``: ``SKIP PAST LAST ROW``, ``SKIP TO NEXT ROW``, ``SKIP TO FIRST
    v``, ``SKIP TO LAST v`` (``SKIP TO v`` is ``SKIP TO LAST v``, as Calcite reads it)."""
    if not parser._match_text_seq("AFTER", "MATCH", "SKIP"):
        return None
    if parser._match_text_seq("PAST", "LAST", "ROW"):
        return exp.var("SKIP PAST LAST ROW")
    if not parser._match_text_seq("TO"):
        raise _encountered(parser, error)
    if parser._match_text_seq("NEXT", "ROW"):
        return exp.var("SKIP TO NEXT ROW")
    side = "LAST"
    if parser._curr is not None and parser._curr.text.upper() in ("FIRST", "LAST"):
        following = parser._next
        if following is not None and following.text.upper() != "PATTERN":
            side = parser._curr.text.upper()
            parser._advance()
    variable = parser._advance_any()
    if variable is None:
        raise _encountered(parser, error)
    return exp.var(f"SKIP TO {side} {variable.text}")


def _pattern_text(parser: Any, error: type[Exception]) -> exp.Expression:
    """The text between PATTERN's parentheses, as written."""
    if not parser._match(TokenType.L_PAREN):
        raise _encountered(parser, error)
    depth, first, last = 1, parser._curr, None
    while parser._curr is not None:
        kind = parser._curr.token_type
        depth += 1 if kind == TokenType.L_PAREN else -1 if kind == TokenType.R_PAREN else 0
        if depth == 0:
            break
        last = parser._curr
        parser._advance()
    if parser._curr is None:
        raise _encountered(parser, error)
    parser._advance()
    return exp.var(parser._find_sql(first, last) if last is not None else "")


# -- the row pattern ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PatternNode:
    """A row pattern operator: ``kind`` VAR (``name``), CONCAT, ALTER (``items``),
    QUANTIFIER (``items[0]`` repeated ``low``..``high`` times, -1: unbounded, ``reluctant``),
    PERMUTE, EXCLUDE or ANCHOR (``name`` ``^`` / ``$``)."""

    kind: str
    name: str = ""
    items: tuple[PatternNode, ...] = ()
    low: int = 1
    high: int = 1
    reluctant: bool = False

    def rex(self) -> str:
        """The pattern as Flink's plan prints it: ``((_UTF-16LE'A', PATTERN_QUANTIFIER(
        _UTF-16LE'B', 1, -1, false)), _UTF-16LE'C')``."""
        if self.kind == "VAR":
            return f"_UTF-16LE'{self.name}'"
        if self.kind == "ANCHOR":
            return self.name
        parts = [item.rex() for item in self.items]
        if self.kind in ("CONCAT", "ALTER"):
            text = parts[0]
            for part in parts[1:]:  # Calcite's operators are binary, nested to the left
                text = f"({text}, {part})" if self.kind == "CONCAT" else f"|({text}, {part})"
            return text
        if self.kind == "QUANTIFIER":
            reluctant = str(self.reluctant).lower()
            return f"PATTERN_QUANTIFIER({parts[0]}, {self.low}, {self.high}, {reluctant})"
        if self.kind == "PERMUTE":
            return f"PATTERN_PERMUTE({', '.join(parts)})"
        return f"PATTERN_EXCLUDE({parts[0]})"

    def variables(self) -> list[str]:
        """The variables named, in order of appearance."""
        if self.kind == "VAR":
            return [self.name]
        return [v for item in self.items for v in item.variables()]


_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_$]*|`(?:[^`]|``)+`)|(?P<brace>\{\s*\d*\s*(?:,\s*\d*\s*)?\})"
    r"|(?P<op>\{-|-\}|[()|*+?^$,]))"
)


class _PatternParser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text.rstrip()):
            found = _TOKEN.match(text, position)
            if found is None or found.end() == position:
                raise ValueError(f"unexpected {text[position:].strip()[:20]!r} in PATTERN ({text})")
            kind = found.lastgroup or "op"
            value = found.group(kind)
            if kind == "name" and value.startswith("`"):
                value = value[1:-1].replace("``", "`")
            self.tokens.append((kind, value))
            position = found.end()
        self.at = 0
        self.text = text

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, value: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] == value:
            self.at += 1
            return True
        return False

    def alternation(self) -> PatternNode:
        items = [self.concatenation()]
        while self.take("|"):
            items.append(self.concatenation())
        return items[0] if len(items) == 1 else PatternNode("ALTER", items=tuple(items))

    def concatenation(self) -> PatternNode:
        items = []
        while (token := self.peek()) is not None and not (token[0] == "op" and token[1] in "|),-}"):
            items.append(self.quantified())
        if not items:
            raise ValueError(f"an empty pattern in PATTERN ({self.text})")
        return items[0] if len(items) == 1 else PatternNode("CONCAT", items=tuple(items))

    def quantified(self) -> PatternNode:
        node = self.primary()
        token = self.peek()
        while token is not None and (token[0] == "brace" or (token[0] == "op" and token[1] in "*+?")):
            self.at += 1
            low, high = _bounds(token[1])
            node = PatternNode("QUANTIFIER", items=(node,), low=low, high=high, reluctant=self.take("?"))
            token = self.peek()
        return node

    def primary(self) -> PatternNode:
        token = self.peek()
        if token is None:
            raise ValueError(f"PATTERN ({self.text}) ends too early")
        self.at += 1
        kind, value = token
        if kind == "name" and value.upper() == "PERMUTE" and self.take("("):
            items = [self.alternation()]
            while self.take(","):
                items.append(self.alternation())
            self._close(")")
            return PatternNode("PERMUTE", items=tuple(items))
        if kind == "name":
            return PatternNode("VAR", value)
        if value == "(":
            inner = self.alternation()
            self._close(")")
            return inner
        if value == "{-":
            inner = self.alternation()
            self._close("-}")
            return PatternNode("EXCLUDE", items=(inner,))
        if value in "^$":
            return PatternNode("ANCHOR", value)
        raise ValueError(f"unexpected '{value}' in PATTERN ({self.text})")

    def _close(self, value: str) -> None:
        if not self.take(value):
            raise ValueError(f"expected '{value}' in PATTERN ({self.text})")


def _bounds(quantifier: str) -> tuple[int, int]:
    """``*`` (0, -1), ``+`` (1, -1), ``?`` (0, 1), ``{n}``, ``{n,}`` (n, -1), ``{n,m}``,
    ``{,m}`` (-1, m: Calcite leaves the lower bound unset)."""
    if quantifier in ("*", "+", "?"):
        return {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[quantifier]
    inner = quantifier[1:-1].replace(" ", "")
    if "," not in inner:
        return int(inner), int(inner)
    low, high = inner.split(",", 1)
    return (int(low) if low else -1), (int(high) if high else -1)


def parse_pattern(text: str) -> PatternNode:
    """The row pattern of ``PATTERN (text)``.

    Raises:
        ValueError: naming what is wrong in the text.
    """
    parser = _PatternParser(text)
    node = parser.alternation()
    if parser.peek() is not None:
        raise ValueError(f"unexpected '{parser.peek()[1]}' in PATTERN ({text})")  # type: ignore[index]
    return node
