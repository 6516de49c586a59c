"""Flink's JDBC URLs as Python DB-API connections: the URL names the database, and the
database the driver (Flink loads a Java driver class; here a Python module)::

    jdbc:postgresql://host[:port][,host2[:port2]]/database[?user=..&password=..&sslmode=..]
        -> psycopg.connect(host=.., port=.., dbname=.., ...)        the [postgres] extra
    jdbc:mysql://host[:port]/database[?user=..&characterEncoding=UTF-8&connectTimeout=ms]
        -> pymysql.connect(host=.., port=.., database=.., ...)      the [mysql] extra
    jdbc:sqlite:/path/to/file.db  |  jdbc:sqlite:relative.db  |  jdbc:sqlite::memory:
    jdbc:sqlite:file:data.db?mode=ro (an SQLite URI)
        -> sqlite3.connect(path)                                    the standard library

URL parameters the PostgreSQL JDBC driver and Connector/J share with libpq and PyMySQL are
carried over (``user``, ``password``, ``sslmode``, ``ssl``, ``connectTimeout``,
``ApplicationName``, ``currentSchema``; ``characterEncoding``); others of the Java drivers are
ignored (logged once), as they tune the Java driver. The ``driver`` option (Flink's class
name: ``org.postgresql.Driver``, ``com.mysql.cj.jdbc.Driver``, ``org.sqlite.JDBC``, or the
Python module's name) must fit the URL's database. Coordinating code.
"""

from __future__ import annotations

import logging
import sqlite3
import urllib.parse
from dataclasses import dataclass
from typing import Any

from millstream.connectors.jdbc.errors import JdbcConnectorError, driver_message

__all__ = [
    "DATABASES",
    "SUPPORTED_URLS",
    "JdbcUrl",
    "check_driver_name",
    "connect",
    "parse_jdbc_url",
]

_LOG = logging.getLogger(__name__)

SUPPORTED_URLS = "jdbc:postgresql://host:port/database, jdbc:mysql://host:port/database, jdbc:sqlite:path"

# database -> (the Python module, the extra that installs it, the driver names that mean it)
DATABASES: dict[str, tuple[str, str | None, frozenset[str]]] = {
    "postgresql": ("psycopg", "postgres", frozenset({"org.postgresql.Driver", "psycopg", "psycopg3"})),
    "mysql": (
        "pymysql",
        "mysql",
        frozenset(
            {"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver", "org.mariadb.jdbc.Driver", "pymysql"}
        ),
    ),
    "sqlite": ("sqlite3", None, frozenset({"org.sqlite.JDBC", "sqlite3"})),
}

_PG_PARAMETERS = {
    "user": "user",
    "password": "password",
    "sslmode": "sslmode",
    "sslcert": "sslcert",
    "sslkey": "sslkey",
    "sslrootcert": "sslrootcert",
    "connectTimeout": "connect_timeout",
    "ApplicationName": "application_name",
    "options": "options",
}
_SQLITE_PRAGMAS = frozenset({"journal_mode", "busy_timeout", "foreign_keys", "synchronous"})


@dataclass(frozen=True, slots=True)
class JdbcUrl:
    """A parsed JDBC URL.

    Attributes:
        url: the URL as written (errors name it; it holds no password unless the user put one).
        database: ``postgresql``, ``mysql`` or ``sqlite``.
        arguments: the driver's ``connect`` keyword arguments the URL gives.
    """

    url: str
    database: str
    arguments: tuple[tuple[str, Any], ...]

    def shown(self) -> str:
        """The URL without a ``password`` parameter (for errors and logs)."""
        base, _, query = self.url.partition("?")
        if not query:
            return self.url
        kept = [p for p in query.split("&") if p.split("=", 1)[0].lower() != "password"]
        return base + ("?" + "&".join(kept) if kept else "")


def parse_jdbc_url(url: str) -> JdbcUrl:
    """The database and driver arguments of a JDBC URL.

    Raises:
        JdbcConnectorError: the URL is not one of the supported forms (one line naming it).
    """
    text = (url or "").strip()
    lowered = text.lower()
    if lowered.startswith("jdbc:postgresql:"):
        return JdbcUrl(text, "postgresql", _postgres_arguments(text, text[len("jdbc:postgresql:") :]))
    if lowered.startswith("jdbc:mysql:"):
        return JdbcUrl(text, "mysql", _mysql_arguments(text, text[len("jdbc:mysql:") :]))
    if lowered.startswith("jdbc:sqlite:"):
        return JdbcUrl(text, "sqlite", _sqlite_arguments(text[len("jdbc:sqlite:") :]))
    raise JdbcConnectorError(
        f"Unsupported JDBC URL '{url}': millstream reaches databases through Python drivers for "
        f"the URLs {SUPPORTED_URLS}"
    )


