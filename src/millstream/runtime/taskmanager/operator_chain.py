"""OperatorChain: the operators of one task, wired so that chained operators call each other.

Built from the vertex's chained operators in reverse topological order, so each
operator's output is already known: a direct bound call to the next operator's
``process_batch``, a RecordWriter's ``emit`` for edges leaving the chain, or a fan-out
over several of these. Side outputs are routed by tag id. Watermarks and watermark
statuses go to every output of an operator, side outputs included (once per target).
Where PyFlink would hand records from Python to Java (an edge leaving the chain, the
input of ``assign_timestamps_and_watermarks``), they are converted to the operator's
declared output type (``TypeInformation.batch_converter``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, assert_never

from millstream.common.connector import REQUEST_SPLIT, ReaderContext, WriterContext, has_enumerator
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import ChainedOperator, JobVertex
from millstream.graph.operator_specs import (
    AsyncWaitSpec,
    BatchMapSpec,
    BroadcastProcessSpec,
    CoFlatMapSpec,
    CollectSpec,
    CoMapSpec,
    CombineSpec,
    CoProcessSpec,
    FilterSpec,
    FlatMapSpec,
    IntervalJoinSpec,
    KeyedBroadcastProcessSpec,
    KeyedCoProcessSpec,
    KeyedProcessSpec,
    LegacySourceSpec,
    MapSpec,
    PrintSpec,
    ProcessSpec,
    ReduceSpec,
    SinkFunctionSpec,
    SinkWriterSpec,
    SourceSpec,
    TimestampsWatermarksSpec,
    TwoInputUdfSpec,
    WindowSpec,
    two_input_key_selectors,
)
from millstream.graph.transformations import SideOutputTag
from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.async_wait import AsyncWaitOperator
from millstream.runtime.operators.base import (
    Emit,
    OperatorContext,
    StreamingRuntimeContext,
    StreamOperator,
    bind_user_function,
)
from millstream.runtime.operators.columnar import ColumnarKeyedOperator
from millstream.runtime.operators.evicting_window import EvictingWindowOperator
from millstream.runtime.operators.grouped_reduce import LocalCombine, StreamGroupedReduce
from millstream.runtime.operators.interval_join import IntervalJoinOperator
from millstream.runtime.operators.process import KeyedProcessOperator, ProcessOperator
from millstream.runtime.operators.sinks import (
    CollectChannels,
    CollectSinkOperator,
    PrintSinkOperator,
    SinkFunctionOperator,
    SinkWriterOperator,
)
from millstream.runtime.operators.sources import LegacySourceOperator, SourceOperator
from millstream.runtime.operators.timer_service import ProcessingTimeService
from millstream.runtime.operators.two_input import (
    CoBroadcastWithKeyedOperator,
    CoBroadcastWithNonKeyedOperator,
    CoProcessOperator,
    CoStreamFlatMap,
    CoStreamMap,
    KeyedCoProcessOperator,
)
from millstream.runtime.operators.udf import (
    StreamBatchMap,
    StreamFilter,
    StreamFlatMap,
    StreamMap,
)
from millstream.runtime.operators.watermarks import TimestampsAndWatermarksOperator
from millstream.runtime.operators.window import WindowOperator
from millstream.runtime.state.snapshot import OperatorSnapshot
from millstream.runtime.taskmanager.input_processor import InputHandler

__all__ = ["ChainEnvironment", "ChainOutput", "OperatorChain", "create_operator", "operator_context"]


class ChainOutput(Protocol):
    """An edge leaving the chain: a RecordWriter in a task, a record gatherer in a Spark vertex."""

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        """A batch of records (``timestamps`` None: none carry one)."""
        ...

    def emit_element(self, element: Any) -> None:
        """A watermark or watermark status, to every consumer."""
        ...


@dataclass
class ChainEnvironment:
    """What building a chain needs from its task (or from a ``VertexHost``)."""

    location: TaskLocation
    attempt_number: int
    job_config: JobConfig
    writers: Mapping[str, ChainOutput]  # by the data set id of each edge leaving the chain
    collect_channels: CollectChannels | None
    processing_time_service: ProcessingTimeService = field(default_factory=ProcessingTimeService)
    final_checkpoint: bool = False  # the task ends with a final checkpoint (FLIP-147)
    shared_state_dir: str | None = None  # <checkpoint dir>/<job id>/shared
    # (node id, event) -> the operator's coordinator on the JobMaster; None: no coordinators
    # run (the Spark runner), so sources assign their splits statically
    operator_events: Callable[[int, Any], None] | None = None
    # wakes the task thread (a source reader's fetcher has data); None: it polls
    wake_task: Callable[[], None] | None = None
    # ``mailbox(action, description)`` runs ``action`` on the task thread (async I/O results);
    # None: no mailbox
    mailbox: Callable[[Callable[[], None], str], None] | None = None


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


def _broadcast(targets: list[Callable[[Any], None]]) -> Callable[[Any], None]:
    if len(targets) == 1:
        return targets[0]

    def emit_all(element: Any) -> None:
        for target in targets:
            target(element)

    return emit_all


# Operators that are Java operators in PyFlink: their input crosses from Python to Java.
JAVA_OPERATORS = (TimestampsWatermarksSpec,)


def converting(emit: Emit, declared: Any, operator: str, location: TaskLocation) -> Emit:
    """``emit`` of records converted to the ``declared`` type, as PyFlink converts them
    where they leave Python (between tasks; into Java operators).

    A record the type cannot hold fails the job naming the operator, its subtask and the
    record (``Types.INT()`` given 2**40).
    """
    convert = declared.batch_converter() if declared is not None else None
    if convert is None:
        return emit

    def emit_converted(values: list[Any], timestamps: list[int] | None) -> None:
        try:
            values = convert(values)
        except Exception as err:
            raise _conversion_error(declared, values, operator, location) from err
        emit(values, timestamps)

    return emit_converted


def _conversion_error(declared: Any, values: list[Any], operator: str, location: TaskLocation) -> Exception:
    for value in values:
        try:
            declared.from_python(value)
        except Exception as err:
            preview = repr(value)
            if len(preview) > 200:
                preview = preview[:197] + "..."
            return UserFunctionError(
                operator,
                location,
                None,
                message=f"output {preview} does not fit the declared output type {declared!r}",
                detail=err,
            )
    return UserFunctionError(operator, location, None, message=f"converting outputs to {declared!r} failed")


def create_operator(  # noqa: C901 - one case per operator kind
    op: ChainedOperator, ctx: OperatorContext, out: Emit, side: dict[str, Emit], env: ChainEnvironment
) -> StreamOperator:
    """The runtime operator of ``op``'s spec, emitting to ``out`` and the ``side`` outputs."""
    loc = ctx.location
    match op.operator:
        case SourceSpec(source=source, watermark_strategy=strategy):
            send = env.operator_events
            request = None
            if send is not None and has_enumerator(source):
                node_id = op.node_id
                request = lambda: send(node_id, REQUEST_SPLIT)  # noqa: E731
            reader_ctx = ReaderContext(loc.subtask_index, loc.parallelism, op.name, request, env.wake_task)
            return SourceOperator(ctx, source, out, reader_ctx, strategy)
        case LegacySourceSpec(function=function):
            return LegacySourceOperator(ctx, function, out)
        case MapSpec(function=function, method=method):
            return StreamMap(ctx, *bind_user_function(function, method), out, op.state_key_selector)
        case FlatMapSpec(function=function, method=method):
            return StreamFlatMap(ctx, *bind_user_function(function, method), out, op.state_key_selector)
        case FilterSpec(function=function, method=method):
            return StreamFilter(ctx, *bind_user_function(function, method), out, op.state_key_selector)
        case BatchMapSpec(function=function, method=method):
            return StreamBatchMap(ctx, *bind_user_function(function, method), out, op.state_key_selector)
        case ProcessSpec(function=function, method=method):
            return ProcessOperator(ctx, *bind_user_function(function, method), out, side)
        case KeyedProcessSpec(columnar=columnar) if columnar is not None and not ctx.batch:
            return ColumnarKeyedOperator(ctx, columnar, out, op.state_key_selector)
        case KeyedProcessSpec(function=function, method=method):
            fn, lifecycle = bind_user_function(function, method)
            return KeyedProcessOperator(ctx, fn, lifecycle, out, side, op.state_key_selector)
        case ReduceSpec(function=function, method=method, combined=combined):
            fn, lifecycle = bind_user_function(function, method)
            rolling = getattr(function, "rolling", None)  # a built-in aggregation's compiled fold
            return StreamGroupedReduce(ctx, fn, lifecycle, out, op.state_key_selector, combined, rolling)
        case CombineSpec(function=function, method=method, key_selector=key, max_keys=max_keys):
            fn, lifecycle = bind_user_function(function, method)
            return LocalCombine(ctx, fn, lifecycle, out, key, max_keys)
        case AsyncWaitSpec() as spec:
            return AsyncWaitOperator(ctx, spec, out)
        case TimestampsWatermarksSpec(watermark_strategy=strategy):
            return TimestampsAndWatermarksOperator(ctx, strategy, out)
        case WindowSpec(evictor=None) as spec:
            return WindowOperator(ctx, spec, out, side, op.state_key_selector)
        case WindowSpec() as spec:
            return EvictingWindowOperator(ctx, spec, out, side, op.state_key_selector)
        case CoMapSpec(key_selectors=keys) as spec:
            return CoStreamMap(ctx, *_two_functions(spec), out, keys)
        case CoFlatMapSpec(key_selectors=keys) as spec:
            return CoStreamFlatMap(ctx, *_two_functions(spec), out, keys)
        case CoProcessSpec() as spec:
            return CoProcessOperator(ctx, *_two_functions(spec), out, side)
        case KeyedCoProcessSpec(key_selectors=keys) as spec:
            return KeyedCoProcessOperator(ctx, *_two_functions(spec), out, side, keys)
        case BroadcastProcessSpec(function=function, descriptors=descriptors):
            return CoBroadcastWithNonKeyedOperator(ctx, function, out, side, list(descriptors))
        case KeyedBroadcastProcessSpec(function=function, descriptors=descriptors, key_selector=key):
            return CoBroadcastWithKeyedOperator(ctx, function, out, side, key, list(descriptors))
        case IntervalJoinSpec(function=function, key_selectors=keys) as spec:
            return IntervalJoinOperator(ctx, function, out, side, keys, spec.inclusive_bounds())
        case PrintSpec(identifier=identifier) as spec:
            return PrintSinkOperator(ctx, spec.renderer(), identifier, spec.subtask_prefix)
        case SinkWriterSpec(sink=sink) as spec:
            writer_ctx = WriterContext(loc.subtask_index, loc.parallelism, env.attempt_number, op.name)
            return SinkWriterOperator(ctx, sink, spec.renderer(), writer_ctx)
        case SinkFunctionSpec(function=function, method=method):
            return SinkFunctionOperator(ctx, *bind_user_function(function, method))
        case CollectSpec(collect_id=collect_id):
            if env.collect_channels is None:
                raise ValueError(f"operator '{op.name}': no collect channels where this chain runs")
            return CollectSinkOperator(ctx, env.collect_channels.channel(collect_id))
        case _:
            assert_never(op.operator)


