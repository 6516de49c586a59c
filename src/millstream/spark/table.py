"""Bounded table jobs on Spark SQL: millstream's table plan translated into Spark DataFrame
operations (``execution.target: spark`` with a batch TableEnvironment).

The plan is translated operator by operator from the exec nodes of its physical plan, the
operators ``explain`` prints (``planner/exec_nodes.py``; never re-parsed from SQL text): values
and filesystem tables become DataFrames (Spark reads the same CSV / JSON / Parquet files and
``k=v`` partition directories), projections and filters become Spark Column expressions, group
aggregation ``groupBy().agg()``, joins ``DataFrame.join``, ``ORDER BY`` / ``LIMIT`` ``orderBy``
/ ``limit`` / ``offset``, tumbling and hopping window aggregation ``window()``, an aggregation
of grouping sets (an Expand below it) ``groupingSets()``. Expressions Spark has no equal for
(Flink's CAST to STRING, user functions ...) run as Python UDFs of millstream's own compiled
expression, so they mean the same on both runtimes. A plan with a node this translation does
not cover (streaming-only operators, user-defined aggregates, table functions ...) returns
None: the job then runs through the DataStream translation on Spark, which covers everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.common import Configuration
from millstream.spark.jdbc import read_jdbc, write_jdbc
from millstream.spark.runner import _session
from millstream.table.common.types import DataType
from millstream.table.connectors.filesystem import FileSystemSource, _format_of
from millstream.table.connectors.jdbc import JdbcTableSink, JdbcTableSource
from millstream.table.expression import expression as e
from millstream.table.expression.calls import _IfThenElse
from millstream.table.expression.expression import _Filtered
from millstream.table.functions.aggregates import DISTINCT, FILTERED
from millstream.table.functions.builtins import BUILTIN_FUNCTIONS, _Call
from millstream.table.planner import nodes as p
from millstream.table.planner.aggregate import Aggregate
from millstream.table.planner.grouping_sets import EXPAND_ID, Expand
from millstream.table.planner.windows import WindowAggregate

__all__ = ["Untranslatable", "run_table_plan", "to_dataframe"]


class Untranslatable(Exception):
    """A plan node or expression without a Spark SQL translation."""


def run_table_plan(plan: Any, t_env: Any) -> list[tuple[str, tuple[Any, ...]]] | None:
    """The rows of a bounded table plan computed by Spark SQL, or None if untranslatable;
    ``plan``: the root exec node of its physical plan (``planner/exec_nodes.py``)."""
    configuration = Configuration()
    configuration.add_all(t_env.get_config().get_configuration())
    spark = _session(configuration)
    try:
        if plan.name == "Sink":  # an INSERT: the query's rows written by the sink's data source
            return _write_sink(plan, spark)
        frame = to_dataframe(plan, spark)
    except Untranslatable:
        return None
    return [("+I", _python_row(row, plan.node.types)) for row in frame.collect()]


def _write_sink(plan: Any, spark: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """Write the rows of a Sink's query with the table's Spark data source (a jdbc table);
    no rows. A sink of another connector, or one enforcing NOT NULL, is untranslatable."""
    sink = plan.node
    if not isinstance(sink.table_sink, JdbcTableSink) or sink.not_null:
        raise Untranslatable(f"the sink of the '{sink.connector}' connector")
    write_jdbc(to_dataframe(plan.inputs[0], spark), sink.table_sink)
    return []


def _python_row(row: Any, types: list[DataType]) -> tuple[Any, ...]:
    return tuple(row)


def spark_type(data_type: DataType) -> Any:
    """The Spark SQL type of a column."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import types as T

    root = data_type.root
    simple = {
        "TINYINT": T.ByteType,
        "SMALLINT": T.ShortType,
        "INT": T.IntegerType,
        "BIGINT": T.LongType,
        "FLOAT": T.FloatType,
        "DOUBLE": T.DoubleType,
        "BOOLEAN": T.BooleanType,
        "STRING": T.StringType,
        "VARCHAR": T.StringType,
        "CHAR": T.StringType,
        "DATE": T.DateType,
        "TIMESTAMP": T.TimestampNTZType,
        "TIMESTAMP_LTZ": T.TimestampType,
        "BYTES": T.BinaryType,
        "BINARY": T.BinaryType,
        "VARBINARY": T.BinaryType,
        "NULL": T.NullType,
    }
    if root in simple:
        return simple[root]()
    if root == "DECIMAL":
        return T.DecimalType(*(int(p) for p in data_type.params))
    fields = getattr(data_type, "fields", None)
    if root == "ROW" and fields is not None:
        return T.StructType([T.StructField(f.name, spark_type(f.data_type), True) for f in fields])
    raise Untranslatable(f"type {data_type!r}")


