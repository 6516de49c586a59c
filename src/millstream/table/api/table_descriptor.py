"""``TableDescriptor`` and ``FormatDescriptor`` (``pyflink.table``): a connector, its options,
its format and schema, as ``CREATE TABLE ... WITH (...)`` says them."""

from __future__ import annotations

from millstream.table.api.schema import Schema
from millstream.table.common.printing import java_hash_map_order

__all__ = ["FormatDescriptor", "TableDescriptor"]


class FormatDescriptor:
    """A format and its options (``FormatDescriptor.for_format('csv').option(...).build()``)."""

    def __init__(self, format_name: str, options: dict[str, str]) -> None:
        self.format = format_name
        self.options = options

    @staticmethod
    def for_format(format: str) -> FormatDescriptor.Builder:
        """A builder for the format ``format``."""
        return FormatDescriptor.Builder(format)

    class Builder:
        """Builds a FormatDescriptor."""

        def __init__(self, format_name: str) -> None:
            self._format = format_name
            self._options: dict[str, str] = {}

        def option(self, key: str, value: object) -> FormatDescriptor.Builder:
            """A format option."""
            self._options[key] = str(value)
            return self

        def build(self) -> FormatDescriptor:
            """The descriptor."""
            return FormatDescriptor(self._format, dict(self._options))

    def __str__(self) -> str:
        options = ", ".join(f"{k}={self.options[k]}" for k in java_hash_map_order(list(self.options)))
        return f"{self.format}[{{{options}}}]"


class TableDescriptor:
    """A table backed by a connector (``TableDescriptor.for_connector('print')...build()``)."""

    def __init__(
        self,
        connector: str,
        schema: Schema | None,
        options: dict[str, str],
        partition_keys: list[str] | None = None,
        comment: str | None = None,
    ) -> None:
        self.connector = connector
        self.schema = schema
        self.options = options
        self.partition_keys = list(partition_keys or [])
        self.comment = comment

    @staticmethod
    def for_connector(connector: str) -> TableDescriptor.Builder:
        """A builder for ``connector`` (``print``, ``blackhole`` ...)."""
        return TableDescriptor.Builder(connector)

    def get_options(self) -> dict[str, str]:
        """The connector's options (with ``connector``)."""
        return {"connector": self.connector, **self.options}

    def get_schema(self) -> Schema | None:
        """The schema, if given."""
        return self.schema

    def get_partition_keys(self) -> list[str]:
        """The partition keys (none unless ``partitioned_by``)."""
        return list(self.partition_keys)

    def get_comment(self) -> str | None:
        """The comment, if given."""
        return self.comment

    def __str__(self) -> str:
        """As Flink prints a descriptor (PyFlink 2.3.0: the schema, ``COMMENT``, ``PARTITIONED
        BY``, then the options, ``connector`` among them, in a Java HashMap's order)."""
        lines = [str(self.schema) if self.schema is not None else ""]
        if self.comment is not None:
            lines.append(f"COMMENT '{self.comment}'")
        if self.partition_keys:
            lines.append("PARTITIONED BY (" + ", ".join(f"`{k}`" for k in self.partition_keys) + ")")
        options = {"connector": self.connector, **self.options}
        quoted = [f"  '{_quoted(k)}' = '{_quoted(options[k])}'" for k in java_hash_map_order(list(options))]
        return "\n".join([*lines, "WITH (", ",\n".join(quoted), ")"])

    class Builder:
        """Builds a TableDescriptor."""

        def __init__(self, connector: str) -> None:
            self._connector = connector
            self._schema: Schema | None = None
            self._options: dict[str, str] = {}
            self._partition_keys: list[str] = []
            self._comment: str | None = None

        def comment(self, comment: str) -> TableDescriptor.Builder:
            """A comment on the table."""
            self._comment = comment
            return self

        def partitioned_by(self, *partition_keys: str) -> TableDescriptor.Builder:
            """The columns whose values name the table's sub-directories (``dt=2024-01-01``)."""
            self._partition_keys = list(partition_keys)
            return self

        def schema(self, schema: Schema) -> TableDescriptor.Builder:
            """The table's schema."""
            self._schema = schema
            return self

        def option(self, key: str, value: object) -> TableDescriptor.Builder:
            """A connector option."""
            self._options[key] = str(value)
            return self

        def format(
            self, format: str | FormatDescriptor, format_prefix: str | None = None
        ) -> TableDescriptor.Builder:
            """The format (a name, or a FormatDescriptor with its options)."""
            if isinstance(format, FormatDescriptor):
                self._options["format"] = format.format
                for key, value in format.options.items():
                    self._options[f"{format.format}.{key}"] = value
            else:
                self._options["format"] = format
            return self

        def build(self) -> TableDescriptor:
            """The descriptor."""
            return TableDescriptor(
                self._connector, self._schema, dict(self._options), self._partition_keys, self._comment
            )


def _quoted(text: str) -> str:
    return text.replace("'", "''")
