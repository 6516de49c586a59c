"""One dialect per database, as Flink's ``JdbcDialect``: how names are quoted, what a
statement's placeholders look like to the Python driver, the statements the sink, the scan and
the lookup run, and which Flink SQL types the database holds (Flink's ``validate``, with its
messages).

==========  ==============  ===========  ===================================================
database    quoting         placeholder  upsert (``getUpsertStatement``), after the INSERT
==========  ==============  ===========  ===================================================
PostgreSQL  none (Flink's)  ``%s``       ``ON CONFLICT (k) DO UPDATE SET b=EXCLUDED.b``
MySQL       ```a```         ``%s``       ``ON DUPLICATE KEY UPDATE `a`=VALUES(`a`), ..``
SQLite      ``"a"``         ``?``        ``ON CONFLICT ("k") DO UPDATE SET "b"=excluded."b"``
==========  ==============  ===========  ===================================================

PostgreSQL leaves names unquoted, as Flink's dialect does (they fold to lower case; a table name
may be ``schema.table``); SQLite is not among Flink's dialects, its statements follow
PostgreSQL's (SQLite 3.24 has ``ON CONFLICT ... DO UPDATE``). A statement written for the
DataStream ``JdbcSink`` uses JDBC's ``?`` placeholders; ``to_driver_sql`` rewrites them for
drivers with the ``format`` paramstyle (``%s``, a literal ``%`` doubled). Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from millstream.connectors.jdbc.errors import JdbcConnectorError
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType

__all__ = ["JdbcDialect", "MySqlDialect", "PostgresDialect", "SqliteDialect", "dialect_of", "to_driver_sql"]

_MAX_LENGTH = 2**31 - 1
_COMMON_TYPES = frozenset(
    {
        "CHAR",
        "VARCHAR",
        "STRING",
        "BOOLEAN",
        "BYTES",
        "VARBINARY",
        "DECIMAL",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "TIME",
        "TIMESTAMP",
    }
)


@dataclass(frozen=True)
class JdbcDialect:
    """A database's SQL, as Flink's ``AbstractDialect``.

    Attributes:
        name: Flink's ``dialectName()`` (in messages).
        database: the URL's database (``postgresql``, ``mysql``, ``sqlite``).
        placeholder: a positional parameter as the Python driver writes it.
        decimal_precision: the DECIMAL precisions the database holds.
        timestamp_precision: the TIMESTAMP precisions the database holds.
        supported_types: the type roots it holds.
    """

    name: str
    database: str
    placeholder: str
    decimal_precision: tuple[int, int]
    timestamp_precision: tuple[int, int]
    supported_types: frozenset[str]

    def quote_identifier(self, identifier: str) -> str:
        """A column name as a statement writes it."""
        return identifier

    def quote_table(self, table: str) -> str:
        """A table name (``schema.table`` quoted part by part where names are quoted)."""
        return ".".join(self.quote_identifier(part) for part in table.split("."))

    def _columns(self, fields: list[str]) -> str:
        return ", ".join(self.quote_identifier(f) for f in fields)

    def _conditions(self, fields: list[str]) -> str:
        return " AND ".join(f"{self.quote_identifier(f)} = {self.placeholder}" for f in fields)

    def get_insert_into_statement(self, table: str, fields: list[str]) -> str:
        """``INSERT INTO t(a, b) VALUES (?, ?)``."""
        values = ", ".join([self.placeholder] * len(fields))
        return f"INSERT INTO {self.quote_table(table)}({self._columns(fields)}) VALUES ({values})"

    def get_upsert_statement(self, table: str, fields: list[str], key_fields: list[str]) -> str:
        """The insert that updates the row of an existing key (parameters: ``fields``)."""
        raise NotImplementedError

    def get_update_statement(self, table: str, fields: list[str], condition_fields: list[str]) -> str:
        """``UPDATE t SET a = ?, b = ? WHERE k = ?`` (parameters: ``fields`` then the conditions')."""
        assignments = ", ".join(f"{self.quote_identifier(f)} = {self.placeholder}" for f in fields)
        return (
            f"UPDATE {self.quote_table(table)} SET {assignments} WHERE {self._conditions(condition_fields)}"
        )

    def get_delete_statement(self, table: str, condition_fields: list[str]) -> str:
        """``DELETE FROM t WHERE k = ?``."""
        return f"DELETE FROM {self.quote_table(table)} WHERE {self._conditions(condition_fields)}"

    def get_select_from_statement(self, table: str, fields: list[str], condition_fields: list[str]) -> str:
        """``SELECT a, b FROM t [WHERE k = ?]``."""
        where = f" WHERE {self._conditions(condition_fields)}" if condition_fields else ""
        return f"SELECT {self._columns(fields)} FROM {self.quote_table(table)}{where}"

    def get_row_exists_statement(self, table: str, condition_fields: list[str]) -> str:
        """``SELECT 1 FROM t WHERE k = ?``."""
        return f"SELECT 1 FROM {self.quote_table(table)} WHERE {self._conditions(condition_fields)}"

    def get_limit_clause(self, limit: int) -> str:
        """``LIMIT n``."""
        return f"LIMIT {limit}"

    def validate(self, names: list[str], types: list[DataType]) -> None:
        """Check that the database holds each column's type (Flink's ``AbstractDialect.validate``).

        Raises:
            ValueError: Flink's message naming the type or the field.
        """
        for name, data_type in zip(names, types, strict=True):
            root = data_type.root
            narrow_bytes = root == "VARBINARY" and data_type.params and data_type.params[0] != _MAX_LENGTH
            if root not in self.supported_types or narrow_bytes:
                raise ValueError(
                    f"The {self.name} dialect doesn't support type: {summary_string(data_type)}."
                )
            if root == "DECIMAL":
                self._check_precision(name, "DECIMAL", data_type.params[0], self.decimal_precision)
            if root == "TIMESTAMP":
                precision = data_type.params[0] if data_type.params else 6
                self._check_precision(name, "TIMESTAMP", precision, self.timestamp_precision)

    def _check_precision(self, name: str, kind: str, precision: int, bounds: tuple[int, int]) -> None:
        low, high = bounds
        if not low <= precision <= high:
            raise ValueError(
                f"The precision of field '{name}' is out of the {kind} precision range [{low}, {high}] "
                f"supported by {self.name} dialect."
            )


class PostgresDialect(JdbcDialect):
    """Flink's ``PostgresDialect``: names unquoted, ``ON CONFLICT (key) DO UPDATE SET``."""

    def get_upsert_statement(self, table: str, fields: list[str], key_fields: list[str]) -> str:
        """``INSERT .. ON CONFLICT (k) DO UPDATE SET a=EXCLUDED.a`` (``DO NOTHING`` when every
        column is in the key)."""
        keys = set(key_fields)
        updates = ", ".join(
            f"{self.quote_identifier(f)}=EXCLUDED.{self.quote_identifier(f)}" for f in fields if f not in keys
        )
        action = f" DO UPDATE SET {updates}" if updates else " DO NOTHING"
        conflict = self._columns(key_fields)
        return f"{self.get_insert_into_statement(table, fields)} ON CONFLICT ({conflict}){action}"


class MySqlDialect(JdbcDialect):
    """Flink's ``MySqlDialect``: back-quoted names, ``ON DUPLICATE KEY UPDATE``."""

    def quote_identifier(self, identifier: str) -> str:
        """```name```."""
        return "`" + identifier.replace("`", "``") + "`"

    def get_upsert_statement(self, table: str, fields: list[str], key_fields: list[str]) -> str:
        """``INSERT .. ON DUPLICATE KEY UPDATE `a`=VALUES(`a`), ..`` (every column, as Flink's)."""
        updates = ", ".join(f"{self.quote_identifier(f)}=VALUES({self.quote_identifier(f)})" for f in fields)
        return f"{self.get_insert_into_statement(table, fields)} ON DUPLICATE KEY UPDATE {updates}"


class SqliteDialect(JdbcDialect):
    """SQLite (3.24+): double-quoted names, ``ON CONFLICT (key) DO UPDATE SET a=excluded.a``."""

    def quote_identifier(self, identifier: str) -> str:
        """``"name"``."""
        return '"' + identifier.replace('"', '""') + '"'

    def get_upsert_statement(self, table: str, fields: list[str], key_fields: list[str]) -> str:
        """``INSERT .. ON CONFLICT ("k") DO UPDATE SET "a"=excluded."a"`` (``DO NOTHING`` when
        every column is in the key)."""
        keys = set(key_fields)
        updates = ", ".join(
            f"{self.quote_identifier(f)}=excluded.{self.quote_identifier(f)}" for f in fields if f not in keys
        )
        action = f" DO UPDATE SET {updates}" if updates else " DO NOTHING"
        conflict = self._columns(key_fields)
        return f"{self.get_insert_into_statement(table, fields)} ON CONFLICT ({conflict}){action}"


POSTGRES = PostgresDialect(
    "PostgreSQL", "postgresql", "%s", (1, 1000), (0, 6), _COMMON_TYPES | {"TIMESTAMP_LTZ", "ARRAY"}
)
MYSQL = MySqlDialect("MySQL", "mysql", "%s", (1, 65), (0, 6), _COMMON_TYPES)
SQLITE = SqliteDialect("SQLite", "sqlite", "?", (1, 38), (0, 6), _COMMON_TYPES)
_DIALECTS = {"postgresql": POSTGRES, "mysql": MYSQL, "sqlite": SQLITE}


def dialect_of(database: str) -> JdbcDialect:
    """The dialect of a URL's database (``urls.JdbcUrl.database``)."""
    try:
        return _DIALECTS[database]
    except KeyError:
        raise JdbcConnectorError(f"no JDBC dialect for the database '{database}'") from None


def to_driver_sql(sql: str, dialect: JdbcDialect) -> str:
    """A statement with JDBC's ``?`` placeholders as the dialect's driver takes it: for the
    ``format`` paramstyle (psycopg, PyMySQL) each ``?`` outside quotes and comments becomes
    ``%s`` (``??`` is a literal ``?``, as the PostgreSQL JDBC driver reads it) and each ``%``
    is doubled; SQLite takes ``?`` as it is."""
    if dialect.placeholder == "?":
        return sql
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":  # a string, a quoted name: up to the closing quote (doubled quotes stay inside)
            end = sql.find(c, i + 1)
            while end != -1 and end + 1 < n and sql[end + 1] == c:
                end = sql.find(c, end + 2)
            end = n if end == -1 else end + 1
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif sql.startswith("--", i) or sql.startswith("/*", i):
            end = sql.find("\n", i) if c == "-" else sql.find("*/", i + 2)
            end = n if end == -1 else end + (1 if c == "-" else 2)
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif c == "?":
            if sql.startswith("??", i):
                out.append("?")
                i += 2
            else:
                out.append("%s")
                i += 1
        else:
            out.append("%%" if c == "%" else c)
            i += 1
    return "".join(out)
