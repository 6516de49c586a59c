"""The modules of a TableEnvironment (Flink's ``ModuleManager``): the ``core`` module, which
holds the built-in functions, is the only one here. ``SHOW [FULL] MODULES`` lists it, ``USE
MODULES core`` keeps it in use; loading another module (Hive's) or unloading ``core`` is
refused, naming the module.

``CORE_FUNCTIONS``: the names Flink 2.3's core module lists, what ``SHOW FUNCTIONS`` prints
before the user's functions (PyFlink 2.3.0 printed these 251 names for ``SHOW FUNCTIONS``).
"""

from __future__ import annotations

from millstream.table.catalog.catalog import CatalogException

__all__ = ["CORE_FUNCTIONS", "CORE_MODULE", "ModuleManager"]

CORE_MODULE = "core"

CORE_FUNCTIONS = (
    "AGG_DECIMAL_MINUS",
    "AGG_DECIMAL_PLUS",
    "ARRAY_AGG",
    "ARRAY_APPEND",
    "ARRAY_CONCAT",
    "ARRAY_CONTAINS",
    "ARRAY_DISTINCT",
    "ARRAY_EXCEPT",
    "ARRAY_INTERSECT",
    "ARRAY_JOIN",
    "ARRAY_MAX",
    "ARRAY_MIN",
    "ARRAY_POSITION",
    "ARRAY_PREPEND",
    "ARRAY_REMOVE",
    "ARRAY_REVERSE",
    "ARRAY_SLICE",
    "ARRAY_SORT",
    "ARRAY_UNION",
    "ASSIGNMENT",
    "BITMAP_AND",
    "BITMAP_ANDNOT",
    "BITMAP_AND_AGG",
    "BITMAP_AND_CARDINALITY_AGG",
    "BITMAP_BUILD",
    "BITMAP_BUILD_AGG",
    "BITMAP_BUILD_CARDINALITY_AGG",
    "BITMAP_CARDINALITY",
    "BITMAP_FROM_BYTES",
    "BITMAP_OR",
    "BITMAP_OR_AGG",
    "BITMAP_OR_CARDINALITY_AGG",
    "BITMAP_TO_ARRAY",
    "BITMAP_TO_BYTES",
    "BITMAP_TO_STRING",
    "BITMAP_XOR",
    "BITMAP_XOR_AGG",
    "BITMAP_XOR_CARDINALITY_AGG",
    "BTRIM",
    "COALESCE",
    "CURRENT_WATERMARK",
    "DEFAULT",
    "ELT",
    "ENDSWITH",
    "FROM_CHANGELOG",
    "GREATEST",
    "HIVE_AGG_DECIMAL_PLUS",
    "IFNULL",
    "INET_ATON",
    "INET_NTOA",
    "IS_JSON",
    "JSON",
    "JSON_ARRAY",
    "JSON_ARRAYAGG_ABSENT_ON_NULL",
    "JSON_ARRAYAGG_NULL_ON_NULL",
    "JSON_EXISTS",
    "JSON_OBJECT",
    "JSON_OBJECTAGG_ABSENT_ON_NULL",
    "JSON_OBJECTAGG_NULL_ON_NULL",
    "JSON_QUERY",
    "JSON_QUOTE",
    "JSON_STRING",
    "JSON_UNQUOTE",
    "JSON_VALUE",
    "LEAST",
    "LIKE",
    "MAP_ENTRIES",
    "MAP_FROM_ARRAYS",
    "MAP_KEYS",
    "MAP_UNION",
    "MAP_VALUES",
    "ML_PREDICT",
    "OBJECT_OF",
    "OBJECT_UPDATE",
    "PARSE_JSON",
    "PERCENTILE",
    "PRINTF",
    "REGEXP_COUNT",
    "REGEXP_EXTRACT_ALL",
    "REGEXP_INSTR",
    "REGEXP_SUBSTR",
    "SOURCE_WATERMARK",
    "SPLIT",
    "STARTSWITH",
    "TO_CHANGELOG",
    "TO_TIMESTAMP_LTZ",
    "TRANSLATE3",
    "TRY_CAST",
    "TRY_PARSE_JSON",
    "TYPEOF",
    "UNHEX",
    "URL_DECODE",
    "URL_ENCODE",
    "abs",
    "acos",
    "and",
    "array",
    "as",
    "asc",
    "ascii",
    "asin",
    "at",
    "atan",
    "atan2",
    "avg",
    "between",
    "bin",
    "cardinality",
    "cast",
    "ceil",
    "charLength",
    "chr",
    "collect",
    "concat",
    "concat_ws",
    "convertTz",
    "cos",
    "cosh",
    "cot",
    "count",
    "currentDatabase",
    "currentDate",
    "currentRowTimestamp",
    "currentTime",
    "currentTimestamp",
    "dateFormat",
    "decode",
    "degrees",
    "desc",
    "distinct",
    "divide",
    "e",
    "element",
    "encode",
    "end",
    "equals",
    "exp",
    "extract",
    "first_value",
    "flatten",
    "floor",
    "fromBase64",
    "fromUnixtime",
    "get",
    "greaterThan",
    "greaterThanOrEqual",
    "hex",
    "ifThenElse",
    "in",
    "initCap",
    "instr",
    "isFalse",
    "isNotFalse",
    "isNotNull",
    "isNotTrue",
    "isNull",
    "isTrue",
    "lag",
    "last_value",
    "lead",
    "left",
    "lessThan",
    "lessThanOrEqual",
    "listAgg",
    "ln",
    "localTime",
    "localTimestamp",
    "locate",
    "log",
    "log10",
    "log2",
    "lower",
    "lowerCase",
    "lpad",
    "ltrim",
    "map",
    "max",
    "md5",
    "min",
    "minus",
    "minusPrefix",
    "mod",
    "not",
    "notBetween",
    "notEquals",
    "now",
    "or",
    "over",
    "overlay",
    "parseUrl",
    "pi",
    "plus",
    "position",
    "power",
    "proctime",
    "radians",
    "rand",
    "randInteger",
    "rangeTo",
    "regexp",
    "regexpExtract",
    "regexpReplace",
    "reinterpretCast",
    "repeat",
    "replace",
    "reverse",
    "right",
    "round",
    "row",
    "rowtime",
    "rpad",
    "rtrim",
    "sha1",
    "sha2",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sign",
    "similar",
    "sin",
    "sinh",
    "splitIndex",
    "sqrt",
    "start",
    "stddevPop",
    "stddevSamp",
    "strToMap",
    "streamRecordTimestamp",
    "substr",
    "substring",
    "sum",
    "sum0",
    "tan",
    "tanh",
    "temporalOverlaps",
    "times",
    "timestampDiff",
    "toBase64",
    "toDate",
    "toTimestamp",
    "trim",
    "truncate",
    "unixTimestamp",
    "upper",
    "upperCase",
    "uuid",
    "varPop",
    "varSamp",
    "withColumns",
    "withoutColumns",
)
_CORE_LOWER = frozenset(name.lower() for name in CORE_FUNCTIONS)


