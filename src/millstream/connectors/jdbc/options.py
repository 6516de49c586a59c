"""PyFlink's ``JdbcConnectionOptions`` and ``JdbcExecutionOptions`` with their builders
(``pyflink.datastream.connectors.jdbc``), as plain values: where the DataStream ``JdbcSink``
connects and how it batches (Flink's defaults: 5000 records a batch, no interval, 3 retries)."""

from __future__ import annotations

from millstream.connectors.jdbc.connection import JdbcOptions

__all__ = ["JdbcConnectionOptions", "JdbcExecutionOptions"]

DEFAULT_BATCH_SIZE = 5000
DEFAULT_BATCH_INTERVAL_MS = 0
DEFAULT_MAX_RETRIES = 3


class JdbcConnectionOptions:
    """JDBC connection options: the URL, the driver's name, the user and password."""

    def __init__(self, options: JdbcOptions) -> None:
        self._options = options

    @property
    def options(self) -> JdbcOptions:
        """The connection's options as the connector's layer reads them."""
        return self._options

    def get_db_url(self) -> str:
        """The JDBC URL."""
        return self._options.url

    def get_driver_name(self) -> str | None:
        """The JDBC driver's class name (None: from the URL)."""
        return self._options.driver

    def get_user_name(self) -> str | None:
        """The user name."""
        return self._options.username

    def get_password(self) -> str | None:
        """The password."""
        return self._options.password

    class JdbcConnectionOptionsBuilder:
        """Builder for JdbcConnectionOptions."""

        def __init__(self) -> None:
            self._url: str | None = None
            self._driver: str | None = None
            self._user: str | None = None
            self._password: str | None = None

        def with_url(self, url: str) -> JdbcConnectionOptions.JdbcConnectionOptionsBuilder:
            """The JDBC URL (``jdbc:postgresql://...``, ``jdbc:mysql://...``, ``jdbc:sqlite:...``)."""
            self._url = url
            return self

        def with_driver_name(self, driver_name: str) -> JdbcConnectionOptions.JdbcConnectionOptionsBuilder:
            """The JDBC driver's class name (``org.postgresql.Driver``): it must fit the URL."""
            self._driver = driver_name
            return self

        def with_user_name(self, user_name: str) -> JdbcConnectionOptions.JdbcConnectionOptionsBuilder:
            """The user to connect as."""
            self._user = user_name
            return self

        def with_password(self, password: str) -> JdbcConnectionOptions.JdbcConnectionOptionsBuilder:
            """The user's password."""
            self._password = password
            return self

        def build(self) -> JdbcConnectionOptions:
            """The options.

            Raises:
                ValueError: no URL (Flink's "jdbc url is empty").
            """
            if not self._url:
                raise ValueError("jdbc url is empty")
            return JdbcConnectionOptions(JdbcOptions(self._url, self._driver, self._user, self._password))


class JdbcExecutionOptions:
    """JDBC sink batch options: records per batch, the interval flushing a batch, retries."""

    def __init__(self, batch_interval_ms: int, batch_size: int, max_retries: int) -> None:
        if max_retries < 0:
            raise ValueError(f"JdbcExecutionOptions: max retries must not be negative, got {max_retries}")
        self._interval_ms, self._size, self._max_retries = (
            int(batch_interval_ms),
            int(batch_size),
            int(max_retries),
        )

    def get_batch_interval_ms(self) -> int:
        """Milliseconds after which a batch is written however small (0: never)."""
        return self._interval_ms

    def get_batch_size(self) -> int:
        """Records after which a batch is written (0 or less: by size never)."""
        return self._size

    def get_max_retries(self) -> int:
        """How often a failed batch is written again (the connection re-opened if it dropped)."""
        return self._max_retries

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JdbcExecutionOptions) and (
            self._interval_ms,
            self._size,
            self._max_retries,
        ) == (other._interval_ms, other._size, other._max_retries)

    def __hash__(self) -> int:
        return hash((self._interval_ms, self._size, self._max_retries))

    def __repr__(self) -> str:
        return (
            f"JdbcExecutionOptions(batch_interval_ms={self._interval_ms}, batch_size={self._size}, "
            f"max_retries={self._max_retries})"
        )

    @staticmethod
    def defaults() -> JdbcExecutionOptions:
        """5000 records a batch, no interval, 3 retries."""
        return JdbcExecutionOptions.builder().build()

    @staticmethod
    def builder() -> JdbcExecutionOptions.Builder:
        """A builder starting from the defaults."""
        return JdbcExecutionOptions.Builder()

    class Builder:
        """Builder for JdbcExecutionOptions."""

        def __init__(self) -> None:
            self._interval_ms = DEFAULT_BATCH_INTERVAL_MS
            self._size = DEFAULT_BATCH_SIZE
            self._max_retries = DEFAULT_MAX_RETRIES

        def with_batch_size(self, size: int) -> JdbcExecutionOptions.Builder:
            """Records per batch."""
            self._size = size
            return self

        def with_batch_interval_ms(self, interval_ms: int) -> JdbcExecutionOptions.Builder:
            """Milliseconds after which a batch is written."""
            self._interval_ms = interval_ms
            return self

        def with_max_retries(self, max_retries: int) -> JdbcExecutionOptions.Builder:
            """Retries of a failed batch."""
            self._max_retries = max_retries
            return self

        def build(self) -> JdbcExecutionOptions:
            """The options."""
            return JdbcExecutionOptions(self._interval_ms, self._size, self._max_retries)
