"""PARSE_JSON and TRY_PARSE_JSON, Flink's functions making a VARIANT of a JSON text
(``common/variant.py``), and the subscript of a VARIANT (``v['key']``, ``v[1]``)."""

from __future__ import annotations

from typing import Any

from millstream.table.common.types import DataType
from millstream.table.common.variant import VARIANT, Variant, VariantError, parse_json
from millstream.table.functions.definition import TEXT, FunctionDefinition

__all__ = ["VARIANTS", "variant_item", "variant_item_type"]

_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _parse(text: Any, allow_duplicate_keys: Any = False) -> Variant | None:
    if allow_duplicate_keys is None:  # Flink unboxes the flag: a NULL fails the job
        raise ValueError("PARSE_JSON's allowDuplicateKeys argument must not be NULL")
    return None if text is None else parse_json(str(text), bool(allow_duplicate_keys))


def _try_parse(text: Any, allow_duplicate_keys: Any = False) -> Variant | None:
    if allow_duplicate_keys is None:
        raise ValueError("TRY_PARSE_JSON's allowDuplicateKeys argument must not be NULL")
    try:
        return None if text is None else parse_json(str(text), bool(allow_duplicate_keys))
    except VariantError:
        return None


def _parse_type(nullable_always: bool) -> Any:
    def rule(args: list[DataType]) -> DataType:
        if not 1 <= len(args) <= 2:
            raise TypeError("Invalid input arguments.")
        text, flag = args[0], args[1:]
        if text.root not in (*TEXT, "NULL") or any(f.root not in ("BOOLEAN", "NULL") for f in flag):
            raise TypeError("Invalid input arguments.")
        return VARIANT(nullable_always or any(a.is_nullable() for a in args))

    return rule


def variant_item_type(args: list[DataType]) -> DataType:
    """``v[key]``: a nullable VARIANT, the key a character string or an integer."""
    if args[1].root not in (*TEXT, *_INTEGERS, "NULL"):
        raise TypeError(
            f"Cannot apply 'ITEM' to arguments of type 'ITEM(<VARIANT>, <{args[1].root}>)'. "
            "Supported form(s): <ARRAY>[<INTEGER>]"
        )
    return VARIANT()


def variant_item(variant: Variant, key: Any) -> Variant | None:
    """``v['key']`` (an object's field) or ``v[i]`` (an array's element from 1): NULL when
    there is none; a key of the other kind fails (Flink's TableRuntimeException)."""
    return variant.item(key if isinstance(key, str) else int(key))


VARIANTS: list[FunctionDefinition] = [
    # the text's JSON value (PyFlink 2.3.0: PARSE_JSON('{"a": 1}') is {"a":1}, VARIANT NOT NULL);
    # a text that is not JSON fails the job
    FunctionDefinition("PARSE_JSON", _parse, _parse_type(False), null_aware=True),
    # NULL for a text that is not JSON (PyFlink 2.3.0: TRY_PARSE_JSON('{bad') is NULL, VARIANT)
    FunctionDefinition("TRY_PARSE_JSON", _try_parse, _parse_type(True), null_aware=True),
]