class ModuleManager:
    """The loaded modules (only ``core``) and those in use."""

    def __init__(self) -> None:
        self._used = [CORE_MODULE]

    def list_modules(self) -> list[str]:
        """The modules in use, in resolution order."""
        return list(self._used)

    def list_full_modules(self) -> list[tuple[str, bool]]:
        """Every loaded module and whether it is in use."""
        return [(CORE_MODULE, CORE_MODULE in self._used)]

    def load_module(self, name: str) -> None:
        """``LOAD MODULE name``: refused; ``core`` is loaded already, no other module exists here.

        Raises:
            CatalogException: always, naming the module.
        """
        if name == CORE_MODULE:
            raise CatalogException(
                f"Could not execute LOAD MODULE `{name}`. A module with name '{name}' already exists"
            )
        raise CatalogException(
            f"millstream: LOAD MODULE {name} is not supported: only the '{CORE_MODULE}' module (the "
            "built-in functions) exists here"
        )

    def unload_module(self, name: str) -> None:
        """``UNLOAD MODULE name``: refused (``core``'s functions are built into the planner).

        Raises:
            CatalogException: always, naming the module.
        """
        if name != CORE_MODULE:
            raise CatalogException(
                f"Could not execute UNLOAD MODULE {name}. No module with name '{name}' exists"
            )
        raise CatalogException(
            f"millstream: UNLOAD MODULE {CORE_MODULE} is not supported: the built-in functions cannot be "
            "unloaded"
        )

    def use_modules(self, names: list[str]) -> None:
        """``USE MODULES name, ...``: the modules in use, in that order.

        Raises:
            CatalogException: a module that is not loaded, or one named twice.
        """
        for i, name in enumerate(names):
            if name != CORE_MODULE:
                raise CatalogException(
                    f"Could not execute USE MODULES: [{', '.join(names)}]. No module with name '{name}' "
                    "exists"
                )
            if name in names[:i]:
                raise CatalogException(
                    f"Could not execute USE MODULES: [{', '.join(names)}]. Module '{name}' appears more than "
                    "once"
                )
        self._used = list(names)

    @staticmethod
    def is_core_function(name: str) -> bool:
        """Whether ``name`` (any case) names a function of the core module."""
        return name.lower() in _CORE_LOWER