def _schema(names: list[str], types: list[DataType]) -> Any:
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import types as T

    return T.StructType([T.StructField(n, spark_type(t), True) for n, t in zip(names, types, strict=True)])


def _column(name: str) -> Any:
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


# -- plan nodes -------------------------------------------------------------------------------------------


def to_dataframe(x: Any, spark: Any) -> Any:
    """The DataFrame of an exec node of the job's physical plan (``planner/exec_nodes.py``: the
    operators ``explain`` prints), its columns named as its logical node's. An Exchange is left
    to Spark's planner, which shuffles as its own joins and aggregations need."""
    name: str = x.name
    node: Any = x.node  # the logical node it runs
    if name in ("Exchange", "WatermarkAssigner"):  # a bounded input: a watermark changes nothing
        return to_dataframe(x.inputs[0], spark)
    if name == "TableSourceScan" and type(node) is p.Values:
        return spark.createDataFrame([tuple(r) for r in node.rows], _schema(node.names, node.types))
    if name == "TableSourceScan" and isinstance(node, p.SourceScan):
        return _scan(node, spark)
    if name == "Calc":
        return _calc(node, to_dataframe(x.inputs[0], spark), x.inputs[0].node)
    # an aggregation prints the projection of its keys and calls above it (its node then)
    grouped: Any = node.input if type(node) is p.Project and isinstance(node.input, Aggregate) else node
    if (
        isinstance(grouped, Aggregate)
        and grouped.key_expressions is not None
        and grouped.argument_expressions is not None
        and name in ("HashAggregate", "GroupAggregate", "WindowAggregate")
    ):
        frame = _group_aggregate(grouped, x.inputs[0], spark)
        return frame if grouped is node else _calc(node, frame, grouped)
    if isinstance(node, WindowAggregate) and node.spec is not None and node.spec.kind in ("TUMBLE", "HOP"):
        below = x.inputs[0]  # an Exchange; in two phases, over the local phase
        below = below.inputs[0].inputs[0] if name == "GlobalWindowAggregate" else below.inputs[0]
        return _window_aggregate(node, to_dataframe(below, spark))
    if name == "Join" and getattr(node, "null_safe", False):  # INTERSECT / EXCEPT
        return _null_safe_join(x, node, spark)
    if name in ("Join", "WindowJoin") and node.condition is not None:  # batch: a window join is a join
        left, right = (to_dataframe(side, spark) for side in x.inputs)
        names = list(node.left.names) + list(node.right.names)
        types = list(node.left.types) + list(node.right.types)
        condition = expression_column(node.condition, names, types)
        how = {"INNER": "inner", "LEFT": "left", "RIGHT": "right", "FULL": "full", "SEMI": "left_semi",
               "ANTI": "left_anti"}[node.join_type]  # fmt: skip
        return left.join(right, on=condition, how=how).select(*[_column(n) for n in node.names])
    sort = type(node) is p.Sort and node.key_expressions is not None and node.input is not None
    if name in ("Sort", "SortLimit") and sort:
        frame = to_dataframe(x.inputs[0], spark)
        names, types = node.input.names, node.input.types
        order = [
            expression_column(e, names, types).desc_nulls_last()
            if descending
            else expression_column(e, names, types).asc_nulls_first()
            for e, descending in node.key_expressions
        ]
        frame = frame.orderBy(*order)
        if node.offset:
            frame = frame.offset(node.offset)
        return frame.limit(node.fetch) if node.fetch is not None else frame
    translated = _BY_NAME.get(name)
    if translated is not None and not node.updating:
        return translated(x, node, spark)
    raise Untranslatable(f"the exec node {name} ({type(node).__name__})")


