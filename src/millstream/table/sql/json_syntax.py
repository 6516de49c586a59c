"""The syntax of Flink's (Calcite's) JSON calls, as the dialect's parser reads them
(``sql/parser.py``; ``sql/forms.py`` converts what they make)::

    JSON_VALUE(j, path [RETURNING t] [NULL | ERROR | DEFAULT x ON EMPTY] [... ON ERROR])
    JSON_QUERY(j, path [RETURNING t] [WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER |
               WITHOUT [ARRAY] WRAPPER] [NULL | ERROR | EMPTY ARRAY | EMPTY OBJECT ON EMPTY]
               [... ON ERROR])
    JSON_EXISTS(j, path [TRUE | FALSE | UNKNOWN | ERROR ON ERROR])
    JSON_ARRAY(v, ... [NULL | ABSENT ON NULL])
    JSON_ARRAYAGG(v [ORDER BY k, ...] [NULL | ABSENT ON NULL]) [WITHIN GROUP (ORDER BY k, ...)]
    JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL])     (also k : v)
    JSON_OBJECTAGG([KEY] k VALUE v [NULL | ABSENT ON NULL])

Each call but JSON_OBJECT(AGG) (sqlglot's own nodes) is the call ``__<name>(options,
returning type or NULL, default on empty or NULL, default on error or NULL, arguments...)``,
the options a JSON object; JSON_ARRAYAGG's ORDER BY is an ``exp.Order`` after its value.
A key is any expression (``KEY 'k' || x VALUE v``), as Calcite's. Flink's parser takes no
FILTER or OVER after a JSON aggregate, nor a WITHIN GROUP after JSON_OBJECTAGG or after a
JSON_ARRAYAGG with an ORDER BY inside; PyFlink 2.3.0 aggregates in arrival order whatever the
ORDER BY says.
"""

from __future__ import annotations

import json
from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

from millstream.table.sql.errors import SqlError

__all__ = ["is_json_aggregate", "parse_json_aggregate_suffix", "parse_json_call", "parse_json_key_value"]

_BEHAVIOURS = {
    "JSON_EXISTS": ("TRUE", "FALSE", "UNKNOWN", "ERROR"),
    "JSON_VALUE": ("NULL", "ERROR"),
    "JSON_QUERY": ("NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT"),
}


def parse_json_call(parser: Any, name: str) -> exp.Expression:
    """The call ``name(...)`` after its '(' (the module's forms; its ')' left to sqlglot)."""
    if parser._curr is not None and parser._curr.token_type == TokenType.R_PAREN:
        arguments: list[exp.Expression] = []
    else:
        arguments = [a for a in parser._parse_csv(parser._parse_assignment) if a is not None]
    if name == "JSON_ARRAYAGG" and parser._match(TokenType.ORDER_BY, advance=False):
        arguments.append(parser._parse_order())  # JSON_ARRAYAGG(v ORDER BY k ...): an Order last
    options: dict[str, str] = {}
    returning: exp.Expression = exp.null()
    defaults: dict[str, exp.Expression] = {"EMPTY": exp.null(), "ERROR": exp.null()}
    if name in ("JSON_VALUE", "JSON_QUERY") and parser._match_text_seq("RETURNING"):
        returning = parser._parse_types() or exp.null()
    if name == "JSON_QUERY":
        wrapper = _wrapper(parser)
        if wrapper is not None:
            options["wrapper"] = wrapper
    while parser._curr is not None and parser._curr.token_type != TokenType.R_PAREN:
        behaviour = _behaviour(parser, name)
        if behaviour is None or not parser._match(TokenType.ON):
            rest = parser._find_sql(parser._curr, parser._tokens[-1]).rsplit(")", 1)[0].strip()
            raise SqlError(f"SQL parse failed. {name}(... {rest}) is not valid")
        target = parser._curr.text.upper() if parser._curr is not None else ""
        allowed = ("NULL",) if name in ("JSON_ARRAY", "JSON_ARRAYAGG") else ("EMPTY", "ERROR")
        if (
            target not in allowed
            or (name == "JSON_EXISTS" and target != "ERROR")
            or target.lower() in options
        ):
            raise SqlError(f'SQL parse failed. Encountered "{target}" in {name}(...)')
        parser._advance()
        if isinstance(behaviour, exp.Expression):
            defaults[target] = behaviour
            behaviour = "DEFAULT"
        options[target.lower()] = behaviour
    head = [exp.Literal.string(json.dumps(options)), returning, defaults["EMPTY"], defaults["ERROR"]]
    return parser.expression(exp.Anonymous(this=f"__{name}", expressions=[*head, *arguments]))


