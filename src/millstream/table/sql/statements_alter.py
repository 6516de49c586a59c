"""``ALTER TABLE`` as Flink 2.3 changes a catalog table (``SqlAlterTable*`` and its
``AlterSchemaConverter``): the table as it is after the change, which the TableEnvironment puts
in the catalog in its place.

* ``RENAME TO new_name``, ``SET ('k' = 'v', ...)``, ``RESET ('k', ...)``;
* ``ADD`` / ``MODIFY`` a column (``name type [COMMENT '...'] [FIRST | AFTER col]``, computed or
  metadata), a primary key or a watermark, or a parenthesized list of them;
* ``DROP`` a column or a list of them, ``PRIMARY KEY``, ``CONSTRAINT name``, ``WATERMARK``;
* ``RENAME column TO new_column``.

Only a permanent table can be altered, as Flink's; the errors are Flink's (``Column `id` already
exists in the table.``, ``The column `id` is referenced by computed column `c`.`` ...), after its
``Failed to execute ALTER TABLE statement.`` as PyFlink 2.3.0 prints them. Partitions (``ADD
PARTITION``) and distributions are refused in one line.
"""

from __future__ import annotations

from sqlglot import exp

from millstream.table.catalog.catalog import CatalogTable, CatalogView
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import flink_text
from millstream.table.sql.operations import AlterTableOperation, Operation, RenameOperation
from millstream.table.sql.parser import SqlError, _parse
from millstream.table.sql.statement_tokens import StatementTokens
from millstream.table.sql.statements_schema import (
    Column,
    TableShape,
    column_of,
    from_catalog_table,
    primary_key_of,
    referenced_columns,
    renamed,
)

__all__ = ["alter_table"]

_FAILED = "Failed to execute ALTER TABLE statement."


