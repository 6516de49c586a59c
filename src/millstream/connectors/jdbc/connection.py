"""The connection a JDBC writer, reader or lookup function holds (Flink's
``SimpleJdbcConnectionProvider``): opened on first use, checked after a failed statement and
opened again when the database dropped it. It is shipped to the subtasks with the job, so it
pickles without its connection. Coordinating code.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from millstream.connectors.jdbc.dialects import JdbcDialect, dialect_of
from millstream.connectors.jdbc.urls import JdbcUrl, check_driver_name, connect, parse_jdbc_url

__all__ = ["JdbcConnectionProvider", "JdbcOptions", "set_autocommit"]

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class JdbcOptions:
    """Where and as whom to connect (Flink's ``JdbcConnectionOptions``).

    Attributes:
        url: the JDBC URL.
        driver: the ``driver`` option (a JDBC class name; None: from the URL).
        username: the ``username`` option.
        password: the ``password`` option.
        check_timeout_s: seconds to connect or to check a connection
            (``connection.max-retry-timeout``, 60).
    """

    url: str
    driver: str | None = None
    username: str | None = None
    password: str | None = None
    check_timeout_s: int = 60

    def parsed_url(self) -> JdbcUrl:
        """The URL's database and driver arguments (checked against ``driver``).

        Raises:
            JdbcConnectorError: an unsupported URL, or a driver of another database.
        """
        parsed = parse_jdbc_url(self.url)
        check_driver_name(parsed, self.driver)
        return parsed

    def dialect(self) -> JdbcDialect:
        """The URL's dialect."""
        return dialect_of(self.parsed_url().database)

    def __repr__(self) -> str:  # never the password
        return f"JdbcOptions(url={self.parsed_url().shown()!r}, user={self.username!r})"


class JdbcConnectionProvider:
    """One DB-API connection to the options' database, opened when first asked for."""

    def __init__(self, options: JdbcOptions) -> None:
        self.options = options
        self._url = options.parsed_url()
        self._connection: Any = None  # owner: the subtask's thread (the writer's, under its lock)

    @property
    def connection(self) -> Any:
        """The open connection (None before ``get_or_establish_connection``)."""
        return self._connection

    def get_or_establish_connection(self) -> Any:
        """The connection, opened now if it is not open.

        Raises:
            JdbcConnectorError: the database cannot be reached or refused the login.
        """
        if self._connection is None:
            options = self.options
            self._connection = connect(self._url, options.username, options.password, options.check_timeout_s)
        return self._connection

    def is_connection_valid(self) -> bool:
        """Whether the connection answers a trivial query (Flink's ``Connection.isValid``); its
        failed transaction, if any, is rolled back first."""
        connection = self._connection
        if connection is None:
            return False
        try:
            connection.rollback()
            cursor = connection.cursor()
            try:
                cursor.execute("SELECT 1")
                cursor.fetchall()
            finally:
                cursor.close()
            connection.rollback()
            return True
        except Exception as err:
            _LOG.info("JDBC connection to %s is not valid any more: %s", self._url.shown(), err)
            return False

    def reestablish_connection(self) -> Any:
        """A new connection in place of the old one (closed)."""
        self.close_connection()
        return self.get_or_establish_connection()

    def close_connection(self) -> None:
        """Close the connection (errors of a connection already gone are only logged)."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            connection.close()
        except Exception as err:
            _LOG.info("JDBC connection to %s could not be closed: %s", self._url.shown(), err)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_connection": None}


def set_autocommit(connection: Any, database: str, on: bool) -> None:
    """Switch the connection's auto-commit mode (the drivers spell it three ways)."""
    if database == "postgresql":
        connection.autocommit = on
    elif database == "mysql":
        connection.autocommit(on)
    else:
        connection.isolation_level = None if on else ""
