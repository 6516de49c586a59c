"""``CREATE TABLE t (...) WITH (...) LIKE source [(options)]`` as Flink merges the two tables
(``SqlTableLike`` and ``MergeTableLikeUtil``): the source's physical columns first, then the new
table's; for each feature (``CONSTRAINTS``, ``GENERATED``, ``METADATA``, ``OPTIONS``,
``PARTITIONS``, ``WATERMARKS``, ``DISTRIBUTION``) the source's is INCLUDED (a clash with the new
table's fails), EXCLUDED, or OVERWRITTEN by the new table's. ``INCLUDING | EXCLUDING ALL`` sets
every feature, later options set one; without options: ``INCLUDING ALL OVERWRITING OPTIONS``.

The errors are Flink's, as PyFlink 2.3.0 prints them (``A column named 'id' already exists in
the base table.``, ``There already exists a watermark spec for column 'ts' in the base table.
You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.`` ...).
"""

from __future__ import annotations

from millstream.table.sql.parser import SqlError
from millstream.table.sql.statement_tokens import StatementTokens
from millstream.table.sql.statements_schema import Column, TableShape

__all__ = ["FEATURES", "like_options", "merge_like"]

FEATURES = (
    "ALL",
    "CONSTRAINTS",
    "DISTRIBUTION",
    "GENERATED",
    "METADATA",
    "OPTIONS",
    "PARTITIONS",
    "WATERMARKS",
)
_STRATEGIES = ("INCLUDING", "EXCLUDING", "OVERWRITING")
_DEFAULTS = {
    "CONSTRAINTS": "INCLUDING",
    "DISTRIBUTION": "INCLUDING",
    "GENERATED": "INCLUDING",
    "METADATA": "INCLUDING",
    "OPTIONS": "OVERWRITING",
    "PARTITIONS": "INCLUDING",
    "WATERMARKS": "INCLUDING",
}


def like_options(tokens: StatementTokens) -> dict[str, str]:
    """The merging strategy of each feature, from ``(INCLUDING ALL EXCLUDING OPTIONS ...)``
    (LIKE and the source's name read; no parenthesis: the defaults).

    Raises:
        SqlError: a strategy Flink does not allow for a feature, or a feature named twice.
    """
    strategies = dict(_DEFAULTS)
    if not tokens.accept("("):
        return strategies
    seen: set[str] = set()
    while not tokens.accept(")"):
        strategy, feature = tokens.word(), tokens.word(1)
        if strategy not in _STRATEGIES or feature not in FEATURES:
            raise tokens.error() if strategy not in _STRATEGIES else _error_after(tokens)
        tokens.skip()
        tokens.skip()
        if strategy == "OVERWRITING" and feature in ("ALL", "CONSTRAINTS", "PARTITIONS"):
            raise SqlError(f"Illegal merging strategy '{strategy}' for '{feature}' option.")
        if feature in seen:
            raise SqlError("Each like option feature can be declared only once.")
        seen.add(feature)
        if feature == "ALL":
            strategies = dict.fromkeys(_DEFAULTS, strategy)
        else:
            strategies[feature] = strategy
    return strategies


def _error_after(tokens: StatementTokens) -> SqlError:
    tokens.skip()
    return tokens.error()


def merge_like(source: TableShape, derived: TableShape, strategies: dict[str, str]) -> TableShape:
    """The table ``derived`` declares, LIKE ``source`` with ``strategies``.

    Raises:
        SqlError: a clash between the two the strategies do not resolve (Flink's messages).
    """
    merged = TableShape(comment=derived.comment)
    merged.columns = _merge_columns(source.columns, derived.columns, strategies)
    merged.watermark = _merge_watermark(source.watermark, derived.watermark, strategies["WATERMARKS"])
    merged.primary_key = _merge_key(source.primary_key, derived.primary_key, strategies["CONSTRAINTS"])
    if source.partition_keys and derived.partition_keys and strategies["PARTITIONS"] != "EXCLUDING":
        raise SqlError(
            "The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS."
        )
    merged.partition_keys = list(derived.partition_keys or source.partition_keys)
    merged.options = _merge_options(source.options, derived.options, strategies["OPTIONS"])
    return merged


def _merge_columns(source: list[Column], derived: list[Column], strategies: dict[str, str]) -> list[Column]:
    """The source's physical columns and the computed and metadata ones its strategies keep,
    then the new table's, an OVERWRITING one taking its source column's place."""
    strategy_of = {"computed": strategies["GENERATED"], "metadata": strategies["METADATA"]}
    columns = [c for c in source if c.kind == "physical" or strategy_of[c.kind] != "EXCLUDING"]
    for column in derived:
        index = next((i for i, c in enumerate(columns) if c.name == column.name), None)
        if index is None:
            columns.append(column)
            continue
        existing = columns[index]
        if existing.kind == "physical" and column.kind == "physical":
            raise SqlError(f"A column named '{column.name}' already exists in the base table.")
        if existing.kind != column.kind:
            raise SqlError(
                f"A column named '{column.name}' already exists in the table. Duplicate columns exist in the "
                f"{_noun(column.kind)} column and {_noun(existing.kind)} column."
            )
        if strategy_of[column.kind] == "INCLUDING":
            feature = "GENERATED" if column.kind == "computed" else "METADATA"
            raise SqlError(
                f"A {'generated' if column.kind == 'computed' else 'metadata'} column named '{column.name}' "
                f"already exists in the base table. You might want to specify EXCLUDING {feature} or "
                f"OVERWRITING {feature}."
            )
        columns[index] = column
    return columns


def _noun(kind: str) -> str:
    return {"computed": "compute", "metadata": "metadata"}.get(kind, "regular")


def _merge_watermark(
    source: tuple[str, str] | None, derived: tuple[str, str] | None, strategy: str
) -> tuple[str, str] | None:
    if strategy == "EXCLUDING" or source is None:
        return derived
    if derived is None:
        return source
    if derived[0] == source[0] and strategy == "INCLUDING":
        raise SqlError(
            f"There already exists a watermark spec for column '{derived[0]}' in the base table. You might "
            "want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS."
        )
    if derived[0] != source[0]:
        raise SqlError("Multiple WATERMARK statements is not supported yet.")
    return derived


def _merge_key(
    source: tuple[str | None, list[str]] | None, derived: tuple[str | None, list[str]] | None, strategy: str
) -> tuple[str | None, list[str]] | None:
    if strategy == "EXCLUDING" or source is None:
        return derived
    if derived is not None:
        raise SqlError(
            "The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS."
        )
    return source


def _merge_options(source: dict[str, str], derived: dict[str, str], strategy: str) -> dict[str, str]:
    if strategy == "EXCLUDING":
        return dict(derived)
    if strategy == "INCLUDING":
        for key in derived:
            if key in source:
                raise SqlError(
                    f"There already exists an option ['{key}' -> '{source[key]}']  in the base table. You "
                    "might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS."
                )
    return {**source, **derived}