def _scan(node: Any, spark: Any) -> Any:
    """A connector table's rows: files read by Spark, a jdbc table by its data source."""
    if type(node.source) is FileSystemSource:
        return _read_files(node.source, spark)
    if type(node.source) is JdbcTableSource:
        return read_jdbc(node.source, spark, _schema(node.names, node.types))
    raise Untranslatable(f"a scan of {type(node.source).__name__}")


def _null_safe_join(x: Any, node: Any, spark: Any) -> Any:
    """A semi / anti join on every column compared as ``IS NOT DISTINCT FROM`` (Spark's
    ``eqNullSafe``); the right side's columns renamed apart from the left's."""
    left, right = (to_dataframe(side, spark) for side in x.inputs)
    right = right.toDF(*[f"$right{i}" for i in range(len(node.right.names))])
    on = None
    for i, name in enumerate(node.left.names):
        equal = _column(name).eqNullSafe(_column(f"$right{i}"))
        on = equal if on is None else on & equal
    how = "left_semi" if node.join_type == "SEMI" else "left_anti"
    return left.join(right, on=on, how=how)


def _limit(x: Any, node: Any, spark: Any) -> Any:
    frame = to_dataframe(x.inputs[0], spark)
    if node.offset:
        frame = frame.offset(node.offset)
    return frame.limit(node.fetch) if node.fetch is not None else frame


def _union(x: Any, node: Any, spark: Any) -> Any:
    """UNION ALL: Spark's ``union`` is by position too."""
    frames = [to_dataframe(side, spark) for side in x.inputs]
    union = frames[0]
    for frame in frames[1:]:
        union = union.union(frame)
    return union.toDF(*node.names)


