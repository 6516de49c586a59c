"""Names of catalog objects (Flink's ``ObjectIdentifier``, ``ObjectPath`` and
``UnresolvedIdentifier``): a table, view or function is named by its catalog, database and
object name; a name written with fewer parts (``t``, ``db.t``) is qualified by the current
catalog and database (``CatalogManager.qualify``).

Names are case-sensitive, as Flink's: ``T`` and ``t`` are two tables. A part written in
backquotes may hold any character (``\\`my.table\\```); two backquotes in it are one.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ObjectIdentifier", "ObjectPath", "parse_identifier", "quote"]


def quote(name: str) -> str:
    """``name`` in backquotes, as Flink serializes an identifier (a backquote doubled)."""
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True, slots=True)
class ObjectIdentifier:
    """A catalog object's full name (``pyflink.table.catalog.ObjectIdentifier``)."""

    catalog_name: str
    database_name: str
    object_name: str

    def get_catalog_name(self) -> str:
        """The catalog's name."""
        return self.catalog_name

    def get_database_name(self) -> str:
        """The database's name."""
        return self.database_name

    def get_object_name(self) -> str:
        """The object's name."""
        return self.object_name

    def to_list(self) -> list[str]:
        """The catalog's, the database's and the object's names."""
        return [self.catalog_name, self.database_name, self.object_name]

    def to_object_path(self) -> ObjectPath:
        """The database and object name (the object's name within its catalog)."""
        return ObjectPath(self.database_name, self.object_name)

    def as_serializable_string(self) -> str:
        """```catalog`.`database`.`object```, as Flink's SQL prints it."""
        return ".".join(quote(p) for p in (self.catalog_name, self.database_name, self.object_name))

    def as_summary_string(self) -> str:
        """``catalog.database.object``, as Flink's messages and plans print it."""
        return f"{self.catalog_name}.{self.database_name}.{self.object_name}"

    def __str__(self) -> str:
        return self.as_serializable_string()


@dataclass(frozen=True, slots=True)
class ObjectPath:
    """A catalog object's name within its catalog (``pyflink.table.catalog.ObjectPath``)."""

    database_name: str
    object_name: str

    def get_database_name(self) -> str:
        """The database's name."""
        return self.database_name

    def get_object_name(self) -> str:
        """The object's name."""
        return self.object_name

    def get_full_name(self) -> str:
        """``database.object``, as Flink's catalog exceptions print it."""
        return f"{self.database_name}.{self.object_name}"

    def __str__(self) -> str:
        return self.get_full_name()


def parse_identifier(text: str) -> list[str]:
    """The parts of a name as a Table API method takes it (``t``, ``db.t``, ```c`.`d`.`t```):
    split at the dots outside backquotes, each backquoted part unquoted (Flink's
    ``parseIdentifier``).

    Raises:
        ValueError: an empty part, an unclosed backquote, or more than three parts.
    """
    parts: list[str] = []
    i, n = 0, len(text)
    while True:
        if i < n and text[i] == "`":
            part, i = _quoted_part(text, i)
        else:
            end = text.find(".", i)
            end = n if end < 0 else end
            part, i = text[i:end].strip(), end
            if not part or "`" in part:
                raise ValueError(f"Invalid path '{text}': an identifier part is empty or malformed")
        parts.append(part)
        if i >= n:
            break
        if text[i] != ".":
            raise ValueError(f"Invalid path '{text}': expected '.' at position {i + 1}")
        i += 1
    if len(parts) > 3:
        raise ValueError(
            f"Invalid path '{text}': an identifier has at most 3 parts (catalog.database.object)"
        )
    return parts


def _quoted_part(text: str, start: int) -> tuple[str, int]:
    """The backquoted part beginning at ``start``, and the position after its closing quote."""
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        if text[i] == "`":
            if i + 1 < len(text) and text[i + 1] == "`":
                chars.append("`")
                i += 2
                continue
            return "".join(chars), i + 1
        chars.append(text[i])
        i += 1
    raise ValueError(f"Invalid path '{text}': a backquote is not closed")
