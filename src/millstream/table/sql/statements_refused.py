"""The statements of Flink's SQL reference that ``execute_sql`` refuses, each in one line naming
it: those Flink's own ``TableEnvironment.executeSql`` refuses too (the SQL client's ``SET``,
``RESET``, ``BEGIN STATEMENT SET`` / ``END``, ``SHOW JOBS``, ``STOP JOB``, ``REMOVE JAR``; Flink:
``Unsupported SQL query! executeSql() only accepts a single SQL statement of type ...``) and
those whose work no connector or catalog here can do (``ANALYZE TABLE``, ``TRUNCATE TABLE``,
``DELETE``, ``UPDATE``, ``INSERT OVERWRITE``, ``CALL``, ``ADD JAR``, compiled plans), with
Flink's own message where Flink refuses the statement the same way (``TRUNCATE TABLE statement
is not supported in streaming mode.``).
"""

from __future__ import annotations

from millstream.table.sql.context import SqlContext
from millstream.table.sql.parser import SqlError
from millstream.table.sql.statement_tokens import StatementTokens

__all__ = ["refused_statement"]

_CLIENT = (
    "is not supported by execute_sql: Flink's TableEnvironment refuses it too (a statement of the SQL client)"
)
_SET = "set an option with t_env.get_config().set(key, value)"
_SETS = "run EXECUTE STATEMENT SET BEGIN INSERT ...; END or t_env.create_statement_set()"
_JOBS = "`millstream list` and `millstream stop` manage jobs"
_NO_ROWS = "no table connector here deletes or updates rows"

# a statement's first words -> its refusal
_REFUSED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("SET",), f"millstream: SET {_CLIENT}; {_SET}"),
    (("RESET",), f"millstream: RESET {_CLIENT}; {_SET}"),
    (("BEGIN", "STATEMENT", "SET"), f"millstream: BEGIN STATEMENT SET {_CLIENT}; {_SETS}"),
    (("END",), f"millstream: END {_CLIENT}; {_SETS}"),
    (("SHOW", "JOBS"), f"millstream: SHOW JOBS {_CLIENT}; {_JOBS}"),
    (("STOP", "JOB"), f"millstream: STOP JOB {_CLIENT}; {_JOBS}"),
    (("DESCRIBE", "JOB"), f"millstream: DESCRIBE JOB {_CLIENT}; {_JOBS}"),
    (("DESC", "JOB"), f"millstream: DESCRIBE JOB {_CLIENT}; {_JOBS}"),
    (("ADD", "JAR"), "millstream: ADD JAR is not supported (no JVM runs here)"),
    (("REMOVE", "JAR"), "millstream: REMOVE JAR is not supported (no JVM runs here)"),
    (("COMPILE",), "millstream: COMPILE PLAN is not supported (no compiled plans here)"),
    (("CALL",), "millstream: CALL is not supported (no catalog here has procedures)"),
    (("DELETE",), f"millstream: DELETE is not supported ({_NO_ROWS})"),
    (("UPDATE",), f"millstream: UPDATE is not supported ({_NO_ROWS})"),
    (
        ("INSERT", "OVERWRITE"),
        "millstream: INSERT OVERWRITE is not supported (no table connector here overwrites; INSERT INTO "
        "appends)",
    ),
)


def refused_statement(ctx: SqlContext, tokens: StatementTokens) -> SqlError | None:
    """The one-line refusal of the statement ``tokens`` holds, or None when it is no refused one."""
    for words, message in _REFUSED:
        if tokens.at(*words):
            return SqlError(message)
    if tokens.at("ANALYZE", "TABLE"):
        if not ctx.batch:
            return SqlError("ANALYZE TABLE is not supported for streaming mode now")
        return SqlError("millstream: ANALYZE TABLE is not supported (no table statistics here)")
    if tokens.at("TRUNCATE", "TABLE"):
        return _truncate(ctx, tokens)
    return None


def _truncate(ctx: SqlContext, tokens: StatementTokens) -> SqlError:
    """``TRUNCATE TABLE name``: refused, as Flink refuses it in streaming mode and for a table
    whose connector cannot truncate (none here can)."""
    if not ctx.batch:
        return SqlError("TRUNCATE TABLE statement is not supported in streaming mode.")
    tokens.skip()
    tokens.skip()
    identifier = ctx.catalog.qualify(tokens.compound_name())
    if ctx.catalog.get(identifier) is None:
        return SqlError(f"Table {identifier.as_summary_string()} doesn't exist.")
    return SqlError(
        f"TRUNCATE TABLE statement is not supported for the table {identifier.as_summary_string()} since the "
        "table hasn't implemented the interface SupportsTruncate."
    )
