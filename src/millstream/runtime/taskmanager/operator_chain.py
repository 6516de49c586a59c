"""OperatorChain: the operators of one task, wired so that chained operators call each other.

Built from the vertex's chained operators in reverse topological order, so each
operator's output is already known: a direct bound call to the next operator's
``process_batch``, a RecordWriter's ``emit`` for edges leaving the chain, or a fan-out
over several of these. Side outputs are routed by tag id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.connectors.base import ReaderContext, TextRenderer, WriterContext
from millstream.graph.job_graph import ChainedOperator, JobVertex
from millstream.runtime.io.network.record_writer import RecordWriter
from millstream.runtime.location import TaskLocation
from millstream.runtime.operators.base import (
    Emit,
    OperatorContext,
    StreamingRuntimeContext,
    StreamOperator,
    bind_user_function,
)
from millstream.runtime.operators.keyed import StreamGroupedReduce
from millstream.runtime.operators.simple import (
    ProcessOperator,
    StreamFilter,
    StreamFlatMap,
    StreamMap,
    UdfOperator,
)
from millstream.runtime.operators.sinks import (
    CollectSinkOperator,
    PrintSinkOperator,
    SinkFunctionOperator,
    SinkWriterOperator,
)
from millstream.runtime.operators.sources import LegacySourceOperator, SourceOperator

__all__ = ["ChainEnvironment", "OperatorChain"]


@dataclass
class ChainEnvironment:
    """What building a chain needs from its task."""

    location: TaskLocation
    attempt_number: int
    job_parameters: dict[str, str]
    writers: dict[str, RecordWriter]
    collect_channels: Any


def _discard(values: list[Any], timestamps: list[int] | None) -> None:
    return None


def _fan_out(targets: list[Emit]) -> Emit:
    if not targets:
        return _discard
    if len(targets) == 1:
        return targets[0]

    def emit_all(values: list[Any], timestamps: list[int] | None) -> None:
        for target in targets:
            target(values, timestamps)

    return emit_all


Factory = Callable[
    [ChainedOperator, OperatorContext, Emit, dict[str, Emit], ChainEnvironment], StreamOperator
]


def _udf(operator_class: type[UdfOperator]) -> Factory:
    """The factory of an operator that calls one user function (map, flat_map, filter)."""

    def create(
        op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
    ) -> StreamOperator:
        fn, lifecycle = bind_user_function(op.operator.function, op.operator.params["method"])
        return operator_class(ctx, fn, lifecycle, out)

    return create


def _process(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    fn, lifecycle = bind_user_function(op.operator.function, op.operator.params["method"])
    return ProcessOperator(ctx, fn, lifecycle, out, side, op.state_key_selector)


def _reduce(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    fn, lifecycle = bind_user_function(op.operator.function, op.operator.params["method"])
    return StreamGroupedReduce(ctx, fn, lifecycle, out, op.state_key_selector)


def _source(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    loc = ctx.location
    return SourceOperator(
        ctx, op.operator.function, out, ReaderContext(loc.subtask_index, loc.parallelism, op.name)
    )


def _legacy_source(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    return LegacySourceOperator(ctx, op.operator.function, out)


def _print(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    params = op.operator.params
    renderer = TextRenderer(params["formatter"], params.get("fast_formatter"), params.get("batch_renderer"))
    return PrintSinkOperator(ctx, renderer, params["identifier"])


def _sink_writer(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    loc = ctx.location
    writer_ctx = WriterContext(loc.subtask_index, loc.parallelism, env.attempt_number, op.name)
    params = op.operator.params
    renderer = TextRenderer(params["formatter"], params.get("fast_formatter"), params.get("batch_renderer"))
    return SinkWriterOperator(ctx, op.operator.function, renderer, writer_ctx)


def _sink_function(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    return SinkFunctionOperator(ctx, *bind_user_function(op.operator.function, op.operator.params["method"]))


def _collect(
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict, env: ChainEnvironment
) -> StreamOperator:
    return CollectSinkOperator(ctx, env.collect_channels.channel(op.operator.params["collect_id"]))


OPERATOR_FACTORIES: dict[str, Factory] = {
    "source": _source,
    "legacy_source": _legacy_source,
    "map": _udf(StreamMap),
    "flat_map": _udf(StreamFlatMap),
    "filter": _udf(StreamFilter),
    "process": _process,
    "keyed_process": _process,
    "reduce": _reduce,
    "print": _print,
    "sink_writer": _sink_writer,
    "sink_function": _sink_function,
    "collect": _collect,
}


class OperatorChain:
    """The operators of a task, head first (topological order)."""

    def __init__(self, operators: list[StreamOperator]) -> None:
        self.operators = operators
        self.head = operators[0]

    @classmethod
    def create(cls, vertex: JobVertex, env: ChainEnvironment) -> OperatorChain:
        """Instantiate and wire every operator of ``vertex``."""
        built: dict[int, StreamOperator] = {}
        for op in reversed(vertex.operators):
            main: list[Emit] = []
            side: dict[str, list[Emit]] = {}
            for target_id, tag in op.chained_targets:
                emit = built[target_id].process_batch
                (main if tag is None else side.setdefault(tag.tag_id, [])).append(emit)
            for output in op.non_chained_outputs:
                emit = env.writers[output.data_set_id].emit
                tag = output.output_tag
                (main if tag is None else side.setdefault(tag.tag_id, [])).append(emit)
            factory = OPERATOR_FACTORIES.get(op.operator.kind)
            if factory is None:
                raise ValueError(f"operator '{op.name}': unknown operator kind {op.operator.kind!r}")
            context = OperatorContext(
                name=op.name,
                location=env.location,
                runtime_context=StreamingRuntimeContext(
                    task_name=env.location.task_name,
                    subtask_index=env.location.subtask_index,
                    parallelism=env.location.parallelism,
                    max_parallelism=op.max_parallelism,
                    attempt_number=env.attempt_number,
                    job_parameters=env.job_parameters,
                    operator_name=op.name,
                ),
            )
            side_emits = {tag_id: _fan_out(targets) for tag_id, targets in side.items()}
            built[op.node_id] = factory(op, context, _fan_out(main), side_emits, env)
        return cls([built[op.node_id] for op in vertex.operators])

    def open(self) -> None:
        """Open operators tail first, so downstream is ready before upstream emits."""
        for operator in reversed(self.operators):
            operator.open()

    def finish(self) -> None:
        """End of input, head first: each operator emits what it holds before the next ends."""
        for operator in self.operators:
            operator.finish()

    def close(self) -> None:
        """Close every operator; the first error is raised after all were closed."""
        first: BaseException | None = None
        for operator in self.operators:
            try:
                operator.close()
            except Exception as err:
                first = first or err
        if first is not None:
            raise first