def _host_port(url: str, part: str, default_port: int) -> tuple[str, int]:
    if part.startswith("["):  # an IPv6 address: [::1]:5432
        host, _, rest = part[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = part.partition(":")
    if port and not port.isdigit():
        raise JdbcConnectorError(f"Invalid JDBC URL '{url}': the port '{port}' is not a number")
    return host or "localhost", int(port) if port else default_port


def _authority(url: str, rest: str) -> tuple[str, str, dict[str, str]]:
    """(``host:port,...``, database, query parameters) of ``//authority/database?query``."""
    rest, _, query = rest.partition("?")
    params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    if not rest.startswith("//"):  # jdbc:postgresql:database (localhost)
        return "", rest.lstrip("/"), params
    authority, _, database = rest[2:].partition("/")
    return authority, urllib.parse.unquote(database), params


def _postgres_arguments(url: str, rest: str) -> tuple[tuple[str, Any], ...]:
    authority, database, params = _authority(url, rest)
    hosts = [_host_port(url, part, 5432) for part in authority.split(",")] if authority else []
    arguments: dict[str, Any] = {}
    if hosts:
        arguments["host"] = ",".join(h for h, _ in hosts)
        arguments["port"] = ",".join(str(p) for _, p in hosts)
    if database:
        arguments["dbname"] = database
    for key, value in params.items():
        if key in _PG_PARAMETERS:
            arguments[_PG_PARAMETERS[key]] = value
        elif key == "ssl" and value.lower() == "true":
            arguments.setdefault("sslmode", "require")
        elif key == "currentSchema":
            arguments["options"] = f"-c search_path={value}"
        else:
            _LOG.info("JDBC URL %s: the PostgreSQL JDBC driver's parameter %s is ignored", url, key)
    return tuple(arguments.items())


def _mysql_arguments(url: str, rest: str) -> tuple[tuple[str, Any], ...]:
    authority, database, params = _authority(url, rest)
    if "," in authority:
        raise JdbcConnectorError(f"Invalid JDBC URL '{url}': PyMySQL connects to one host")
    host, port = _host_port(url, authority, 3306)
    arguments: dict[str, Any] = {"host": host, "port": port}
    if database:
        arguments["database"] = database
    for key, value in params.items():
        if key in ("user", "password"):
            arguments[key] = value
        elif key == "characterEncoding":
            arguments["charset"] = (
                "utf8mb4" if value.lower().replace("-", "") in ("utf8", "utf8mb4") else value
            )
        elif key == "connectTimeout" and value.isdigit():
            arguments["connect_timeout"] = max(1, int(value) // 1000)
        else:
            _LOG.info("JDBC URL %s: Connector/J's parameter %s is ignored", url, key)
    arguments.setdefault("charset", "utf8mb4")
    return tuple(arguments.items())


def _sqlite_arguments(rest: str) -> tuple[tuple[str, Any], ...]:
    if rest in ("", ":memory:"):
        return (("database", ":memory:"),)
    if rest.startswith("file:"):
        return (("database", rest), ("uri", True))
    path, _, query = rest.partition("?")
    pragmas = tuple((k, v) for k, v in urllib.parse.parse_qsl(query) if k in _SQLITE_PRAGMAS)
    return (("database", path), ("pragmas", pragmas))


def check_driver_name(url: JdbcUrl, driver: str | None) -> None:
    """Check that the ``driver`` option (a JDBC driver's class name) fits the URL's database.

    Raises:
        JdbcConnectorError: a driver of another database, or one millstream does not know.
    """
    if not driver:
        return
    names = DATABASES[url.database][2]
    if driver not in names:
        raise JdbcConnectorError(
            f"JDBC driver '{driver}' cannot connect to '{url.shown()}': the {url.database} URLs are "
            f"served by the Python driver {DATABASES[url.database][0]} "
            f"(driver names: {', '.join(sorted(names))})"
        )


def _driver_module(url: JdbcUrl) -> Any:
    """The Python driver module of ``url``'s database, imported now."""
    module, extra, _ = DATABASES[url.database]
    if module == "sqlite3":
        return sqlite3
    try:
        if module == "psycopg":
            # psycopg is optional (the [postgres] extra)
            import psycopg

            return psycopg
        # PyMySQL is optional (the [mysql] extra)
        import pymysql

        return pymysql
    except ImportError:
        raise JdbcConnectorError(
            f"The JDBC URL '{url.shown()}' needs the Python driver {module}, which is not installed: "
            f"pip install 'millstream[{extra}]'"
        ) from None


def connect(url: JdbcUrl, username: str | None, password: str | None, timeout_s: int) -> Any:
    """A new DB-API connection to ``url``'s database, not in autocommit mode (a writer commits
    each batch; a reader reads in one transaction). ``username`` / ``password`` (the options)
    win over the URL's parameters; ``timeout_s`` bounds connecting (and SQLite's wait for a
    lock another writer holds).

    Raises:
        JdbcConnectorError: the driver is not installed, or the database refused (one line:
            the URL, the user and the driver's first line).
    """
    module = _driver_module(url)
    arguments = dict(url.arguments)
    if username is not None:
        arguments["user"] = username
    if password is not None:
        arguments["password"] = password
    try:
        if url.database == "sqlite":
            return _connect_sqlite(arguments, timeout_s)
        arguments.setdefault("connect_timeout", timeout_s)
        return module.connect(autocommit=False, **arguments)
    except JdbcConnectorError:
        raise
    except Exception as err:
        user = f" as user '{arguments['user']}'" if arguments.get("user") else ""
        raise JdbcConnectorError(f"Cannot connect to '{url.shown()}'{user}: {driver_message(err)}") from err


def _connect_sqlite(arguments: dict[str, Any], timeout_s: int) -> Any:
    # the connection is used by the task thread and, between records, by the writer's flush
    # thread (under the writer's lock): SQLite's own check of the thread is off
    connection = sqlite3.connect(
        arguments["database"], timeout=timeout_s, uri=bool(arguments.get("uri")), check_same_thread=False
    )
    for key, value in arguments.get("pragmas", ()):
        if not str(value).replace("_", "").isalnum():
            raise JdbcConnectorError(f"Invalid SQLite pragma {key}={value!r} in the JDBC URL")
        connection.execute(f"PRAGMA {key} = {value}")
    return connection