def operator_context(op: ChainedOperator, env: ChainEnvironment) -> OperatorContext:
    """What the operator of ``op`` gets from its task: names, location, clock, job settings."""
    location = env.location
    return OperatorContext(
        name=op.name,
        location=location,
        runtime_context=StreamingRuntimeContext(
            task_name=location.task_name,
            subtask_index=location.subtask_index,
            parallelism=location.parallelism,
            max_parallelism=op.max_parallelism,
            attempt_number=env.attempt_number,
            job_parameters=env.job_config.global_job_parameters,
            operator_name=op.name,
        ),
        processing_time_service=env.processing_time_service,
        runtime_mode=env.job_config.runtime_mode,
        auto_watermark_interval=env.job_config.auto_watermark_interval,
        final_checkpoint=env.final_checkpoint,
        state_backend=env.job_config.state_backend,
        shared_state_dir=env.shared_state_dir,
        mailbox=env.mailbox,
    )


def _two_functions(spec: TwoInputUdfSpec) -> tuple[Any, Any, Any]:
    function = spec.function
    first, second = spec.methods
    return getattr(function, first), getattr(function, second), function


BROADCAST_OPERATORS = (BroadcastProcessSpec, KeyedBroadcastProcessSpec)


class OperatorChain:
    """The operators of a task, head first (topological order)."""

    def __init__(
        self,
        operators: list[StreamOperator],
        head_spec: ChainedOperator | None = None,
        node_ids: list[int] | None = None,
        outputs: list[tuple[list[StreamOperator], list[ChainOutput]]] | None = None,
    ) -> None:
        self.operators = operators
        self.head = operators[0]
        self.head_spec = head_spec
        self.node_ids = node_ids if node_ids is not None else list(range(len(operators)))
        # per operator: the chained operators and the edges leaving the chain it emits to
        self._outputs = outputs if outputs is not None else [([], []) for _ in operators]

    def records_out(self) -> list[int]:
        """Each operator's numRecordsOut (Flink counts it on the operator's output): what its
        chained operators took in plus what it handed to the edges leaving the chain. Read on
        demand from where records arrive, so nothing more is counted per record."""
        # a task's writers are RecordWriters; a Spark vertex's record gatherers count nothing
        return [
            sum(target.records_in for target in targets)
            + sum(getattr(writer, "records_out", 0) for writer in writers)
            for targets, writers in self._outputs
        ]

    def operator(self, node_id: int) -> StreamOperator:
        """The operator of stream node ``node_id``."""
        return self.operators[self.node_ids.index(node_id)]

    @classmethod
    def create(cls, vertex: JobVertex, env: ChainEnvironment) -> OperatorChain:
        """Instantiate and wire every operator of ``vertex``."""
        built: dict[int, StreamOperator] = {}
        outputs: dict[int, tuple[list[StreamOperator], list[ChainOutput]]] = {}
        by_id = {c.node_id: c for c in vertex.operators}
        for op in reversed(vertex.operators):
            main: list[Emit] = []
            side: dict[str, list[Emit]] = {}
            # outputs where PyFlink hands records to Java: converted to the declared type
            converted: dict[SideOutputTag | None, list[Emit]] = {}
            watermarks: dict[int, Callable[[Any], None]] = {}
            statuses: dict[int, Callable[[Any], None]] = {}
            for target_id, tag in op.chained_targets:
                target = built[target_id]
                if isinstance(by_id[target_id].operator, JAVA_OPERATORS):
                    converted.setdefault(tag, []).append(target.process_batch)
                else:
                    (main if tag is None else side.setdefault(tag.tag_id, [])).append(target.process_batch)
                watermarks[id(target)] = target.process_watermark
                statuses[id(target)] = target.process_watermark_status
            for output in op.non_chained_outputs:
                writer = env.writers[output.data_set_id]
                converted.setdefault(output.output_tag, []).append(writer.emit)
                watermarks[id(writer)] = statuses[id(writer)] = writer.emit_element
            for tag, targets in converted.items():
                declared = op.output_type if tag is None else tag.type_info
                emit = converting(_fan_out(targets), declared, op.name, env.location)
                (main if tag is None else side.setdefault(tag.tag_id, [])).append(emit)
            context = operator_context(op, env)
            side_emits = {tag_id: _fan_out(targets) for tag_id, targets in side.items()}
            operator = create_operator(op, context, _fan_out(main), side_emits, env)
            operator.emit_watermark = _broadcast(list(watermarks.values()))
            operator.emit_watermark_status = _broadcast(list(statuses.values()))
            built[op.node_id] = operator
            outputs[op.node_id] = (
                [built[target_id] for target_id, _ in op.chained_targets],
                [env.writers[output.data_set_id] for output in op.non_chained_outputs],
            )
        node_ids = [op.node_id for op in vertex.operators]
        return cls(
            [built[node_id] for node_id in node_ids],
            vertex.operators[0],
            node_ids,
            [outputs[node_id] for node_id in node_ids],
        )

    def bundle_source_output(self, wrap: Callable[[Emit], Emit]) -> None:
        """A source head hands its batches to the rest of the chain through ``wrap`` (bundles)."""
        head = self.head
        if isinstance(head, SourceOperator | LegacySourceOperator):
            head.wrap_output(wrap)

    def input_handlers(self) -> list[InputHandler]:
        """Where the task's inputs go: the head's one input, or both of a two-input head."""
        head: Any = self.head
        if hasattr(head, "process_batch2"):
            return [
                InputHandler(head.process_batch1, head.process_watermark1, head.process_watermark_status1),
                InputHandler(head.process_batch2, head.process_watermark2, head.process_watermark_status2),
            ]
        return [InputHandler(head.process_batch, head.process_watermark, head.process_watermark_status)]

    def sort_key_selectors(self) -> list[Any] | None:
        """BATCH: per head input, the key selector to sort it by (None: not sorted); None if not keyed."""
        spec = self.head_spec
        if spec is None:
            return None
        keys = two_input_key_selectors(spec.operator)
        if keys is not None:
            return list(keys)
        if spec.state_key_selector is not None:
            return [spec.state_key_selector]
        return None

    def broadcast_input(self) -> int | None:
        """The index of the head's broadcast input, if it reads one."""
        if self.head_spec is not None and isinstance(self.head_spec.operator, BROADCAST_OPERATORS):
            return 1
        return None

    def snapshot_state(
        self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True
    ) -> dict[int, OperatorSnapshot]:
        """Every operator's snapshot, by stream node id (on the task thread, at a barrier;
        ``canonical``: see ``StreamOperator.snapshot_state``)."""
        return {
            node_id: operator.snapshot_state(checkpoint_id, timestamp, canonical)
            for node_id, operator in zip(self.node_ids, self.operators, strict=True)
        }

    def restore_state(self, snapshots: Mapping[int, OperatorSnapshot]) -> None:
        """Put every operator's snapshot back, before ``open``."""
        for node_id, operator in zip(self.node_ids, self.operators, strict=True):
            snapshot = snapshots.get(node_id)
            if snapshot is not None:
                operator.restore_state(snapshot)

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed everywhere (sinks commit what it covers)."""
        for operator in self.operators:
            operator.notify_checkpoint_complete(checkpoint_id)

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
            finally:
                operator.dispose()
        if first is not None:
            raise first
