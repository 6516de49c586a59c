"""What the Spark runner can run: one check per operator, made before anything starts.

A bounded job runs as Spark RDD jobs (``translation``, Flink's BATCH semantics), where every
operator kind runs in its vertex's operator chain; only sources that never end cannot. An
unbounded job runs on Structured Streaming (``streaming``), where a vertex is either a
stateless ``mapInPandas`` or one keyed ``transformWithStateInPandas``: keyed operators need
a keyed vertex, and event-time semantics must be expressible with Spark's global watermark.
The error names the operator and the reason; a connector that cannot run on Spark at all
says why in its source's ``spark_refusal`` (postgres-cdc).

A bounded job in STREAMING mode runs with BATCH semantics too: ``batch_semantics_notice``
names what that changes for the job's operators, for the warning at submission.
"""

from __future__ import annotations

from typing import Any, assert_never

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.datastream.window.assigners import (
    DynamicProcessingTimeSessionWindows,
    ProcessingTimeSessionWindows,
    SlidingProcessingTimeWindows,
    TumblingProcessingTimeWindows,
)
from millstream.graph.job_graph import ChainedOperator, JobGraph
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
    OperatorSpec,
    PrintSpec,
    ProcessSpec,
    ReduceSpec,
    SinkFunctionSpec,
    SinkWriterSpec,
    SourceSpec,
    TimestampsWatermarksSpec,
    WindowSpec,
)

__all__ = [
    "UnsupportedOnSparkError",
    "UnsupportedStreamingError",
    "batch_semantics_notice",
    "check_batch",
    "check_streaming",
    "is_unbounded",
    "unsupported_streaming",
]


class UnsupportedOnSparkError(ValueError):
    """The job uses something the Spark runner cannot run (names the operator and why)."""


class UnsupportedStreamingError(UnsupportedOnSparkError):
    """An unbounded job uses something Structured Streaming cannot express."""


_LEGACY_SOURCE = (
    "a SourceFunction (add_source) is unbounded to Flink and cannot run bounded on Spark; use "
    "from_source with a bounded Source (collection, file, number sequence, data generator)"
)


def _source_never_ends(source: Any) -> bool:
    bounded = getattr(source, "is_bounded", None)
    return callable(bounded) and not bounded()


def is_unbounded(job_graph: JobGraph) -> bool:
    """Whether a source of the job never ends (a SourceFunction, a monitored file source ...)."""
    for vertex in job_graph.vertices:
        for op in vertex.operators:
            match op.operator:
                case LegacySourceSpec():
                    return True
                case SourceSpec(source=source) if _source_never_ends(source):
                    return True
    return False


def _source_refusal(source: Any) -> str | None:
    """Why a connector's source cannot run on Spark, when it says so (its ``spark_refusal``)."""
    refusal = getattr(source, "spark_refusal", None)
    return refusal if isinstance(refusal, str) else None


def _batch_reason(spec: OperatorSpec) -> str | None:
    match spec:
        case SourceSpec(source=source) if _source_refusal(source) is not None:
            return _source_refusal(source)
        case LegacySourceSpec():
            return _LEGACY_SOURCE
        case SourceSpec(source=source) if _source_never_ends(source):
            return (
                "the source is unbounded; the Spark runner runs bounded jobs (Flink's BATCH semantics) "
                "and unbounded ones are not supported on Spark yet"
            )
        case _:
            return None  # runs in its vertex's operator chain


def check_batch(job_graph: JobGraph) -> None:
    """Raise ``UnsupportedOnSparkError`` for the first operator a bounded Spark job cannot run."""
    for vertex in job_graph.vertices:
        for op in vertex.operators:
            reason = _batch_reason(op.operator)
            if reason is not None:
                raise UnsupportedOnSparkError(f"operator '{op.name}' cannot run on Spark: {reason}")


_PROCESSING_TIME_WINDOWS = (
    TumblingProcessingTimeWindows,
    SlidingProcessingTimeWindows,
    ProcessingTimeSessionWindows,
    DynamicProcessingTimeSessionWindows,
)
_FINAL_VALUES = "each key's final value only, no rolling update per record"
_NOT_LATE = "no record is late (none is dropped behind the watermark or sent to a late-data output)"
_KEY_BY_KEY = "input arrives key by key in timestamp order, timers fire when the key's input ends"
_BROADCAST_FIRST = "the whole broadcast input is read before the other input"
_PROCESSING_TIME = "windows fire when the key's input ends, not by the clock"


def _batch_differences(spec: OperatorSpec, watermarked: bool) -> tuple[str, ...]:
    """What changes for ``spec`` under BATCH semantics (``watermarked``: the job has watermarks)."""
    match spec:
        case ReduceSpec(combined=False):
            return (_FINAL_VALUES,)
        case WindowSpec(assigner=assigner) if isinstance(assigner, _PROCESSING_TIME_WINDOWS):
            return (_PROCESSING_TIME,)
        case WindowSpec(assigner=assigner) if watermarked and assigner.is_event_time():
            return (_NOT_LATE,)
        case IntervalJoinSpec() if watermarked:
            return (_NOT_LATE,)
        case KeyedProcessSpec() | KeyedCoProcessSpec():
            return (_KEY_BY_KEY,)
        case KeyedBroadcastProcessSpec():
            return (_BROADCAST_FIRST, _KEY_BY_KEY)
        case BroadcastProcessSpec():
            return (_BROADCAST_FIRST,)
        case _:
            return ()