def _wrapper(parser: Any) -> str | None:
    """JSON_QUERY's ``WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER`` or ``WITHOUT [ARRAY]
    WRAPPER`` (None: neither)."""
    if parser._match_text_seq("WITHOUT"):
        parser._match(TokenType.ARRAY)
        if not parser._match_text_seq("WRAPPER"):
            parser._refuse("expected WRAPPER after WITHOUT [ARRAY]")
        return "WITHOUT ARRAY"
    index = parser._index
    if parser._match(TokenType.WITH):
        kind = "UNCONDITIONAL ARRAY"
        if parser._match_text_seq("CONDITIONAL"):
            kind = "CONDITIONAL ARRAY"
        else:
            parser._match_text_seq("UNCONDITIONAL")
        parser._match(TokenType.ARRAY)
        if parser._match_text_seq("WRAPPER"):
            return kind
        parser._retreat(index)
    return None


def _behaviour(parser: Any, name: str) -> str | exp.Expression | None:
    """The behaviour before ``ON``: a word, or the expression after DEFAULT."""
    if name == "JSON_VALUE" and parser._match(TokenType.DEFAULT):
        return parser._parse_bitwise()
    for word in _BEHAVIOURS.get(name, ("NULL", "ABSENT")):
        if parser._match_text_seq(*word.split()):
            return word
    return None


def parse_json_key_value(parser: Any) -> exp.JSONKeyValue | None:
    """A JSON_OBJECT / JSON_OBJECTAGG entry ``[KEY] k VALUE v`` (or ``k : v``): the key any
    expression, as Calcite's (``KEY 'k' || x VALUE v``); sqlglot's took a column."""
    parser._match_text_seq("KEY")
    key = parser._parse_bitwise()
    parser._match_set(parser.JSON_KEY_VALUE_SEPARATOR_TOKENS)
    parser._match_text_seq("VALUE")
    value = parser._parse_bitwise()
    if not key and not value:
        return None
    return parser.expression(exp.JSONKeyValue(this=key, expression=value))


def is_json_aggregate(node: Any) -> bool:
    """Whether ``node`` is a JSON_ARRAYAGG or JSON_OBJECTAGG call as the parser makes them."""
    return isinstance(node, exp.JSONObjectAgg) or (
        isinstance(node, exp.Anonymous) and node.name == "__JSON_ARRAYAGG"
    )


def parse_json_aggregate_suffix(parser: Any, call: exp.Expression) -> exp.Expression:
    """What may follow a JSON aggregate's ')': JSON_ARRAYAGG's ``WITHIN GROUP (ORDER BY ...)``
    (an ``exp.WithinGroup`` of the call), refused with an ORDER BY inside too; a WITHIN after
    JSON_OBJECTAGG, a FILTER or an OVER is where Flink's parser stops."""
    result = call
    if isinstance(call, exp.Anonymous) and parser._match_text_seq("WITHIN", "GROUP"):
        if isinstance(call.expressions[-1], exp.Order):
            both = "Including both WITHIN GROUP(...) and inside ORDER BY in a single JSON_ARRAYAGG call"
            parser._refuse(f"{both} is not allowed")
        order = parser._parse_wrapped(parser._parse_order)
        result = parser.expression(exp.WithinGroup(this=call, expression=order))
    word = parser._curr.text.upper() if parser._curr is not None else ""
    if word in ("WITHIN", "FILTER", "OVER"):
        parser._refuse(f"Incorrect syntax near the keyword '{word}'", parser._curr)
    return result