def alter_table(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``ALTER TABLE [IF EXISTS] name ...`` (ALTER TABLE read)."""
    exists = tokens.accept("IF", "EXISTS")
    identifier = ctx.catalog.qualify(tokens.compound_name())
    if tokens.accept("RENAME", "TO"):
        target = ctx.catalog.qualify(tokens.compound_name())
        tokens.expect_end()
        if (target.catalog_name, target.database_name) != (identifier.catalog_name, identifier.database_name):
            raise SqlError(
                f"The new name of table {identifier} must stay in its catalog and database: {target}"
            )
        return RenameOperation(identifier, target.object_name, view=False, if_exists=exists)
    found = None if ctx.catalog.is_temporary(identifier) else ctx.catalog.get(identifier)
    if isinstance(found, CatalogView):
        raise SqlError("ALTER TABLE for a view is not allowed")
    if found is None:
        _read_rest(tokens)
        if exists:
            return AlterTableOperation(identifier, None)
        raise SqlError(f"Table {identifier} doesn't exist or is a temporary table.")
    assert isinstance(found, CatalogTable)
    shape = from_catalog_table(found)
    _change(tokens, identifier, shape)
    return AlterTableOperation(identifier, shape.declaration())


def _read_rest(tokens: StatementTokens) -> None:
    while not tokens.at_end():
        tokens.skip()


def _change(tokens: StatementTokens, identifier: ObjectIdentifier, shape: TableShape) -> None:
    """Apply the change the rest of the statement says to ``shape``."""
    verb = tokens.word()
    tokens.skip()
    if verb == "SET":
        shape.options.update(tokens.properties())
    elif verb == "RESET":
        _reset(tokens, shape)
    elif verb == "RENAME":
        old = tokens.name()
        tokens.expect("TO")
        _rename_column(shape, old, tokens.name())
    elif verb in ("ADD", "MODIFY"):
        _refuse_partitions(tokens, identifier, shape, verb)
        for text in _items(tokens):
            _add_or_modify(shape, text, verb == "ADD")
    elif verb == "DROP":
        _refuse_partitions(tokens, identifier, shape, verb)
        _drop(tokens, shape)
    else:
        tokens.index -= 1
        raise tokens.error()
    tokens.expect_end()


def _reset(tokens: StatementTokens, shape: TableShape) -> None:
    tokens.expect("(")
    keys = [] if tokens.at(")") else [tokens.string()]
    while tokens.accept(","):
        keys.append(tokens.string())
    tokens.expect(")")
    if not keys:
        raise SqlError("ALTER TABLE RESET does not support empty key")
    if "connector" in keys:
        raise SqlError("ALTER TABLE RESET does not support changing 'connector'")
    for key in keys:
        shape.options.pop(key, None)


def _refuse_partitions(
    tokens: StatementTokens, identifier: ObjectIdentifier, shape: TableShape, verb: str
) -> None:
    """``ADD | DROP [IF [NOT] EXISTS] PARTITION``, ``... DISTRIBUTION``: refused."""
    skipped = (3 if tokens.word(1) == "NOT" else 2) if tokens.at("IF") else 0  # IF [NOT] EXISTS
    ahead = tokens.word(skipped)
    if ahead == "PARTITION":
        if not shape.partition_keys:
            path = f"{identifier.database_name}.{identifier.object_name}"
            raise SqlError(f"Table {path} in catalog {identifier.catalog_name} is not partitioned.")
        raise SqlError(
            f"millstream: ALTER TABLE ... {verb} PARTITION is not supported (no catalog here keeps "
            "partitions)"
        )
    if ahead == "DISTRIBUTION":
        raise SqlError(f"millstream: ALTER TABLE ... {verb} DISTRIBUTION is not supported")


def _items(tokens: StatementTokens) -> list[str]:
    """The text of each schema component ADD or MODIFY names: one, or a parenthesized list."""
    if not tokens.accept("("):
        text = tokens.rest()
        _read_rest(tokens)
        return [text]
    items: list[str] = []
    depth, start = 0, tokens.position()
    while True:
        if tokens.at_end():
            raise tokens.error()
        word = tokens.word()
        if depth == 0 and word in (",", ")"):
            items.append(tokens.sql[start : tokens.position()].strip())
            tokens.skip()
            if word == ")":
                return items
            start = tokens.position()
            continue
        depth += {"(": 1, ")": -1}.get(word, 0)
        tokens.skip()


def _add_or_modify(shape: TableShape, text: str, add: bool) -> None:
    """One ADD or MODIFY component: a watermark, a primary key or a column (at its position)."""
    inner = StatementTokens(text)
    if inner.at("WATERMARK"):
        _watermark(shape, text, add)
    elif inner.at("PRIMARY") or inner.at("CONSTRAINT"):
        _primary_key(shape, text, add)
    else:
        column, position = _column(text)
        _place(shape, column, position, add)


def _watermark(shape: TableShape, text: str, add: bool) -> None:
    tree = _parse(f"CREATE TABLE __t ({text})")
    [spec] = tree.this.expressions
    assert isinstance(spec, exp.WatermarkColumnConstraint)
    if add and shape.watermark is not None:
        column, expression = shape.watermark
        raise SqlError(
            f"{_FAILED} The current table has already defined the watermark strategy `{column}` AS "
            f"{flink_text(expression)}. You might want to drop it before adding a new one."
        )
    if not add and shape.watermark is None:
        raise SqlError(
            f"{_FAILED} The current table does not define any watermark. You might want to add a new one."
        )
    shape.watermark = (spec.this.name, spec.expression.this)


def _primary_key(shape: TableShape, text: str, add: bool) -> None:
    tree = _parse(f"CREATE TABLE __t ({text})")
    [item] = tree.this.expressions
    key = primary_key_of(item)
    assert key is not None
    if add and shape.primary_key is not None:
        columns = ", ".join(f"`{c}`" for c in shape.primary_key[1])
        raise SqlError(
            f"{_FAILED} The current table has already defined the primary key constraint [{columns}]. "
            "You might "
            "want to drop it before adding a new one."
        )
    if not add and shape.primary_key is None:
        raise SqlError(
            f"{_FAILED} The current table does not define any primary key constraint. You might want to "
            "add a new one."
        )
    for name in key[1]:
        column = shape.column(name)
        if column is None:
            raise SqlError(
                f"{_FAILED} Invalid primary key '{_key_name(key)}'. Column '{name}' does not exist."
            )
        if column.kind != "physical":
            raise SqlError(
                f"{_FAILED} Invalid primary key '{_key_name(key)}'. Column '{name}' is not a physical column."
            )
    shape.primary_key = key


def _key_name(key: tuple[str | None, list[str]]) -> str:
    return key[0] or "PK_" + "_".join(key[1])


def _column(text: str) -> tuple[Column, tuple[str, str | None] | None]:
    """A column definition and its position (``("FIRST", None)``, ``("AFTER", column)``)."""
    inner = StatementTokens(text)
    tokens = inner.tokens
    position: tuple[str, str | None] | None = None
    end = len(tokens)
    if end >= 2 and tokens[-2].text.upper() == "AFTER":
        position, end = ("AFTER", tokens[-1].text), end - 2
    elif tokens and tokens[-1].text.upper() == "FIRST":
        position, end = ("FIRST", None), end - 1
    definition = text[: tokens[end].start] if end < len(tokens) else text
    tree = _parse(f"CREATE TABLE __t ({definition})")
    [item] = tree.this.expressions
    if not isinstance(item, exp.ColumnDef):
        raise SqlError(f"SQL parse failed: not a column definition: {definition}")
    return column_of(item), position


def _place(shape: TableShape, column: Column, position: tuple[str, str | None] | None, add: bool) -> None:
    """Add ``column`` or put it in the place of the column of its name, at ``position``."""
    index = next((i for i, c in enumerate(shape.columns) if c.name == column.name), None)
    if add and index is not None:
        raise SqlError(f"{_FAILED} Column `{column.name}` already exists in the table.")
    if not add and index is None:
        raise SqlError(f"{_FAILED} Column `{column.name}` does not exist in the table.")
    if index is not None and column.comment is None:  # MODIFY keeps the comment unless it gives one
        column = renamed(column, comment=shape.columns[index].comment)
    if position is None:
        if index is None:
            shape.columns.append(column)
        else:
            shape.columns[index] = column
        return
    if index is not None:
        del shape.columns[index]
    if position[0] == "FIRST":
        shape.columns.insert(0, column)
        return
    after = next((i for i, c in enumerate(shape.columns) if c.name == position[1]), None)
    if after is None:
        raise SqlError(f"{_FAILED} Referenced column `{position[1]}` by 'AFTER' does not exist in the table.")
    shape.columns.insert(after + 1, column)


def _drop(tokens: StatementTokens, shape: TableShape) -> None:
    """``DROP column | (columns) | PRIMARY KEY | CONSTRAINT name | WATERMARK``."""
    if tokens.accept("PRIMARY", "KEY"):
        if shape.primary_key is None:
            raise SqlError(f"{_FAILED} The current table does not define any primary key.")
        shape.primary_key = None
    elif tokens.accept("CONSTRAINT"):
        name = tokens.name()
        key = shape.primary_key
        if key is None or _key_name(key) != name:
            available = f"['{_key_name(key)}']" if key is not None else "[]"
            raise SqlError(
                f"{_FAILED} The current table does not define a primary key constraint named '{name}'. "
                "Available "
                f"constraint name: {available}."
            )
        shape.primary_key = None
    elif tokens.accept("WATERMARK"):
        if shape.watermark is None:
            raise SqlError(f"{_FAILED} The current table does not define any watermark strategy.")
        shape.watermark = None
    else:
        names = tokens.names() if not tokens.accept("(") else _closed_names(tokens)
        for name in names:
            _drop_column(shape, name)


def _closed_names(tokens: StatementTokens) -> list[str]:
    names = tokens.names()
    tokens.expect(")")
    return names


def _drop_column(shape: TableShape, name: str) -> None:
    if shape.column(name) is None:
        raise SqlError(f"{_FAILED} The column `{name}` does not exist in the base table.")
    _check_references(shape, name)
    if shape.primary_key is not None and name in shape.primary_key[1]:
        raise SqlError(f"{_FAILED} The column `{name}` is used as the primary key.")
    if name in shape.partition_keys:
        raise SqlError(f"{_FAILED} The column `{name}` is used as the partition keys.")
    shape.columns = [c for c in shape.columns if c.name != name]


def _check_references(shape: TableShape, name: str) -> None:
    """Flink's ``ReferencesManager``: a column a computed column or the watermark reads stays."""
    for column in shape.columns:
        if (
            column.kind == "computed"
            and column.name != name
            and name in referenced_columns(str(column.expression))
        ):
            raise SqlError(f"{_FAILED} The column `{name}` is referenced by computed column `{column.name}`.")
    if shape.watermark is not None and name in referenced_columns(shape.watermark[1]) | {shape.watermark[0]}:
        raise SqlError(f"{_FAILED} The column `{name}` is referenced by watermark expression.")


def _rename_column(shape: TableShape, old: str, new: str) -> None:
    column = shape.column(old)
    if column is None:
        raise SqlError(f"{_FAILED} The column `{old}` does not exist in the base table.")
    if shape.column(new) is not None:
        raise SqlError(f"{_FAILED} The column `{new}` already existed in table schema.")
    _check_references(shape, old)
    if old in shape.partition_keys:
        raise SqlError(f"{_FAILED} The column `{old}` is used as the partition keys.")
    shape.columns = [renamed(c, name=new) if c.name == old else c for c in shape.columns]
    if shape.primary_key is not None:
        name, columns = shape.primary_key
        shape.primary_key = (name, [new if c == old else c for c in columns])