def _has_watermarks(job_graph: JobGraph) -> bool:
    for vertex in job_graph.vertices:
        for op in vertex.operators:
            match op.operator:
                case (
                    SourceSpec(watermark_strategy=strategy)
                    | TimestampsWatermarksSpec(watermark_strategy=strategy)
                ):
                    if getattr(strategy, "kind", "none") != "none":
                        return True
    return False


def batch_semantics_notice(job_graph: JobGraph) -> str | None:
    """One line naming what BATCH semantics change for a bounded job in STREAMING mode, or None.

    The Spark runner runs every bounded job as Flink runs one in BATCH mode; a STREAMING
    job's rolling updates, late-data handling, timers firing as time advances and
    checkpoints do not happen there. None: the job asked for BATCH, or nothing it runs
    depends on the mode.
    """
    if job_graph.job_config.runtime_mode is not RuntimeExecutionMode.STREAMING:
        return None
    watermarked = _has_watermarks(job_graph)
    names: dict[str, list[str]] = {}
    for vertex in job_graph.vertices:
        for op in vertex.operators:
            for difference in _batch_differences(op.operator, watermarked):
                names.setdefault(difference, []).append(f"'{op.name}'")
    parts = [f"{', '.join(operators)}: {difference}" for difference, operators in names.items()]
    if job_graph.job_config.checkpointing.enabled:
        parts.append(
            "checkpointing: no checkpoint is taken (snapshot_state and notify_checkpoint_complete "
            "are not called), sinks commit once at the end"
        )
    if not parts:
        return None
    return (
        f"Job '{job_graph.job_name}' is bounded and runs on Spark with BATCH semantics, not STREAMING: "
        f"{'; '.join(parts)}. Set execution.runtime-mode: BATCH to ask for these semantics (and no "
        "warning), or run the job on the embedded runtime or a cluster for STREAMING results"
    )


def _streaming_reason(spec: OperatorSpec, keyed: bool, single_group: bool) -> str | None:
    """Why ``spec`` cannot run in a Structured Streaming vertex (``keyed``: its head is keyed;
    ``single_group``: the vertex reads a broadcast input and runs as one group)."""
    stateful = "needs a keyed input on Structured Streaming"
    match spec:
        case SourceSpec(source=source):
            # its frame is built by ``streaming._source_frame``, which checks the kind
            return _source_refusal(source)
        case LegacySourceSpec():
            return "a SourceFunction (add_source) has no Structured Streaming translation"
        case (
            MapSpec()
            | FlatMapSpec()
            | FilterSpec()
            | BatchMapSpec()
            | ProcessSpec()
            | TimestampsWatermarksSpec()
            | CoMapSpec()
            | CoFlatMapSpec()
            | CoProcessSpec()
            | PrintSpec()
            | SinkWriterSpec()
            | SinkFunctionSpec()
            | CollectSpec()
        ):
            return None
        case WindowSpec(assigner=assigner, late_data_tag=late):
            if not assigner.is_event_time():
                return "processing-time windows depend on Spark's trigger times, not on event time"
            if late is not None:
                return "Spark drops late rows at the stateful operator: no late-data side output"
            return None if keyed else stateful
        case KeyedProcessSpec() | ReduceSpec() | KeyedCoProcessSpec() | IntervalJoinSpec():
            return None if keyed else stateful
        case BroadcastProcessSpec() | KeyedBroadcastProcessSpec():
            return None if single_group else "broadcast state needs its broadcast input in the same vertex"
        case CombineSpec():
            return "a BATCH combiner holds keys until the end of input, which an unbounded job never reaches"
        case AsyncWaitSpec():
            return (
                "async I/O (AsyncDataStream) keeps elements in flight across micro-batches, which a "
                "stateless Structured Streaming vertex cannot checkpoint; run it bounded, or on the "
                "embedded runtime or a cluster"
            )
        case _:
            assert_never(spec)


def check_streaming(op: ChainedOperator, keyed: bool, single_group: bool = False) -> None:
    """Raise ``UnsupportedStreamingError`` if ``op`` cannot run in its Structured Streaming vertex."""
    reason = _streaming_reason(op.operator, keyed, single_group)
    if reason is not None:
        raise unsupported_streaming(op, reason)


def unsupported_streaming(op: ChainedOperator, reason: str) -> UnsupportedStreamingError:
    """The error for ``op`` that Structured Streaming cannot run, and why."""
    where = "Spark Structured Streaming"
    return UnsupportedStreamingError(f"operator '{op.name}' cannot run on {where}: {reason}")
