"""VertexHost: one subtask of one vertex, its operator chain built and driven outside a TaskManager.

A TaskManager's ``Task`` wires a chain to result partitions, input gates and a mailbox.
Runners that bring their own data movement need only the chain: the Spark runner's vertex
programs (``millstream.spark``: RDD partitions in BATCH, micro-batches and keyed groups in
Structured Streaming) and the operator test harness (``millstream.testing``). They build
it here, the same way a task does (``OperatorChain.create``, one processing-time service,
the job's settings), give it their own ``ChainOutput``s and collect channels, push batches
into ``inputs()``, and drive its time, end of input and state through this class. Called on
the runner's own thread; nothing here starts threads except the processing-time service's
timer thread, which ``close`` stops.

This module is also the Spark runner's one way into the runtime (an import-linter
contract): the few runtime names it needs besides the host are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import ChainedOperator, JobVertex
from millstream.graph.operator_specs import OperatorSpec
from millstream.runtime.executiongraph.intermediate_result import pointwise_wiring
from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.base import Emit, StreamOperator, bind_user_function
from millstream.runtime.operators.elements import MAX_WATERMARK, Watermark, WatermarkStatus
from millstream.runtime.operators.sinks import CollectChannel, CollectChannels
from millstream.runtime.operators.sources import InputStatus, LegacySourceOperator, SourceOperator
from millstream.runtime.operators.timer_service import ProcessingTimeService
from millstream.runtime.operators.watermarks import TimestampsAndWatermarksOperator
from millstream.runtime.partitioning import (
    KeySelectorError,
    RoundRobinChannelSelector,
    create_channel_selector,
)
from millstream.runtime.state.snapshot import OperatorSnapshot
from millstream.runtime.taskmanager.input_processor import InputHandler
from millstream.runtime.taskmanager.operator_chain import (
    ChainEnvironment,
    ChainOutput,
    OperatorChain,
    create_operator,
    operator_context,
)
from millstream.runtime.taskmanager.sorted_input import SortedKeyedInput

__all__ = [
    "MAX_WATERMARK",
    "ChainOutput",
    "CollectChannel",
    "CollectChannels",
    "HeadSnapshot",
    "InputHandler",
    "KeySelectorError",
    "OperatorSnapshot",
    "RoundRobinChannelSelector",
    "StreamOperator",
    "TaskLocation",
    "UserFunctionError",
    "VertexHost",
    "Watermark",
    "WatermarkStatus",
    "bind_user_function",
    "create_channel_selector",
    "pointwise_wiring",
]


HeadSnapshot = OperatorSnapshot  # the head operator's state in the Spark runner's state store


class VertexHost:
    """One subtask of ``vertex``: its chain, its clock, its inputs and its head's state."""

    def __init__(
        self,
        chain: OperatorChain,
        timers: ProcessingTimeService,
        location: TaskLocation,
        job_config: JobConfig,
    ) -> None:
        self.chain = chain
        self.timers = timers
        self.location = location
        self.job_config = job_config
        self._sorted: SortedKeyedInput | None = None

    @classmethod
    def for_vertex(
        cls,
        job_name: str,
        vertex: JobVertex,
        job_config: JobConfig,
        outputs: Mapping[str, ChainOutput],
        collect_channels: CollectChannels | None,
        subtask_index: int = 0,
        parallelism: int | None = None,
        attempt_number: int = 0,
        runtime_mode: RuntimeExecutionMode | None = None,
    ) -> VertexHost:
        """The chain of ``vertex`` as subtask ``subtask_index`` of ``parallelism`` (the vertex's
        by default); ``outputs`` by the data set id of each edge leaving the chain. Periodic
        watermarks are off: the runner decides when time moves."""
        parallelism = vertex.parallelism if parallelism is None else parallelism
        location = TaskLocation(job_name, vertex.name, subtask_index, parallelism, attempt_number)
        config = replace(job_config, auto_watermark_interval=0)
        if runtime_mode is not None:
            config = replace(config, runtime_mode=runtime_mode)
        timers = ProcessingTimeService()
        env = ChainEnvironment(location, attempt_number, config, outputs, collect_channels, timers)
        return cls(OperatorChain.create(vertex, env), timers, location, config)

    @classmethod
    def for_operator(
        cls,
        spec: OperatorSpec,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selector: Any = None,
        name: str = "operator under test",
        subtask_index: int = 0,
        parallelism: int = 1,
        max_parallelism: int = 128,
        job_config: JobConfig | None = None,
        clock: Callable[[], float] | None = None,
    ) -> VertexHost:
        """One operator alone, emitting to ``output`` and ``side_outputs`` (by tag id), on a
        processing-time clock of its own when ``clock`` is given (the test harness)."""
        config = job_config or JobConfig()
        location = TaskLocation("test job", name, subtask_index, parallelism)
        timers = ProcessingTimeService(clock=clock) if clock is not None else ProcessingTimeService()
        op = ChainedOperator(
            node_id=0,
            name=name,
            operator=spec,
            state_key_selector=key_selector,
            max_parallelism=max_parallelism,
            chained_targets=(),
            non_chained_outputs=(),
            output_type=None,
            uid=None,
        )
        env = ChainEnvironment(location, 0, config, {}, None, timers)
        operator = create_operator(op, operator_context(op, env), output, side_outputs, env)
        return cls(OperatorChain([operator], op), timers, location, config)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def head(self) -> StreamOperator:
        """The chain's first operator (the one the inputs feed)."""
        return self.chain.head

    def open(self) -> None:
        """Open every operator (tail first)."""
        self.chain.open()

    def end_input(self) -> None:
        """End of input: stop the clock's timers, then each operator emits what it holds."""
        self.timers.quiesce()
        self.chain.finish()

    def close(self) -> None:
        """Close every operator and stop the timers; releases a sorted input's spill files."""
        self.timers.quiesce()
        try:
            if self._sorted is not None:
                self._sorted.release()
        finally:
            self.chain.close()

    # -- input -----------------------------------------------------------------------------------

    def inputs(self) -> list[InputHandler]:
        """Where each operator input's batches, watermarks and statuses go (BATCH: sorted by key
        when the head is keyed, replayed by ``end_sorted_inputs``)."""
        handlers = self.chain.input_handlers()
        if self.job_config.batch:
            key_selectors = self.chain.sort_key_selectors()
            if key_selectors is not None:
                memory = self.job_config.sorted_inputs_memory_records
                self._sorted = SortedKeyedInput(self.head, handlers, key_selectors, memory)
                return self._sorted.handlers()
        return handlers

    def end_sorted_inputs(self) -> None:
        """BATCH: replay the sorted keyed inputs, then the final watermark of every other input."""
        handlers = self.chain.input_handlers()
        key_selectors = self.chain.sort_key_selectors() if self._sorted is not None else None
        if self._sorted is not None:
            self._sorted.replay()
        for index, handler in enumerate(handlers):
            if key_selectors is None or key_selectors[index] is None:
                handler.process_watermark(MAX_WATERMARK)

    def broadcast_input(self) -> int | None:
        """The head's broadcast input, read before the others in BATCH (as Flink's)."""
        return self.chain.broadcast_input()

    @property
    def is_source(self) -> bool:
        """Whether the chain starts at a source."""
        return isinstance(self.head, SourceOperator | LegacySourceOperator)

    def run_source(self) -> Iterator[None]:
        """Run a source head to its end; yields after every batch it emitted."""
        source = self.head
        assert isinstance(source, SourceOperator)
        while source.emit_next() is not InputStatus.END_OF_INPUT:
            yield None

    def observe_assigned_timestamps(self, observe: Callable[[list[int]], None]) -> bool:
        """Call ``observe(timestamps)`` with every batch of timestamps the chain's timestamp
        assigners give (``assign_timestamps_and_watermarks``), filtered or not further down the
        chain; False if the chain has no assigner."""
        assigners = [op for op in self.chain.operators if isinstance(op, TimestampsAndWatermarksOperator)]
        for op in assigners:
            op.observe_timestamps(observe)
        return bool(assigners)

    # -- time and state of the head (a keyed Spark group) -----------------------------------

    def advance_watermark(self, watermark: int) -> None:
        """Move the head's event time to ``watermark``: timers up to it fire when it advances;
        a smaller one (a group restored from Spark's store) is only set."""
        head = self.head
        if watermark > head.current_watermark:
            head.process_watermark(Watermark(watermark))
        else:
            head.current_watermark = watermark
            if head.timer_service is not None:
                head.timer_service.current_watermark = watermark

    def advance_processing_time(self, now: int) -> None:
        """Fire the head's processing-time timers up to ``now``."""
        if self.head.timer_service is not None:
            self.head.timer_service.advance_processing_time(now)

    def snapshot_head(self) -> HeadSnapshot:
        """The head's keyed state, timers and operator state."""
        return self.head.snapshot_state(0)

    def restore_head(self, snapshot: HeadSnapshot) -> None:
        """Put a snapshot back; the head's watermark restarts at Long.MIN_VALUE."""
        self.head.restore_state(snapshot)
        self.head.current_watermark = -(2**63)
