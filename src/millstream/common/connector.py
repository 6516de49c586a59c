"""The connector contracts the runtime calls, as Flink's ``api.connector`` interfaces.

A ``Source`` makes one ``SourceReader`` per parallel subtask; ``poll(max_records)``
returns a list of elements (empty: nothing right now, ask again after ``available_at``)
or None at the end of a bounded input. A ``Sink`` makes one ``SinkWriter`` per subtask,
and a ``TextRenderer`` renders elements as text for sinks that write lines. Records move
as lists so that per-record framework cost stays small.

Split assignment (FLIP-27): a source that also has ``create_enumerator(context)`` and
``restore_enumerator(context, state)`` gets one ``SplitEnumerator`` on the JobMaster (the
source coordinator). Its readers then start with no splits and ask for one whenever they
run out (``ReaderContext.send_split_request``); the enumerator answers with
``AddSplitsEvent`` or ``NoMoreSplitsEvent``, handed to the reader's ``add_splits`` /
``notify_no_more_splits``, so a faster subtask reads more. Where no coordinator runs (the
Spark runner) the context has no ``send_split_request`` and the source assigns splits
statically. ``millstream.connectors``
implements these; the runtime calls them without importing any connector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "REQUEST_SPLIT",
    "AddSplitsEvent",
    "CheckpointedSourceReader",
    "DeliveryGuarantee",
    "NoMoreSplitsEvent",
    "ReaderContext",
    "RequestSplitEvent",
    "Sink",
    "SinkWriter",
    "Source",
    "SourceReader",
    "SplitEnumerator",
    "SplitEnumeratorContext",
    "TextRenderer",
    "TwoPhaseCommittingSinkWriter",
    "WriterContext",
    "has_enumerator",
]


class DeliveryGuarantee(Enum):
    """What a sink promises across failures (PyFlink's ``connectors.base.DeliveryGuarantee``).

    millstream's sinks: the FileSink and ``TwoPhaseCommitSinkFunction`` sinks are
    EXACTLY_ONCE with checkpoints on (AT_LEAST_ONCE is not offered: they commit with
    checkpoints); ``print``, other ``add_sink`` functions and ``execute_and_collect`` are
    AT_LEAST_ONCE. The connectors that take a guarantee as a setting in Flink (Kafka,
    Pulsar, Elasticsearch ...) do not exist here; the enum is for programs that name it.
    """

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2


@dataclass(frozen=True, slots=True)
class ReaderContext:
    """Where a reader runs."""

    subtask_index: int
    parallelism: int
    operator_name: str = ""
    # asks the source's enumerator for a split (None: no coordinator; splits are static)
    send_split_request: Callable[[], None] | None = field(default=None, compare=False)
    # wakes the task when a reader that returned [] with ``available_at`` = inf has data
    # (a fetcher thread's batch arrived: Flink's SourceReader.isAvailable future)
    signal_available: Callable[[], None] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class RequestSplitEvent:
    """Reader -> enumerator: this subtask has no split left to read (Flink's RequestSplitEvent)."""


@dataclass(frozen=True, slots=True)
class AddSplitsEvent:
    """Enumerator -> reader: read these splits (Flink's AddSplitEvent)."""

    splits: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class NoMoreSplitsEvent:
    """Enumerator -> reader: no split will come any more; end when the ones held are read."""


REQUEST_SPLIT = RequestSplitEvent()


def has_enumerator(source: Any) -> bool:
    """Whether ``source`` may hand its splits out from an enumerator (``create_enumerator``)."""
    return callable(getattr(source, "create_enumerator", None))


@dataclass(frozen=True, slots=True)
class WriterContext:
    """Where a writer runs."""

    subtask_index: int
    parallelism: int
    attempt_number: int = 0
    operator_name: str = ""
    part_uid: str | None = None  # fixed part-file names (idempotent rewrites), else random


class SourceReader(Protocol):
    """Reads this subtask's share of a source.

    Optional, as Flink's ``SourceReader``: ``poll_timestamped(max_records)`` returns
    ``(elements, timestamps)`` with each element's own timestamp (a Kafka record's), or None
    at the end; ``snapshot_state(checkpoint_id)`` takes the checkpoint's id and
    ``notify_checkpoint_complete(checkpoint_id)`` hears when it completed (commit offsets
    for monitoring).
    """

    available_at: float

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` elements; [] if none now; None at end of input."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...


@runtime_checkable
class CheckpointedSourceReader(SourceReader, Protocol):
    """A reader whose position can be checkpointed: after ``restore_state(snapshot_state())``
    on a new reader of the same subtask, it continues exactly after the last element the
    old one returned (FLIP-27's ``SourceReader.snapshotState``)."""

    def snapshot_state(self) -> Any:
        """The position after the last element returned by ``poll`` (plain, picklable data)."""
        ...

    def restore_state(self, state: Any) -> None:
        """Continue from ``state`` (before the first ``poll``)."""
        ...


class Source(Protocol):
    """A bounded or unbounded source (Flink's FLIP-27 ``Source``).

    A source whose job may be restored at another parallelism also has
    ``rescale_reader_states(states, parallelism) -> list``: the reader states of the old
    subtasks (in subtask order) split among ``parallelism`` new readers, as Flink reassigns
    the splits of its readers. Without it such a restore is refused.
    """

    def is_bounded(self) -> bool:
        """Whether the input ends."""
        ...

    def create_reader(self, context: ReaderContext) -> SourceReader:
        """A reader for one subtask."""
        ...


class SplitEnumeratorContext(Protocol):
    """What an enumerator may do (Flink's ``SplitEnumeratorContext``); JobMaster thread only."""

    @property
    def current_parallelism(self) -> int:
        """The number of readers."""
        ...

    def assign_split(self, split: Any, subtask: int) -> None:
        """Hand ``split`` to ``subtask``'s reader."""
        ...

    def signal_no_more_splits(self, subtask: int) -> None:
        """Tell ``subtask``'s reader that no split will come any more."""
        ...

    def call_async(
        self,
        callable_: Callable[[], Any],
        handler: Callable[[Any, BaseException | None], None],
        initial_delay_ms: int = 0,
        period_ms: int = 0,
    ) -> None:
        """Run ``callable_`` on a worker thread (I/O such as listing new files), then
        ``handler(result, error)`` on the JobMaster thread; with ``period_ms``, repeatedly."""
        ...

    def fail_job(self, error: BaseException) -> None:
        """The enumerator cannot go on: fail the job with ``error``."""
        ...


class SplitEnumerator(Protocol):
    """Hands out a source's splits to its readers on the JobMaster (Flink's ``SplitEnumerator``)."""

    def handle_split_request(self, subtask: int) -> None:
        """``subtask`` has no split left: assign it one, or signal that there are no more."""
        ...

    def add_splits_back(self, splits: list[Any], subtask: int) -> None:
        """Splits assigned to ``subtask`` after its last checkpoint, returned because it failed
        or was not running (``subtask`` restarted: it waits for no answer any more)."""
        ...

    def snapshot_state(self, checkpoint_id: int) -> Any:
        """The splits not yet assigned (plain, picklable data)."""
        ...


class SinkWriter(Protocol):
    """Writes this subtask's elements."""

    def write_batch(self, values: list[Any]) -> None:
        """Write elements in order."""
        ...

    def finish(self) -> None:
        """End of input: make everything written visible (commit)."""
        ...

    def close(self) -> None:
        """Release resources (also after failure)."""
        ...


@runtime_checkable
class TwoPhaseCommittingSinkWriter(SinkWriter, Protocol):
    """A writer whose output becomes visible only with a completed checkpoint (Flink's
    TwoPhaseCommittingSink): ``snapshot_state`` at a barrier prepares what was written so far
    for commit (part files become pending), ``notify_checkpoint_complete`` commits it, and a
    writer restored from a completed checkpoint commits what that checkpoint prepared."""

    def snapshot_state(self, checkpoint_id: int) -> Any:
        """Prepare everything written so far for commit with ``checkpoint_id``; plain data."""
        ...

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit what checkpoints up to ``checkpoint_id`` prepared."""
        ...

    def restore_state(self, state: Any) -> None:
        """Commit what the restored (completed) checkpoint prepared; continue from there."""
        ...


class Sink(Protocol):
    """A sink (Flink's ``Sink``).

    A two-phase-commit sink whose job may be restored at another parallelism also has
    ``rescale_writer_states(states, parallelism) -> list``: the writer states of the old
    subtasks for the new ones, every pending commit kept exactly once.
    """

    def create_writer(self, context: WriterContext, renderer: Any) -> SinkWriter:
        """A writer for one subtask; ``renderer`` (a TextRenderer) renders elements as text."""
        ...


class TextRenderer:
    """Renders element batches as text lines.

    ``batch`` (whole batch) and ``fast`` (one element) are quick for well-typed values;
    ``exact`` renders one element exactly and is the fallback when the others raise.
    """

    __slots__ = ("batch", "exact", "fast")

    def __init__(self, exact: Any, fast: Any = None, batch: Any = None) -> None:
        self.exact = exact
        self.fast = fast or exact
        self.batch = batch or (lambda values: "\n".join(map(self.fast, values)))

    def render(self, values: list[Any], prefix: str = "") -> str:
        """The lines of ``values``, each after ``prefix``, joined by newlines (no trailing one)."""
        try:
            if prefix:
                return prefix + ("\n" + prefix).join(map(self.fast, values))
            return self.batch(values)
        except Exception:
            lines = map(self.exact, values)
            return prefix + ("\n" + prefix).join(lines) if prefix else "\n".join(lines)