def _expand(x: Any, node: Any, spark: Any) -> Any:
    """An Expand (below a window aggregation of grouping sets; a group aggregation's runs as
    ``groupingSets()``): each row once per projection, as Spark's ``inline`` of an array of
    structs, the columns a projection leaves out NULL of their type."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    frame = to_dataframe(x.inputs[0], spark)
    inputs, names = list(node.input.names), [n for n in node.names if n != EXPAND_ID]
    types = [t for n, t in zip(node.names, node.types, strict=True) if n != EXPAND_ID]
    copies = []
    for projection, value in zip(node.projections, node.ids, strict=True):
        fields = [
            (F.lit(None).cast(spark_type(t)) if source is None else _column(inputs[source])).alias(name)
            for source, name, t in zip(projection, names, types, strict=True)
        ]
        fields.insert(node.id_column, F.lit(value).cast("long").alias(EXPAND_ID))
        copies.append(F.struct(*fields))
    return frame.select(F.inline(F.array(*copies)))


# exec nodes of insert-only plans translated by name alone
_BY_NAME: dict[str, Callable[[Any, Any, Any], Any]] = {"Limit": _limit, "Union": _union, "Expand": _expand}


def _calc(node: Any, frame: Any, source: Any) -> Any:
    """A Calc over ``frame`` (the rows of plan node ``source``): a filter, a projection, or a
    projection over a filter the Calc merged (``source`` is then the filter's input)."""
    if type(node) is p.Filter and node.expression is not None and node.input is not None:
        condition = expression_column(node.expression, node.input.names, node.input.types)
        return frame.where(condition.isNotNull() & condition)
    if type(node) is not p.Project or node.expressions is None:
        raise Untranslatable(f"a Calc of {type(node).__name__} without its expressions")
    below: Any = node.input
    if below is not source:  # the filter below, in the same Calc
        frame = _calc(below, frame, source)
    return frame.select(
        *[
            expression_column(e, below.names, below.types).alias(name)
            for e, name in zip(node.expressions, node.names, strict=True)
        ]
    )


def _read_files(node: Any, spark: Any) -> Any:
    options = node.options
    table_format = _format_of(options)
    if table_format not in ("csv", "json", "parquet"):
        raise Untranslatable(f"the '{table_format}' format of files")
    # a CSV file's fields are positional: read the table's every column, then the projection
    # the planner pushed into the scan (its names)
    columns = node.table_columns or tuple(zip(node.names, node.types, strict=True))
    reader = spark.read.schema(_schema([n for n, _ in columns], [t for _, t in columns]))
    path = options["path"].removeprefix("file://")
    if table_format == "csv":
        reader = reader.option("sep", options.get("csv.field-delimiter", ",")).option(
            "quote", options.get("csv.quote-character", '"')
        )
        if "csv.null-literal" in options:
            reader = reader.option("nullValue", options["csv.null-literal"])
        ignore = options.get("csv.ignore-parse-errors", "false").lower() == "true"
        # Flink's lenient CSV keeps a row with its bad fields NULL and a short row padded, as
        # Spark's PERMISSIVE mode does (a row with extra fields: Flink skips it, Spark cuts it)
        reader = reader.option("mode", "PERMISSIVE" if ignore else "FAILFAST")
    elif table_format == "json":
        ignore = options.get("json.ignore-parse-errors", "false").lower() == "true"
        reader = reader.option("mode", "DROPMALFORMED" if ignore else "FAILFAST")
    if node.partition_keys:
        reader = reader.option("basePath", path)
    frame = reader.format(table_format).load(path)
    return frame.select(*[_column(n) for n in node.names])


_SPARK_AGGREGATES = {"COUNT": "count", "SUM": "sum", "AVG": "avg", "MIN": "min", "MAX": "max"}


def _spark_aggregate(function: str, argument: Any, names: list[str], types: list[DataType]) -> Any:
    """One built-in aggregate as a Spark column: ``FILTER (WHERE c)`` as ``when(c, x)`` (NULL
    elsewhere, which every aggregate skips), ``DISTINCT`` as Spark's distinct aggregates."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    name = function.removeprefix(FILTERED)
    distinct = name.startswith(DISTINCT)
    name = name.removeprefix(DISTINCT)
    if isinstance(argument, _Filtered):
        condition = expression_column(argument.condition, names, types)
        column = F.when(condition, expression_column(argument.operand, names, types))
    else:
        column = expression_column(argument, names, types)
    if distinct and name in ("MIN", "MAX"):
        distinct = False  # the same result
    if name not in _SPARK_AGGREGATES:  # STDDEV, LISTAGG ...: the DataStream translation runs them
        raise Untranslatable(f"the aggregate {name.split()[0]}")
    if not distinct:
        return getattr(F, _SPARK_AGGREGATES[name])(column)
    if name == "COUNT":
        return F.count_distinct(column)
    if name == "SUM":
        return F.sum_distinct(column)
    raise Untranslatable(f"{name}(DISTINCT ...)")


def _aggregate_columns(node: Any, names: list[str], types: list[DataType]) -> list[Any]:

    columns = []
    first, end = len(node.key_expressions), len(node.key_expressions) + len(node.calls)
    for (function, _, _), argument, slot, result_type in zip(
        node.calls, node.argument_expressions, node.names[first:end], node.types[first:end], strict=True
    ):
        if not isinstance(function, str):
            raise Untranslatable("a user-defined aggregate function")
        value = _spark_aggregate(function, argument, names, types)
        if function.split()[-1] in ("SUM", "AVG"):  # Flink keeps the argument's type (AVG of ints truncates)
            value = value.cast(spark_type(result_type))
        columns.append(value.alias(slot))
    return columns


def _aggregate(node: Any, frame: Any) -> Any:
    """A group aggregation over ``frame``, its input's rows."""
    names, types = node.input.names, node.input.types
    keys = [
        expression_column(k, names, types).alias(n)
        for k, n in zip(node.key_expressions, node.names, strict=False)
    ]
    aggregates = _aggregate_columns(node, names, types)
    if not aggregates:  # DISTINCT
        return frame.select(*keys).distinct()
    if not keys:
        return frame.agg(*aggregates)
    return frame.groupBy(*keys).agg(*aggregates)


def _group_aggregate(node: Any, below: Any, spark: Any) -> Any:
    """A group aggregation of the rows of exec node ``below`` (an Exchange; over an Expand for
    a GROUP BY of grouping sets)."""
    expand = below.inputs[0] if below.inputs else None
    if isinstance(node.input, Expand) and expand is not None and expand.node is node.input:
        return _grouping_sets(node, expand, spark)
    return _aggregate(node, to_dataframe(below, spark))


def _grouping_sets(node: Any, expand: Any, spark: Any) -> Any:
    """The aggregation of an Expand (``planner/grouping_sets.py``) as Spark's own ``GROUPING
    SETS`` over the Expand's input: its keys grouped in each projection's set, the expand id
    ``$e`` Spark's ``grouping_id()`` (the same bits: one per key, the first key's the highest,
    set when the set leaves the key out), the keys' copies the aggregate calls read (``x_0``) as
    columns of the input."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    plan = expand.node
    source = plan.input
    width = len(source.names)
    keys = [_column(n) for n in node.names[: len(node.key_expressions) - 1]]  # the keys, then $e
    copies = [
        _column(source.names[i]).alias(plan.names[width + 1 + n])
        for n, i in enumerate(plan.projections[0][width:])
    ]
    frame = to_dataframe(expand.inputs[0], spark).select(*[_column(n) for n in source.names], *copies)
    sets = [
        [keys[c] for c in range(len(keys)) if projection[c] is not None] for projection in plan.projections
    ]
    names = [n for n in plan.names if n != EXPAND_ID]
    types = [t for n, t in zip(plan.names, plan.types, strict=True) if n != EXPAND_ID]
    aggregates = _aggregate_columns(node, names, types)
    grouped = frame.groupingSets(sets, *keys).agg(*aggregates, F.grouping_id(*keys).alias(EXPAND_ID))
    return grouped.select(*[_column(n) for n in node.names])


def _window_aggregate(node: Any, frame: Any) -> Any:
    """A tumbling or hopping window aggregation over ``frame``, its input's rows."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    if node.key_expressions is None or node.argument_expressions is None:
        raise Untranslatable("a window aggregation without its expressions")
    names, types = node.input.names, node.input.types
    time = _column(names[node.time_column])
    spec = node.spec
    size = f"{spec.size} milliseconds"
    window = (
        F.window(time, size) if spec.kind == "TUMBLE" else F.window(time, size, f"{spec.slide} milliseconds")
    )
    keys = [
        expression_column(k, names, types).alias(n)
        for k, n in zip(node.key_expressions, node.names, strict=False)
    ]
    # a window with no aggregate function (GROUP BY k, window_start, window_end: Nexmark q8's
    # shape) still groups: a count nobody selects, as groupBy().agg() needs one expression
    aggregates = _aggregate_columns(node, names, types) or [F.count(F.lit(1)).alias("$count")]
    grouped = frame.groupBy(window.alias("$window"), *keys).agg(*aggregates)
    ts_type = spark_type(node.types[-1])
    start = F.col("`$window`.start").cast(ts_type)
    end = F.col("`$window`.end").cast(ts_type)
    time_column = (end - F.expr("INTERVAL 1 MILLISECOND")).cast(ts_type)
    window_names = node.names[-3:]
    kept = [_column(n) for n in node.names[:-3]]
    return grouped.select(
        *kept, start.alias(window_names[0]), end.alias(window_names[1]), time_column.alias(window_names[2])
    )


# -- expressions ----------------------------------------------------------------------------------------


def expression_column(expression: Any, names: list[str], types: list[DataType]) -> Any:  # noqa: C901
    """A Spark Column computing ``expression`` over columns ``names``."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    kind = type(expression)
    if kind is e._Column and expression.name in names:
        return _column(expression.name)
    if kind is e._Literal and isinstance(expression.value, (bool, int, float, str)):
        return F.lit(expression.value)
    if kind is e._Literal and expression.value is None:
        return F.lit(None)
    if kind is e._Alias:
        return expression_column(expression.operand, names, types)
    if kind is e._FieldAccess and isinstance(expression.field, str):
        return expression_column(expression.operand, names, types).getField(expression.field)
    if kind is e._IsNull:
        inner = expression_column(expression.operand, names, types)
        return inner.isNull() if expression.null else inner.isNotNull()
    if kind is e._Not:
        return ~expression_column(expression.operand, names, types)
    if kind is e._Logic:
        columns = [expression_column(o, names, types) for o in expression.operands]
        result = columns[0]
        for c in columns[1:]:
            result = (result | c) if expression.op == "OR" else (result & c)
        return result
    if kind is e._Binary:
        left = expression_column(expression.left, names, types)
        right = expression_column(expression.right, names, types)
        op = expression.op
        compare = {
            "=": "__eq__",
            "<>": "__ne__",
            "<": "__lt__",
            "<=": "__le__",
            ">": "__gt__",
            ">=": "__ge__",
        }
        if op in compare:
            return getattr(left, compare[op])(right)
        result_type = expression.resolve(names, types).data_type
        if op in ("+", "-", "*") and result_type.root not in (
            "INTERVAL_DAY_TIME",
            "TIMESTAMP",
            "TIMESTAMP_LTZ",
        ):
            value = left + right if op == "+" else left - right if op == "-" else left * right
            return value.cast(spark_type(result_type))
        if op == "/" and result_type.root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
            return (left / right).cast("long").cast(spark_type(result_type))  # Java's: toward zero
        if op == "/":
            return (left / right).cast(spark_type(result_type))
    if kind is _IfThenElse:
        condition = expression_column(expression.condition, names, types)
        return F.when(condition, expression_column(expression.then, names, types)).otherwise(
            expression_column(expression.otherwise, names, types)
        )
    if kind is e._Cast and expression.data_type.root not in ("STRING", "VARCHAR", "CHAR"):
        try:
            target = spark_type(expression.data_type)
        except Untranslatable:
            target = None
        if target is not None:
            return expression_column(expression.operand, names, types).cast(target)
    definition = BUILTIN_FUNCTIONS.get(expression.name_) if kind is _Call else None
    if (
        definition is not None
        and definition.spark is not None
        and definition.spark_applies(len(expression.args))
    ):
        return definition.spark(*[expression_column(a, names, types) for a in expression.args])
    if isinstance(expression, e.AggregateCall) and expression.slot in names:
        return _column(expression.slot)  # the aggregation's column
    if isinstance(expression, e.WindowProperty) and expression.column_name() in names:
        return _column(expression.column_name())
    return _python_udf(expression, names, types)


def _python_udf(expression: Any, names: list[str], types: list[DataType]) -> Any:
    """``expression`` as a Python UDF of every column: millstream's own compiled closure."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import functions as F

    compiled = expression.resolve(names, types)
    fn = compiled.fn
    udf = F.udf(lambda *values: fn(values), spark_type(compiled.data_type))
    return udf(*[_column(n) for n in names])
