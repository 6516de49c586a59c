"""The words of a statement that is no query (``SHOW TABLES FROM db LIKE 'a%'``, ``ALTER TABLE
t RENAME TO u``, ``CREATE CATALOG c WITH (...)``): the dialect's tokens, read one at a time by
the statement parsers (``sql/statements_*.py``), as Flink's parser reads its DDL grammar. A
statement that does not fit fails as Flink's: ``SQL parse failed. Encountered "x" at line 1,
column 8.``, at the token's own position.

sqlglot's tokenizer swallows the rest of a statement after ``SHOW``, ``EXECUTE`` and ``RENAME``
as one string (it parses those as opaque commands); this one reads them word by word.
"""

from __future__ import annotations

import re
from typing import ClassVar

import sqlglot.errors
from sqlglot.tokens import Token, TokenType

from millstream.table.sql.parser import _DIALECT, SqlError

__all__ = ["StatementTokens"]


class _Tokenizer(_DIALECT.Tokenizer):
    COMMANDS: ClassVar[set[TokenType]] = set()  # SHOW, EXECUTE, RENAME: words like any other


_NAME_TOKENS = (TokenType.VAR, TokenType.IDENTIFIER)


def _words(statement: str, token: Token) -> list[Token]:
    """A keyword token of several words (sqlglot's ``PRIMARY KEY``, ``ADD JAR``) as one token a
    word, each at its own position; any other token as it is."""
    if token.token_type in (TokenType.STRING, TokenType.IDENTIFIER) or " " not in token.text.strip():
        return [token]
    words, offset = [], token.start
    for word in token.text.split():
        start = statement.index(word, offset) if word in statement[offset:] else offset
        words.append(Token(TokenType.VAR, word, token.line, token.col, start, start + len(word) - 1))
        offset = start + len(word)
    return words


class StatementTokens:
    """A cursor over a statement's tokens (comments and a final ``;`` left out)."""

    def __init__(self, statement: str) -> None:
        self.sql = statement
        try:
            tokens = _Tokenizer(dialect=_DIALECT()).tokenize(statement)
        except sqlglot.errors.TokenError as err:
            raise SqlError(f"SQL parse failed. {err}") from err
        while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
            tokens.pop()
        self.tokens: list[Token] = [word for token in tokens for word in _words(statement, token)]
        self.index = 0

    # -- looking ahead -----------------------------------------------------------------------------------

    def word(self, ahead: int = 0) -> str:
        """The upper-case text of the token ``ahead`` of the current one ('' past the end; a
        quoted name or a string is never a word)."""
        i = self.index + ahead
        if i >= len(self.tokens) or self.tokens[i].token_type in (TokenType.IDENTIFIER, TokenType.STRING):
            return ""
        return self.tokens[i].text.upper()

    def at(self, *words: str) -> bool:
        """Whether the next tokens are ``words`` (upper case)."""
        return all(self.word(k) == w for k, w in enumerate(words))

    def at_end(self) -> bool:
        """Whether every token was read."""
        return self.index >= len(self.tokens)

    def accept(self, *words: str) -> bool:
        """Read ``words`` if they come next; whether they did."""
        if not self.at(*words):
            return False
        self.index += len(words)
        return True

    def expect(self, *words: str) -> None:
        """Read ``words``.

        Raises:
            SqlError: another token comes (Flink's "Encountered ..." at its position).
        """
        for word in words:
            if not self.accept(word):
                raise self.error()

    def expect_end(self) -> None:
        """Nothing is left.

        Raises:
            SqlError: a token is left.
        """
        if not self.at_end():
            raise self.error()

    # -- reading -----------------------------------------------------------------------------------------

    def name(self) -> str:
        """An identifier (a word or a backquoted name), unquoted.

        Raises:
            SqlError: no identifier comes.
        """
        token = self._next_token()
        if token.token_type in _NAME_TOKENS or (
            token.token_type != TokenType.STRING and token.text.replace("_", "").isalnum()
        ):
            return token.text
        self.index -= 1
        raise self.error()

    def compound_name(self) -> list[str]:
        """A name of one or more dotted parts (``c.db.t``), each unquoted."""
        parts = [self.name()]
        while self.accept("."):
            parts.append(self.name())
        return parts

    def names(self) -> list[str]:
        """Comma-separated names (``a, b``)."""
        found = [self.name()]
        while self.accept(","):
            found.append(self.name())
        return found

    def string(self) -> str:
        """A string literal's text.

        Raises:
            SqlError: no string comes.
        """
        token = self._next_token()
        if token.token_type != TokenType.STRING:
            self.index -= 1
            raise self.error()
        return token.text

    def properties(self) -> dict[str, str]:
        """``('key' = 'value', ...)``: the options, in the order written."""
        self.expect("(")
        found: dict[str, str] = {}
        if self.accept(")"):
            return found
        while True:
            key = self.string()
            self.expect("=")
            found[key] = self.string()
            if self.accept(")"):
                return found
            self.expect(",")

    def keys(self) -> list[str]:
        """``('key', ...)``: the keys (``RESET``'s)."""
        self.expect("(")
        found = [self.string()]
        while self.accept(","):
            found.append(self.string())
        self.expect(")")
        return found

    def rest(self) -> str:
        """The statement's text from the current token on (the end: '')."""
        if self.at_end():
            return ""
        return self.sql[self.tokens[self.index].start :].strip().rstrip(";").rstrip()

    def rest_in_place(self, start: int | None = None, end: int | None = None) -> str:
        """The statement from the current token (or offset ``start``) to ``end``, what comes
        before it blanked (newlines kept): parsed so, a nested statement's errors name their
        positions in the whole statement, as Flink's do."""
        begin = self.position() if start is None else start
        return re.sub(r"[^\n]", " ", self.sql[:begin]) + self.sql[begin:end]

    def position(self) -> int:
        """The offset of the current token in the statement (its length past the end)."""
        return self.tokens[self.index].start if not self.at_end() else len(self.sql)

    def skip(self) -> None:
        """Read one token, whatever it is."""
        self.index += 1

    def _next_token(self) -> Token:
        if self.at_end():
            raise self.error()
        self.index += 1
        return self.tokens[self.index - 1]

    def error(self) -> SqlError:
        """Flink's parse error at the current token: ``SQL parse failed. Encountered "x" at line
        1, column 8.``"""
        if self.at_end():
            return SqlError('SQL parse failed. Encountered "<EOF>" at the end of the statement.')
        token = self.tokens[self.index]
        line = self.sql.count("\n", 0, token.start) + 1
        column = token.start - (self.sql.rfind("\n", 0, token.start) + 1) + 1
        text = self.sql[token.start : token.end + 1]
        return SqlError(f'SQL parse failed. Encountered "{text}" at line {line}, column {column}.')
