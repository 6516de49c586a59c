"""``CREATE | ALTER | DROP [TEMPORARY [SYSTEM]] FUNCTION`` to their operations, as Flink's parser
reads them: ``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] [catalog.][db.]name AS
'module.udf' [LANGUAGE PYTHON | JAVA | SCALA] [USING JAR '...']``. Only Python functions run
here (no JVM): another language, or a jar, is refused in one line naming the function.
"""

from __future__ import annotations

from millstream.table.catalog.catalog import CatalogFunction
from millstream.table.sql.operations import (
    AlterFunctionOperation,
    CreateFunctionOperation,
    DropFunctionOperation,
    Operation,
)
from millstream.table.sql.parser import SqlError
from millstream.table.sql.statement_tokens import StatementTokens

__all__ = ["function_ddl"]

_LANGUAGES = ("JAVA", "SCALA", "PYTHON")


def function_ddl(tokens: StatementTokens, verb: str) -> Operation:
    """``CREATE | ALTER | DROP ... FUNCTION ...`` (``verb`` read; TEMPORARY, SYSTEM or FUNCTION next)."""
    kind = "catalog"
    if tokens.accept("TEMPORARY"):
        kind = "system" if tokens.accept("SYSTEM") else "temporary"
    tokens.expect("FUNCTION")
    if verb == "CREATE":
        exists = tokens.accept("IF", "NOT", "EXISTS")
    else:
        exists = tokens.accept("IF", "EXISTS")
    path = [tokens.name()] if kind == "system" else tokens.compound_name()
    if kind == "system" and tokens.at("."):
        raise tokens.error()
    if verb == "DROP":
        tokens.expect_end()
        return DropFunctionOperation(path, kind, exists)
    if verb == "ALTER" and kind != "catalog":
        noun = "system" if kind == "system" else "catalog"
        raise SqlError(f"Alter temporary {noun} function is not supported")
    definition = _definition(tokens, path[-1])
    if verb == "ALTER":
        return AlterFunctionOperation(path, definition, exists)
    return CreateFunctionOperation(path, definition, kind, exists)


def _definition(tokens: StatementTokens, name: str) -> CatalogFunction:
    """``AS 'identifier' [LANGUAGE ...] [USING JAR ...]``.

    Raises:
        SqlError: a language other than Python, an unknown language, or jars.
    """
    tokens.expect("AS")
    class_name = tokens.string()
    language = "JAVA"
    if tokens.accept("LANGUAGE"):
        language = tokens.name().upper()
        if language not in _LANGUAGES:
            raise SqlError(f"Unrecognized function language string {language}")
    if tokens.accept("USING"):
        raise SqlError(
            f"millstream: CREATE FUNCTION {name} ... USING JAR is not supported (no JVM runs here)"
        )
    tokens.expect_end()
    if language != "PYTHON":
        raise SqlError(
            f"millstream: CREATE FUNCTION {name} ... LANGUAGE {language} is not supported: only LANGUAGE "
            "PYTHON functions run here (no JVM)"
        )
    return CatalogFunction(class_name, language)
