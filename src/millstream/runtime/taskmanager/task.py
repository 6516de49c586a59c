"""Task: one subtask attempt on its own thread, with Flink's state machine.

CREATED -> DEPLOYING (partitions and gates set up) -> INITIALIZING (operators built)
-> RUNNING -> FINISHED, or CANCELING -> CANCELED, or FAILED with the cause. Every
transition is reported through ``on_state``. Partitions are released on failure and
cancellation; on success a pipelined one lives until consumed, a blocking one until the
JobMaster releases it. ``on_partition_consumable`` tells the JobMaster when a produced
partition can be read (pipelined: first buffer; blocking: the task finished writing it).
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable
from typing import Any

import cloudpickle

from millstream.graph.job_graph import JobVertex
from millstream.runtime.checkpoint.storage import resolve_state, shared_state_directory
from millstream.runtime.deployment import TaskDeploymentDescriptor
from millstream.runtime.execution_state import ExecutionState, TaskExecutionState, check_transition
from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.record_writer import RecordWriter, flush_all
from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.sinks import CollectChannels
from millstream.runtime.operators.timer_service import ProcessingTimeService
from millstream.runtime.partitioning import (
    KeySelectorError,
    create_channel_selector,
)
from millstream.runtime.state.snapshot import CHANNEL_STATE_KEY
from millstream.runtime.taskmanager.bundles import Bundles
from millstream.runtime.taskmanager.checkpoint_barrier_handler import (
    AlignedBarrierHandler,
    BarrierTracker,
    UnalignedBarrierHandler,
)
from millstream.runtime.taskmanager.cpu_affinity import pin_current_thread
from millstream.runtime.taskmanager.input_processor import StreamTaskNetworkInput
from millstream.runtime.taskmanager.mailbox import Mail, TaskMailbox
from millstream.runtime.taskmanager.network_environment import NetworkEnvironment
from millstream.runtime.taskmanager.operator_chain import ChainEnvironment, OperatorChain
from millstream.runtime.taskmanager.sorted_input import SortedKeyedInput
from millstream.runtime.taskmanager.stream_task import CancelTaskError, CheckpointResponder, StreamTask
from millstream.runtime.taskmanager.task_metrics import TaskMetricsSampler

__all__ = ["Task", "TaskInterruptedError", "load_user_code"]

log = logging.getLogger(__name__)

_USER_CODE_LOCK = threading.Lock()


class TaskInterruptedError(BaseException):
    """Raised asynchronously in the thread of a cancelled task that did not stop (``Task.interrupt``).

    A BaseException, as KeyboardInterrupt: user code's ``except Exception`` does not swallow it.
    """


def load_user_code(payload: bytes, prepare: Callable[[], None] | None = None) -> Any:
    """Unpickle a task's user code, one task at a time per process.

    Unpickling imports the modules the user's functions come from. A user package whose
    ``__init__`` imports its own submodules is an import cycle, and two task threads
    entering it at different modules deadlock on CPython's per-module import locks
    (CPython then hands one of them a partially initialized module). millstream's own
    modules are acyclic (tests/unit/test_import_graph.py); this lock covers the user's, as
    a JVM loads each class once per class loader.

    Args:
        payload: the cloudpickled object.
        prepare: run first under the same lock (makes the job's files importable).
    """
    with _USER_CODE_LOCK:
        if prepare is not None:
            prepare()
        return cloudpickle.loads(payload)


class Task:
    """Runs one TaskDeploymentDescriptor."""

    def __init__(
        self,
        tdd: TaskDeploymentDescriptor,
        serialized_vertex: bytes,
        network: NetworkEnvironment,
        collect_channels: CollectChannels | None,
        on_state: Callable[[TaskExecutionState], None],
        cpus: frozenset[int] | None = None,
        prepare_user_code: Callable[[TaskDeploymentDescriptor], None] | None = None,
        on_partition_consumable: Callable[[ResultPartitionID], None] | None = None,
        checkpoint_responder: CheckpointResponder | None = None,
        operator_events: Callable[[int, Any], None] | None = None,
    ) -> None:
        self.tdd = tdd
        self._operator_events = operator_events  # (node id, event) -> its coordinator
        self._checkpoint_responder = checkpoint_responder
        self._on_partition_consumable = on_partition_consumable
        self._cpus = cpus
        self._prepare_user_code = prepare_user_code
        self._serialized_vertex = serialized_vertex
        self._network = network
        self._collect_channels = collect_channels
        self._on_state = on_state
        self._lock = threading.Lock()
        self._state = ExecutionState.CREATED  # under _lock
        self._stream_task: StreamTask | None = None  # set on the task thread
        self._partitions: list[ResultPartition] = []
        self._flusher_handle: int | None = None  # its writers registered with the output flusher
        self._input: StreamTaskNetworkInput | None = None
        self.location = TaskLocation(
            tdd.job_name, tdd.task_name, tdd.subtask_index, tdd.parallelism, tdd.attempt_number
        )
        self.thread = threading.Thread(target=self._run, name=self.location.describe(), daemon=True)
        self.metrics = TaskMetricsSampler(self)

    @property
    def state(self) -> ExecutionState:
        """Current state."""
        with self._lock:
            return self._state

    def start(self) -> None:
        """Start the task thread."""
        self.thread.start()

    def _transition(self, target: ExecutionState, error: BaseException | None = None) -> bool:
        with self._lock:
            if self._state is target or self._state.is_terminal:
                return False
            if self._state is ExecutionState.CANCELING and target not in (
                ExecutionState.CANCELED,
                ExecutionState.FAILED,
            ):
                return False
            check_transition(self._state, target)
            self._state = target
        metrics = self._final_metrics() if target.is_terminal else None
        self._on_state(TaskExecutionState(self.tdd.execution_attempt_id, target, error, metrics))
        return True

    def _final_metrics(self) -> dict[str, Any] | None:
        """The task's metrics as it ends (the JobMaster keeps them for the REST API)."""
        try:
            sample = self.metrics.sample()
        except Exception:  # a task that failed while starting may lack what a sample reads
            log.debug("no final metrics for %s", self.location.describe(), exc_info=True)
            return None
        sample.pop("channels", None)
        return sample

    def _run(self) -> None:
        # Threads this one starts (a legacy source's) inherit the affinity.
        pin_current_thread(self._cpus)
        try:
            if not self._transition(ExecutionState.DEPLOYING):
                return
            prepare = self._prepare_user_code
            tdd = self.tdd
            vertex: JobVertex = load_user_code(
                self._serialized_vertex,
                (lambda: prepare(tdd)) if prepare is not None else None,  # job files become importable
            )
            stream_task = self._create_stream_task(vertex)
            if not self._transition(ExecutionState.INITIALIZING):
                raise CancelTaskError()
            with self._lock:
                self._stream_task = stream_task
                canceling = self._state is ExecutionState.CANCELING
            if canceling:
                raise CancelTaskError()
            if not self._transition(ExecutionState.RUNNING):
                raise CancelTaskError()
            stream_task.invoke()
            self._network.output_flusher.unregister(self._flusher_handle)
            if self._input is not None:
                self._input.release()  # floating buffers go back to the TaskManager
            if not self._transition(ExecutionState.FINISHED):
                # Cancelled while finishing: the attempt ends CANCELED, as in Flink (never
                # stuck in CANCELING with its thread gone).
                raise CancelTaskError()
        except BaseException as err:
            self._release_on_failure()
            if self.state is ExecutionState.CANCELING or isinstance(err, (CancelTaskError, InterruptedError)):
                self._transition(ExecutionState.CANCELED)
            else:
                self._transition(ExecutionState.FAILED, _attribute(err, self.location))

    def _create_stream_task(self, vertex: JobVertex) -> StreamTask:
        mailbox = TaskMailbox()
        writers = {}
        for rpdd in self.tdd.produced_partitions:
            partition = self._network.create_result_partition(
                rpdd, self._is_canceling, self._on_partition_consumable
            )
            self._partitions.append(partition)
            outputs = [o for op in vertex.operators for o in op.non_chained_outputs]
            output = next(o for o in outputs if o.data_set_id == rpdd.data_set_id)
            selector = create_channel_selector(output.partitioner, rpdd.num_subpartitions)
            local = list(rpdd.local_consumers) if self._network.local_object_exchange else None
            writers[rpdd.data_set_id] = RecordWriter(partition, selector, local or None)
        gates = [
            self._network.create_input_gate(index, igdd, mailbox.signal)
            for index, igdd in enumerate(self.tdd.input_gates)
        ]
        job_config = self.tdd.job_config
        checkpointing = job_config.checkpointing
        final_checkpoint = job_config.takes_checkpoints  # tasks end with a final checkpoint
        timers = ProcessingTimeService()
        env = ChainEnvironment(
            location=self.location,
            attempt_number=self.tdd.attempt_number,
            job_config=job_config,
            writers=writers,
            collect_channels=self._collect_channels,
            processing_time_service=timers,
            final_checkpoint=final_checkpoint,
            shared_state_dir=shared_state_directory(job_config, self.tdd.job_id),
            operator_events=self._operator_events,
            wake_task=mailbox.signal,
            mailbox=lambda action, description: mailbox.put(Mail(action, description)),
        )
        chain = OperatorChain.create(vertex, env)
        restored = resolve_state(self.tdd.restored_state) if self.tdd.restored_state else None
        if restored:
            chain.restore_state(restored)  # before open: Flink's initializeState
        record_writers = list(writers.values())
        self._flusher_handle = self._network.output_flusher.register(record_writers, vertex.buffer_timeout)
        bundles = Bundles(
            job_config.bundle_size,
            job_config.bundle_time,
            vertex.buffer_timeout,
            lambda: flush_all(record_writers),
            vectorized=any(getattr(op, "vectorized", False) for op in chain.operators),
        )
        chain.bundle_source_output(bundles.wrap)
        network_input = None
        sorted_input = None
        if gates:
            handlers = [handler.bundled(bundles.wrap) for handler in chain.input_handlers()]
            batch = job_config.batch
            key_selectors = chain.sort_key_selectors() if batch else None
            if key_selectors is not None:
                sorted_input = SortedKeyedInput(
                    chain.head,
                    handlers,
                    key_selectors,
                    job_config.sorted_inputs_memory_records,
                )
                handlers = sorted_input.handlers()
            network_input = StreamTaskNetworkInput(gates, handlers)
            broadcast_input = chain.broadcast_input()
            if batch and broadcast_input is not None:
                network_input.prioritize(broadcast_input)
        self._input = network_input
        task = StreamTask(
            mailbox, chain, network_input, record_writers, vertex.buffer_timeout, timers, sorted_input
        )
        task.checkpoint_responder = self._checkpoint_responder
        task.final_checkpoint = final_checkpoint
        task.unaligned = checkpointing.unaligned and checkpointing.exactly_once
        # a STREAMING task takes part in checkpoints, and in the savepoints of a job without
        # periodic ones (Flink's coordinator takes those too); a BATCH task in neither
        if not job_config.batch and network_input is not None:
            if task.unaligned:
                network_input.barrier_handler = UnalignedBarrierHandler(
                    network_input.gates,
                    task.start_unaligned_checkpoint,
                    task.complete_unaligned_checkpoint,
                    task.abort_checkpoint,
                )
            else:
                handler_class = AlignedBarrierHandler if checkpointing.exactly_once else BarrierTracker
                network_input.barrier_handler = handler_class(
                    network_input.gates, task.perform_checkpoint, task.abort_checkpoint
                )
        channel_state = restored.get(CHANNEL_STATE_KEY) if restored else None
        if channel_state is not None:
            for index, subpartitions in channel_state.outputs.items():
                record_writers[index].restore_in_flight(subpartitions)
            if network_input is not None:
                network_input.restore_channel_state(channel_state.inputs)
        for partition in self._partitions:
            self._network.partition_manager.register(partition)
        return task

    # -- checkpoints (any thread: handed to the task thread through its mailbox) ------------

    def trigger_checkpoint(
        self, checkpoint_id: int, timestamp: int, savepoint: str | None = None, drain: bool = False
    ) -> None:
        """A source task starts checkpoint ``checkpoint_id`` (the JobMaster triggers sources only;
        other tasks start when the barriers reach them); declined before the task runs.
        ``drain``: the source ends its input first (stop-with-savepoint --drain)."""
        stream_task = self._stream_task
        if stream_task is None:
            if self._checkpoint_responder is not None:
                self._checkpoint_responder.decline(
                    checkpoint_id, "the task is not running yet", "task-not-ready"
                )
            return
        stream_task.mailbox.put(
            Mail(
                lambda: stream_task.trigger_checkpoint(checkpoint_id, timestamp, savepoint, drain),
                f"checkpoint {checkpoint_id}",
            )
        )

    def deliver_operator_event(self, node_id: int, event: Any) -> None:
        """An event from the coordinator of operator ``node_id`` (any thread): handed to the
        operator on the task thread, in order with checkpoint triggers sent after it."""
        stream_task = self._stream_task
        if stream_task is None:
            return  # not running: the coordinator takes back what it sent when the task restarts
        stream_task.mailbox.put(
            Mail(lambda: stream_task.chain.operator(node_id).handle_operator_event(event), "operator event")
        )

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed everywhere."""
        stream_task = self._stream_task
        if stream_task is not None:
            stream_task.mailbox.put(
                Mail(
                    lambda: stream_task.notify_checkpoint_complete(checkpoint_id),
                    f"checkpoint {checkpoint_id} complete",
                )
            )

    def _is_canceling(self) -> bool:
        return self.state is ExecutionState.CANCELING

    def _release_on_failure(self) -> None:
        self._network.output_flusher.unregister(self._flusher_handle)  # before the partitions go
        for partition in self._partitions:
            self._network.partition_manager.release(partition.partition_id)
            partition.release()
        if self._input is not None:
            self._input.release()

    def cancel(self) -> None:
        """Cancel (any thread): the task thread unwinds and reports CANCELED."""
        with self._lock:
            state = self._state
            if state.is_terminal or state is ExecutionState.CANCELING:
                return
            if state is ExecutionState.CREATED:
                self._state = ExecutionState.CANCELED
                stream_task = None
            else:
                self._state = ExecutionState.CANCELING
                stream_task = self._stream_task
        self._on_state(TaskExecutionState(self.tdd.execution_attempt_id, self.state))
        if stream_task is not None:
            stream_task.cancel()

    def interrupt(self) -> bool:
        """Interrupt the thread of a cancelled task that has not stopped (any thread).

        Flink interrupts the task thread; CPython can only raise an exception in it at its
        next Python instruction: user code stuck in a Python loop stops at once, a blocking
        call when it returns. Returns whether the thread was still there to interrupt.
        """
        if self.state is not ExecutionState.CANCELING:
            return False
        log.warning("%s: did not stop after cancellation; interrupting its thread", self.location.describe())
        return _raise_in_thread(self.thread, TaskInterruptedError)


def _raise_in_thread(thread: threading.Thread, error: type[BaseException]) -> bool:
    """Make ``thread`` raise ``error`` at its next Python instruction (CPython's async exception)."""
    if thread.ident is None or not thread.is_alive():
        return False
    hit = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(error))
    return bool(hit == 1)


def _attribute(err: BaseException, location: TaskLocation) -> BaseException:
    """Give errors that do not name their place the task's location."""
    if isinstance(err, UserFunctionError):
        return err
    if isinstance(err, KeySelectorError):
        wrapped = UserFunctionError(
            "key selector / partitioner of an outgoing edge",
            location,
            err.index,
            err.element,
            message=str(err),
        )
        wrapped.__cause__ = err.__cause__ or err
        return wrapped
    failure = RuntimeError(f"task {location.describe()} failed: {err!r}")
    failure.__cause__ = err
    return failure
