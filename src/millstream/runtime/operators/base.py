"""StreamOperator: the lifecycle every operator follows, and how user functions are bound.

Lifecycle (driven by the StreamTask): ``open`` (tail of the chain first, calling the
user's ``open(runtime_context)``), ``process_batch`` for every batch of elements,
``finish`` at the end of input (flush what the operator holds), ``close`` (also after
failure, calling the user's ``close``).

Operators receive batches (``values`` plus parallel ``timestamps`` or None) and call
their output with batches; user functions still see one element at a time.

Watermarks: ``process_watermark`` fires the operator's event-time timers up to the
watermark, then forwards it (``emit_watermark``, wired by the chain to every output,
side outputs included; the last one sent is ``output_watermark``). Watermark statuses
are forwarded. Keyed operators own a ``KeyedStateBackend`` (``keyed_backend``) and, if they
use timers, an ``InternalTimerService`` (``timer_service``).

Metrics: ``operator_metrics()`` gives what Flink registers on an operator's metric group
(records in, input and output watermark; operators that count more add theirs), read by
the task's metric sampler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from millstream.common.config_options import AUTO_WATERMARK_INTERVAL
from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.partitioning import key_type_of
from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark, WatermarkStatus
from millstream.runtime.operators.timer_service import InternalTimerService, ProcessingTimeService
from millstream.runtime.state.backends import StateBackendSettings, create_keyed_state_backend
from millstream.runtime.state.key_groups import compute_key_group_range, key_group_function
from millstream.runtime.state.keyed_backend import KeyedStateBackend, KeyedStateError
from millstream.runtime.state.operator_state import OperatorStateBackend
from millstream.runtime.state.snapshot import SNAPSHOT_VERSION, OperatorSnapshot, keyed_snapshots

__all__ = [
    "Emit",
    "FunctionInitializationContext",
    "FunctionSnapshotContext",
    "OperatorContext",
    "StreamOperator",
    "StreamingRuntimeContext",
    "bind_user_function",
    "record_count",
]

Emit = Callable[[list[Any], "list[int] | None"], None]


@dataclass
class StreamingRuntimeContext:
    """The RuntimeContext user functions receive in ``open`` (PyFlink's method names)."""

    task_name: str
    subtask_index: int
    parallelism: int
    max_parallelism: int
    attempt_number: int
    job_parameters: dict[str, str] = field(default_factory=dict)
    operator_name: str = ""
    keyed_backend: KeyedStateBackend | None = None

    def get_task_name(self) -> str:
        """Name of the task (the operator chain)."""
        return self.task_name

    def get_number_of_parallel_subtasks(self) -> int:
        """Parallelism of the operator."""
        return self.parallelism

    def get_max_number_of_parallel_subtasks(self) -> int:
        """Max parallelism of the operator."""
        return self.max_parallelism

    def get_index_of_this_subtask(self) -> int:
        """0-based subtask index."""
        return self.subtask_index

    def get_attempt_number(self) -> int:
        """0 on the first attempt."""
        return self.attempt_number

    def get_task_name_with_subtasks(self) -> str:
        """``name (i/n)#attempt``."""
        return f"{self.task_name} ({self.subtask_index + 1}/{self.parallelism})#{self.attempt_number}"

    def get_job_parameter(self, key: str, default_value: str) -> str:
        """A global job parameter."""
        return self.job_parameters.get(key, default_value)

    def get_metrics_group(self) -> Any:
        """Metrics are reported per task by the runtime; user metric groups come later."""
        raise NotImplementedError("user metric groups are not supported yet")

    def _keyed(self) -> KeyedStateBackend:
        if self.keyed_backend is None:
            raise KeyedStateError(
                "Keyed state can only be used on a 'keyed stream', i.e., after a 'keyBy()' "
                f"operation (operator '{self.operator_name}')."
            )
        return self.keyed_backend

    def get_state(self, state_descriptor: Any) -> Any:
        """The ValueState of the current key."""
        return self._keyed().get_state(state_descriptor)

    def get_list_state(self, state_descriptor: Any) -> Any:
        """The ListState of the current key."""
        return self._keyed().get_state(state_descriptor)

    def get_map_state(self, state_descriptor: Any) -> Any:
        """The MapState of the current key."""
        return self._keyed().get_state(state_descriptor)

    def get_reducing_state(self, state_descriptor: Any) -> Any:
        """The ReducingState of the current key."""
        return self._keyed().get_state(state_descriptor)

    def get_aggregating_state(self, state_descriptor: Any) -> Any:
        """The AggregatingState of the current key."""
        return self._keyed().get_state(state_descriptor)


@dataclass
class OperatorContext:
    """What an operator needs from its task."""

    name: str
    location: TaskLocation
    runtime_context: StreamingRuntimeContext
    collect_channels: Any = None
    clock: Callable[[], float] | None = None
    processing_time_service: ProcessingTimeService = field(default_factory=ProcessingTimeService)
    runtime_mode: RuntimeExecutionMode = RuntimeExecutionMode.STREAMING
    auto_watermark_interval: int = AUTO_WATERMARK_INTERVAL.default
    # the task ends with a final checkpoint (FLIP-147): two-phase-commit sinks commit their
    # last output when it completes, not at ``finish``
    final_checkpoint: bool = False
    state_backend: StateBackendSettings = field(default_factory=StateBackendSettings)
    # the job's shared directory for state files (RocksDB's incremental checkpoints); None:
    # the job keeps no checkpoints in a directory
    shared_state_dir: str | None = None
    # runs ``action`` on the task thread between inputs (any thread; Flink's MailboxExecutor);
    # None: no mailbox (a runner driving the chain itself), the operator waits for its work
    mailbox: Callable[[Callable[[], None], str], None] | None = None

    @property
    def batch(self) -> bool:
        """Whether the job runs with BATCH semantics (final results only, one watermark at the end)."""
        return self.runtime_mode is RuntimeExecutionMode.BATCH


class FunctionInitializationContext:
    """What ``CheckpointedFunction.initialize_state`` receives."""

    __slots__ = ("_keyed", "_operator_state")

    def __init__(self, operator_state: OperatorStateBackend, keyed: KeyedStateBackend | None) -> None:
        self._operator_state = operator_state
        self._keyed = keyed

    def is_restored(self) -> bool:
        """Whether the state was restored from a snapshot."""
        return self._operator_state.is_restored()

    def get_operator_state_store(self) -> OperatorStateBackend:
        """List, union list and broadcast state of this subtask."""
        return self._operator_state

    def get_keyed_state_store(self) -> KeyedStateBackend:
        """Keyed state (keyed streams only)."""
        if self._keyed is None:
            raise KeyedStateError("Keyed state can only be used on a 'keyed stream'.")
        return self._keyed


class FunctionSnapshotContext:
    """What ``CheckpointedFunction.snapshot_state`` receives (Flink's FunctionSnapshotContext)."""

    __slots__ = ("_checkpoint_id", "_timestamp")

    def __init__(self, checkpoint_id: int, timestamp: int) -> None:
        self._checkpoint_id = checkpoint_id
        self._timestamp = timestamp

    def get_checkpoint_id(self) -> int:
        """The id of the checkpoint being taken."""
        return self._checkpoint_id

    def get_checkpoint_timestamp(self) -> int:
        """When the JobManager triggered the checkpoint (epoch milliseconds)."""
        return self._timestamp


def record_count(values: list[Any]) -> int:
    """The records ``values`` stand for: one per element, except elements that carry several
    (a columnar scan's Arrow batch says how many with ``record_count``), as Flink counts the
    rows of a batch in ``numRecordsIn``."""
    if not values:
        return 0
    if getattr(values[0], "record_count", None) is None:
        return len(values)
    return sum(getattr(v, "record_count", 1) for v in values)


def _drop(element: Any) -> None:
    return None


def bind_user_function(function: Any, method: str | None) -> tuple[Callable[..., Any], Any]:
    """(hot callable, object with open/close or None) for an operator spec's function."""
    if method is None:
        return function, None
    return getattr(function, method), function


class StreamOperator:
    """Base operator: lifecycle with user-function open/close and error attribution."""

    def __init__(self, context: OperatorContext, lifecycle: Any = None) -> None:
        self.context = context
        self.name = context.name
        self._lifecycle = lifecycle
        self.records_in = 0  # owner: task thread
        self._opened = False
        self.current_watermark = MIN_TIMESTAMP
        self.output_watermark = MIN_TIMESTAMP  # owner: task thread: the last one emitted
        self._emit_watermark: Callable[[Watermark], None] = _drop
        self.emit_watermark = _drop  # wired by the chain
        self.emit_watermark_status: Callable[[WatermarkStatus], None] = _drop
        self.keyed_backend: KeyedStateBackend | None = None
        self.timer_service: InternalTimerService | None = None
        self._operator_state: OperatorStateBackend | None = None

    @property
    def emit_watermark(self) -> Callable[[Watermark], None]:
        """Hands a watermark to every output of the operator (wired by the chain), keeping it
        as ``output_watermark`` (Flink's ``currentOutputWatermark``)."""
        return self._emit_watermark

    @emit_watermark.setter
    def emit_watermark(self, emit: Callable[[Watermark], None]) -> None:
        def emit_and_keep(watermark: Watermark) -> None:
            self.output_watermark = watermark.timestamp
            emit(watermark)

        self._emit_watermark = emit_and_keep

    def operator_metrics(self) -> dict[str, float]:
        """This operator's metrics, Flink's names on its operator metric group: the records it
        took in and the watermark it last took in and sent on. Read by the task's metric
        sampler on another thread (plain numbers: a moment stale at worst)."""
        return {
            "numRecordsIn": self.records_in,
            "currentInputWatermark": self.current_watermark,
            "currentOutputWatermark": self.output_watermark,
        }

    @property
    def operator_state_backend(self) -> OperatorStateBackend:
        """Operator (list, union list, broadcast) state of this subtask, created on first use."""
        if self._operator_state is None:
            self._operator_state = OperatorStateBackend()
        return self._operator_state

    def create_keyed_backend(self, key_selector: Any = None) -> KeyedStateBackend:
        """Give this (keyed) operator its state backend, for its subtask's key groups.

        ``key_selector`` carries the declared key type, which decides each key's group
        (the same as the partitioner that routed the key here).
        """
        rc = self.context.runtime_context
        key_groups = compute_key_group_range(rc.max_parallelism, rc.parallelism, rc.subtask_index)
        key_group = key_group_function(rc.max_parallelism, key_type_of(key_selector))
        self.keyed_backend = create_keyed_state_backend(
            self.context.state_backend,
            rc.max_parallelism,
            key_groups,
            key_group,
            name=f"{self.name} ({rc.subtask_index + 1}/{rc.parallelism})",
            batch=self.context.batch,
            shared_dir=self.context.shared_state_dir,
        )
        rc.keyed_backend = self.keyed_backend
        return self.keyed_backend

    def create_timer_service(self, triggerable: Any) -> InternalTimerService:
        """Keyed timers calling ``triggerable.on_event_time / on_processing_time``."""
        backend = self.keyed_backend or self.create_keyed_backend()
        self.timer_service = InternalTimerService(backend, self.context.processing_time_service, triggerable)
        return self.timer_service

    def process_watermark(self, watermark: Watermark) -> None:
        """Fire event-time timers up to the watermark, then forward it."""
        self.current_watermark = watermark.timestamp
        if self.timer_service is not None:
            self.timer_service.advance_watermark(watermark.timestamp)
        self.emit_watermark(watermark)

    def process_watermark_status(self, status: WatermarkStatus) -> None:
        """Forward the status."""
        self.emit_watermark_status(status)

    def snapshot_state(
        self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True
    ) -> OperatorSnapshot:
        """Everything this operator must get back after a failure (at a checkpoint barrier).

        A ``CheckpointedFunction`` first brings its operator state up to date
        (``snapshot_state(context)``), as Flink calls it before the state backends snapshot.
        ``canonical``: keyed state in the canonical form (savepoints, final checkpoints);
        otherwise the backend may snapshot natively (RocksDB's incremental checkpoints).
        """
        snapshot_fn = getattr(self._lifecycle, "snapshot_state", None)
        if snapshot_fn is not None and self._opened:
            try:
                snapshot_fn(FunctionSnapshotContext(checkpoint_id, timestamp))
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="snapshot_state() raised"
                ) from err
        event_timers: list[tuple[int, Any, Any]] = []
        processing_timers: list[tuple[int, Any, Any]] = []
        if self.timer_service is not None:
            event_timers, processing_timers = self.timer_service.snapshot_timers()
        return OperatorSnapshot(
            self.snapshot_keyed_state(checkpoint_id, canonical),
            event_timers,
            processing_timers,
            self.snapshot_operator_state(),
            self.snapshot_extra_state(checkpoint_id),
        )

    def restore_state(self, snapshot: OperatorSnapshot) -> None:
        """Put a snapshot back, before ``open`` (Flink's ``initializeState``)."""
        if snapshot.version != SNAPSHOT_VERSION:
            raise ValueError(
                f"operator '{self.name}': snapshot version {snapshot.version}, this millstream reads "
                f"{SNAPSHOT_VERSION}"
            )
        self.restore_keyed_state(snapshot.keyed)
        self.restore_operator_state(snapshot.operator_state)
        if self.timer_service is not None:
            self.timer_service.restore_timers(snapshot.event_timers, snapshot.processing_timers)
        self.restore_extra_state(snapshot.extra)

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed everywhere; the state backend (files it may
        reference from now on) and the user function hear of it."""
        if self.keyed_backend is not None:
            self.keyed_backend.notify_checkpoint_complete(checkpoint_id)
        notify = getattr(self._lifecycle, "notify_checkpoint_complete", None)
        if notify is not None:
            notify(checkpoint_id)

    def handle_operator_event(self, event: Any) -> None:
        """An event from this operator's coordinator on the JobMaster (task thread)."""
        raise ValueError(f"operator '{self.name}' has no coordinator; it got {event!r}")

    def snapshot_extra_state(self, checkpoint_id: int) -> Any:
        """What is particular to this operator (a source's position); None: nothing."""
        return None

    def restore_extra_state(self, extra: Any) -> None:
        """Put back ``snapshot_extra_state``'s data."""

    def snapshot_keyed_state(self, checkpoint_id: int = 0, canonical: bool = True) -> Any:
        """This operator's keyed state (every key it holds): a KeyedStateSnapshot, or the
        backend's native snapshot when ``canonical`` is False and it has one."""
        if self.keyed_backend is None:
            return ()
        return self.keyed_backend.checkpoint_snapshot(checkpoint_id, canonical)

    def restore_keyed_state(self, snapshot: Any) -> None:
        """Replace the keyed state with that of this subtask's key groups in ``snapshot`` (one
        KeyedStateSnapshot, or a list of them when the operator was rescaled)."""
        if self.keyed_backend is not None:
            self.keyed_backend.restore(keyed_snapshots(snapshot))
        elif snapshot:
            raise KeyedStateError(f"operator '{self.name}' holds no keyed state but its snapshot does")

    def snapshot_operator_state(self) -> Any:
        """This operator's operator state (list, union list, broadcast), as plain data."""
        return self._operator_state.snapshot() if self._operator_state is not None else {}

    def restore_operator_state(self, snapshot: Any) -> None:
        """Replace the operator state with a snapshot of ``snapshot_operator_state``."""
        if snapshot or self._operator_state is not None:
            self.operator_state_backend.restore(snapshot)

    def end_of_key(self) -> None:
        """BATCH (sorted input): the current key is complete: fire its timers, emit, drop its state."""
        if self.timer_service is not None:
            self.timer_service.fire_all_for_end_of_key()
        collector = getattr(self, "_collector", None)
        if collector is not None:
            collector.flush()
        if self.keyed_backend is not None:
            self.keyed_backend.clear_all()

    def open(self) -> None:
        """``initialize_state`` of a CheckpointedFunction, then the user's ``open``."""
        self._opened = True
        if self._lifecycle is not None and hasattr(self._lifecycle, "initialize_state"):
            context = FunctionInitializationContext(self.operator_state_backend, self.keyed_backend)
            try:
                self._lifecycle.initialize_state(context)
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="initialize_state() raised"
                ) from err
        if self._lifecycle is not None and hasattr(self._lifecycle, "open"):
            try:
                self._lifecycle.open(self.context.runtime_context)
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="open() raised"
                ) from err

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Process a batch of elements."""
        raise NotImplementedError

    def finish(self) -> None:
        """End of input: emit whatever the operator still holds."""

    def close(self) -> None:
        """Call the user function's ``close``."""
        if self._opened and self._lifecycle is not None and hasattr(self._lifecycle, "close"):
            self._opened = False
            try:
                self._lifecycle.close()
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="close() raised"
                ) from err

    def dispose(self) -> None:
        """Release the state backend's resources (a RocksDB instance and its files); after
        ``close``, also when the task failed or was cancelled."""
        backend = self.keyed_backend
        if backend is not None:
            self.keyed_backend = None
            backend.dispose()

    def error(self, offset: int, values: list[Any]) -> UserFunctionError:
        """The error for a user function that raised on ``values[offset]``."""
        record = values[offset] if 0 <= offset < len(values) else None
        return UserFunctionError(self.name, self.context.location, self.records_in + offset, record)
