"""DataStream, KeyedStream and DataStreamSink, as ``pyflink.datastream.data_stream``.

Every call appends one transformation to the environment; nothing runs until
``execute``. Setters (``name``, ``set_parallelism`` ...) replace the frozen
transformation record of this stream.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from millstream.common.typeinfo import PickledBytesTypeInfo, TypeInformation
from millstream.common.user_code import subscript_as_itemgetter
from millstream.common.watermark_strategy import WatermarkStrategy
from millstream.datastream.aggregations import ComparableAggregator, SumAggregator
from millstream.datastream.connected_streams import (
    BroadcastConnectedStream,
    BroadcastStream,
    ConnectedStreams,
)
from millstream.datastream.data_stream_sink import DataStreamSink
from millstream.datastream.functions import (
    FilterFunction,
    FlatMapFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    Partitioner,
    ProcessFunction,
    ReduceFunction,
    SinkFunction,
)
from millstream.datastream.join import CoGroupedStreams, IntervalJoin, JoinedStreams
from millstream.datastream.output_tag import OutputTag
from millstream.datastream.windowed_stream import (
    AllWindowedStream,
    WindowedStream,
    count_window_assigner,
    count_window_trigger,
)
from millstream.graph.operator_specs import (
    BatchMapSpec,
    ChainingStrategy,
    FilterSpec,
    FlatMapSpec,
    KeyedProcessSpec,
    MapSpec,
    OperatorSpec,
    PrintSpec,
    ProcessSpec,
    ReduceSpec,
    SinkFunctionSpec,
    SinkWriterSpec,
    TimestampsWatermarksSpec,
)
from millstream.graph.partitioning import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    ForwardPartitioner,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    ShufflePartitioner,
    typed_key_selector,
)
from millstream.graph.stream_graph import check_max_parallelism, check_parallelism
from millstream.graph.transformations import (
    OneInputTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
)

if TYPE_CHECKING:
    from millstream.datastream.stream_execution_environment import StreamExecutionEnvironment

__all__ = ["DataStream", "DataStreamSink", "KeyedStream"]


def _function_ref(func: Any, cls: type, method: str, what: str) -> tuple[Any, str | None]:
    """(object, method name) for a Function subclass; (callable, None) for a plain callable."""
    if isinstance(func, cls):
        return func, method
    if callable(func):
        return func, None
    raise TypeError(f"The input must be a {what} or a callable function")


def _key_callable(key_selector: Any) -> Any:
    if isinstance(key_selector, KeySelector):
        return key_selector.get_key
    if callable(key_selector):
        return subscript_as_itemgetter(key_selector)
    raise TypeError("The key selector must be a KeySelector or a callable function")


class DataStream:
    """A stream of elements of one type, produced by one transformation."""

    def __init__(self, env: StreamExecutionEnvironment, transformation_id: int) -> None:
        self._env = env
        self._id = transformation_id

    # -- the transformation behind this stream -------------------------------------------

    @property
    def _transformation(self) -> Transformation:
        return self._env._transformations[self._id]

    def _update(self, **changes: Any) -> None:
        self._env._transformations[self._id] = replace(self._transformation, **changes)

    def get_name(self) -> str:
        """Name of the operator producing this stream."""
        return self._transformation.name

    def get_type(self) -> TypeInformation:
        """Declared element type (``PICKLED_BYTE_ARRAY`` if none)."""
        return self._transformation.output_type or PickledBytesTypeInfo()

    def get_execution_environment(self) -> StreamExecutionEnvironment:
        """The environment this stream belongs to."""
        return self._env

    def get_execution_config(self) -> Any:
        """The environment's ExecutionConfig."""
        return self._env.get_config()

    # -- operator settings ---------------------------------------------------------------

    def name(self, name: str) -> DataStream:
        """Name the operator (shown in plans, logs and errors)."""
        self._update(name=name)
        return self

    def uid(self, uid: str) -> DataStream:
        """A stable id for the operator, used to match state across job versions."""
        self._update(uid=uid)
        return self

    def set_uid_hash(self, uid_hash: str) -> DataStream:
        """Use ``uid_hash`` as the operator's id."""
        self._update(uid=uid_hash)
        return self

    def set_description(self, description: str) -> DataStream:
        """A description shown in the JSON plan."""
        self._update(description=description)
        return self

    def set_parallelism(self, parallelism: int) -> DataStream:
        """Parallelism of this operator."""
        check_parallelism(parallelism)
        if self._transformation.non_parallel and parallelism != 1:
            raise ValueError("The parallelism of non parallel operator must be 1.")
        self._update(parallelism=parallelism)
        self._env._parallelism_configured.add(self._id)
        return self

    def set_max_parallelism(self, max_parallelism: int) -> DataStream:
        """Max parallelism (number of key groups) of this operator."""
        check_max_parallelism(max_parallelism)
        self._update(max_parallelism=max_parallelism)
        return self

    def force_non_parallel(self) -> DataStream:
        """Parallelism and max parallelism 1, fixed."""
        self._update(parallelism=1, max_parallelism=1, non_parallel=True)
        return self

    def set_buffer_timeout(self, timeout_millis: int) -> DataStream:
        """Max ms output may wait in a partly filled buffer (0: flush every record)."""
        if timeout_millis < -1:
            raise ValueError("Timeout of buffer must be non-negative or -1")
        self._update(buffer_timeout=timeout_millis)
        return self

    def start_new_chain(self) -> DataStream:
        """Start a new chain at this operator."""
        self._update(chaining_strategy=ChainingStrategy.HEAD)
        return self

    def disable_chaining(self) -> DataStream:
        """Never chain this operator with its neighbours."""
        self._update(chaining_strategy=ChainingStrategy.NEVER)
        return self

    def slot_sharing_group(self, slot_sharing_group: Any) -> DataStream:
        """Put this operator in a slot-sharing group (a name or a ``SlotSharingGroup``)."""
        name = getattr(slot_sharing_group, "get_name", None)
        self._update(slot_sharing_group=name() if callable(name) else str(slot_sharing_group))
        return self

    # -- transformations -----------------------------------------------------------------

    def _one_input(
        self,
        name: str,
        spec: OperatorSpec,
        output_type: Any,
        key_selector: Any = None,
    ) -> DataStream:
        t = OneInputTransformation(
            id=self._env._new_id(),
            name=name,
            parallelism=self._env._default_parallelism_for_new_operator(),
            input=self._id,
            operator=spec,
            output_type=output_type,
            state_key_selector=key_selector,
        )
        return DataStream(self._env, self._env._add(t))

    def _two_input(
        self,
        second_id: int,
        name: str,
        spec: OperatorSpec,
        output_type: Any,
        key_selectors: tuple[Any, Any] | None = None,
    ) -> DataStream:
        """Append a two-input operator reading this stream (input 1) and ``second_id`` (input 2)."""
        t = TwoInputTransformation(
            id=self._env._new_id(),
            name=name,
            parallelism=self._env._default_parallelism_for_new_operator(),
            input1=self._values_id(),
            input2=second_id,
            operator=spec,
            output_type=output_type,
            state_key_selector1=key_selectors[0] if key_selectors else None,
            state_key_selector2=key_selectors[1] if key_selectors else None,
        )
        return DataStream(self._env, self._env._add(t))

    def _keyed_selector(self) -> Any:
        return None

    def map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """One output per element: ``func.map(value)`` or ``func(value)``."""
        fn, method = _function_ref(func, MapFunction, "map", "MapFunction")
        spec = MapSpec(fn, method)
        return self._one_input("Map", spec, output_type, self._keyed_selector())

    def flat_map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Any number of outputs per element: an iterable or generator."""
        fn, method = _function_ref(func, FlatMapFunction, "flat_map", "FlatMapFunction")
        spec = FlatMapSpec(fn, method)
        return self._one_input("FlatMap", spec, output_type, self._keyed_selector())

    def _map_batches(
        self, func: Any, output_type: TypeInformation | None = None, method: str | None = None
    ) -> DataStream:
        """millstream-internal: ``func(values) -> (outputs, kept indexes or None)`` over each
        batch of elements (vectorized operators such as the Table API's Calc). With ``method``
        (``"__call__"``) the task calls ``func.open(runtime_context)`` and ``func.close()``."""
        spec = BatchMapSpec(func, method)
        return self._one_input("Calc", spec, output_type, self._keyed_selector())

    def filter(self, func: Any) -> DataStream:
        """Keep elements for which the predicate is true."""
        fn, method = _function_ref(func, FilterFunction, "filter", "FilterFunction")
        spec = FilterSpec(fn, method)
        return self._one_input("Filter", spec, self._transformation.output_type, self._keyed_selector())

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Run a ProcessFunction; side outputs are yielded as ``(output_tag, value)``."""
        if isinstance(func, KeyedProcessFunction):
            raise TypeError("KeyedProcessFunction can only be applied to a KeyedStream")
        fn, method = _function_ref(func, ProcessFunction, "process_element", "ProcessFunction")
        spec = ProcessSpec(fn, method)
        return self._one_input("Process", spec, output_type)

    def assign_timestamps_and_watermarks(self, watermark_strategy: WatermarkStrategy) -> DataStream:
        """Assign event timestamps and generate watermarks with ``watermark_strategy``.

        Watermarks from upstream are replaced by the ones generated here (except the final
        one at the end of bounded input).
        """
        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise TypeError("assign_timestamps_and_watermarks expects a WatermarkStrategy")
        spec = TimestampsWatermarksSpec(watermark_strategy)
        return self._one_input("Timestamps/Watermarks", spec, self._transformation.output_type)

    def key_by(self, key_selector: Any, key_type: TypeInformation | None = None) -> KeyedStream:
        """Partition by key; operators on the result see one key's elements in one subtask."""
        selector = typed_key_selector(_key_callable(key_selector), key_type)
        partitioner = KeyGroupStreamPartitioner(selector, -1)
        t = PartitionTransformation(
            id=self._env._new_id(),
            name="Partition",
            input=self._id,
            partitioner=partitioner,
            output_type=self._transformation.output_type,
        )
        return KeyedStream(self._env, self._env._add(t), selector, self)

    def union(self, *streams: DataStream) -> DataStream:
        """All elements of this stream and ``streams``."""
        ids = [self._id]
        for s in streams:
            ids.append(s._values_id())
        t = UnionTransformation(
            id=self._env._new_id(),
            name="Union",
            union_inputs=tuple(ids),
            output_type=self._transformation.output_type,
        )
        return DataStream(self._env, self._env._add(t))

    def _values_id(self) -> int:
        return self._id

    def connect(self, ds: Any) -> Any:
        """Pair with ``ds`` for a two-input operator (a BroadcastStream: broadcast state)."""
        if isinstance(ds, BroadcastStream):
            return BroadcastConnectedStream(self, ds)
        if not isinstance(ds, DataStream):
            raise TypeError("connect expects a DataStream or a BroadcastStream")
        return ConnectedStreams(self, ds)

    def join(self, other_stream: DataStream) -> JoinedStreams:
        """Window join: ``.where(k1).equal_to(k2).window(assigner).apply(JoinFunction)``."""
        return JoinedStreams(self, other_stream)

    def co_group(self, other_stream: DataStream) -> CoGroupedStreams:
        """Window co-group: ``.where(k1).equal_to(k2).window(assigner).apply(CoGroupFunction)``."""
        return CoGroupedStreams(self, other_stream)

    def window_all(self, window_assigner: Any) -> AllWindowedStream:
        """Cut the whole stream into windows (one parallel instance)."""
        return AllWindowedStream(self, window_assigner)

    def count_window_all(self, size: int, slide: int = 0) -> AllWindowedStream:
        """Windows of ``size`` elements over the whole stream, every ``slide`` (0: tumbling)."""
        windowed = AllWindowedStream(self, count_window_assigner(size, slide))
        windowed.trigger(count_window_trigger(size))
        return windowed

    def get_side_output(self, output_tag: OutputTag) -> DataStream:
        """The side output ``output_tag`` of the operator producing this stream."""
        if not isinstance(output_tag, OutputTag):
            raise TypeError("get_side_output expects an OutputTag")
        t = SideOutputTransformation(
            id=self._env._new_id(),
            name=f"SideOutput({output_tag.tag_id})",
            input=self._id,
            tag=output_tag,
            output_type=output_tag.type_info,
        )
        return DataStream(self._env, self._env._add(t))

    # -- partitioning --------------------------------------------------------------------

    def _partition(self, partitioner: Any, name: str) -> DataStream:
        t = PartitionTransformation(
            id=self._env._new_id(),
            name=name,
            input=self._id,
            partitioner=partitioner,
            output_type=self._transformation.output_type,
        )
        return DataStream(self._env, self._env._add(t))

    def forward(self) -> DataStream:
        """Subtask i -> subtask i (parallelism must not change)."""
        return self._partition(ForwardPartitioner(), "Forward")

    def rebalance(self) -> DataStream:
        """Round-robin over all downstream subtasks."""
        return self._partition(RebalancePartitioner(), "Rebalance")

    def rescale(self) -> DataStream:
        """Round-robin over a local subset of downstream subtasks."""
        return self._partition(RescalePartitioner(), "Rescale")

    def shuffle(self) -> DataStream:
        """A random downstream subtask per element."""
        return self._partition(ShufflePartitioner(), "Shuffle")

    def broadcast(
        self, broadcast_state_descriptor: Any = None, *other_broadcast_state_descriptors: Any
    ) -> Any:
        """Every element to every downstream subtask; with MapStateDescriptors, a BroadcastStream."""
        stream = self._partition(BroadcastPartitioner(), "Broadcast")
        if broadcast_state_descriptor is not None:
            return BroadcastStream(stream, (broadcast_state_descriptor, *other_broadcast_state_descriptors))
        return stream

    def global_(self) -> DataStream:
        """Every element to the first downstream subtask."""
        return self._partition(GlobalPartitioner(), "Global")

    def partition_custom(self, partitioner: Any, key_selector: Any) -> DataStream:
        """``partitioner.partition(key, n)`` picks the downstream subtask of each element."""
        part = partitioner.partition if isinstance(partitioner, Partitioner) else partitioner
        if not callable(part):
            raise TypeError("The partitioner must be a Partitioner or a callable function")
        wrapper = CustomPartitionerWrapper(part, _key_callable(key_selector))
        return self._partition(wrapper, "Custom")

    # -- sinks ---------------------------------------------------------------------------

    def _sink(self, name: str, spec: OperatorSpec) -> DataStreamSink:
        t = SinkTransformation(
            id=self._env._new_id(),
            name=name,
            parallelism=self._env._default_parallelism_for_new_operator(),
            input=self._values_id(),
            operator=spec,
        )
        return DataStreamSink(DataStream(self._env, self._env._add(t)))

    def print(self, sink_identifier: str | None = None) -> DataStreamSink:
        """Write each element's text to stdout (``N> `` prefixes when parallel; in BATCH mode
        only where the program set the parallelism, as PyFlink prints)."""
        type_info = self.get_type()
        spec = PrintSpec(
            sink_identifier,
            formatter=type_info.print_str,
            fast_formatter=type_info.fast_print_formatter(),
            batch_renderer=type_info.batch_print_renderer(),
        )
        return self._sink("Print to Std. Out", spec)

    def sink_to(self, sink: Any) -> DataStreamSink:
        """Write to a connector sink such as ``FileSink``."""
        if not hasattr(sink, "create_writer"):
            raise TypeError(f"sink_to expects a Sink (such as FileSink), got {type(sink).__name__}")
        type_info = self.get_type()
        spec = SinkWriterSpec(
            sink,
            formatter=type_info.java_str,
            fast_formatter=type_info.fast_java_formatter(),
            batch_renderer=type_info.batch_java_renderer(),
        )
        return self._sink("Sink: Writer", spec)

    def add_sink(self, sink_func: Any) -> DataStreamSink:
        """Call ``sink_func.invoke(value, context)`` (or ``sink_func(value)``) per element; a
        legacy connector (``FlinkKafkaProducer``) runs as its Sink."""
        as_sink = getattr(sink_func, "as_sink", None)
        if as_sink is not None:
            return self.sink_to(as_sink())
        fn, method = _function_ref(sink_func, SinkFunction, "invoke", "SinkFunction")
        spec = SinkFunctionSpec(fn, method)
        return self._sink("Sink: Unnamed", spec)

    def execute_and_collect(self, job_execution_name: str | None = None, limit: int | None = None) -> Any:
        """Run the job and iterate over this stream's elements (a list if ``limit``)."""
        return self._env._execute_and_collect(self, job_execution_name, limit)


# PyFlink spells the global partitioner ``global`` (a keyword in Python source).
setattr(DataStream, "global", DataStream.global_)


class KeyedStream(DataStream):
    """A stream partitioned by key; reduce and process run per key."""

    def __init__(
        self,
        env: StreamExecutionEnvironment,
        transformation_id: int,
        key_selector: Any,
        origin: DataStream,
    ) -> None:
        super().__init__(env, transformation_id)
        self._key_selector = key_selector
        self._origin = origin

    def _keyed_selector(self) -> Any:
        return self._key_selector

    def _values_id(self) -> int:
        return self._id

    def get_key_selector(self) -> Any:
        """The key selector of this stream."""
        return self._key_selector

    def key_by(self, key_selector: Any, key_type: TypeInformation | None = None) -> KeyedStream:
        """Re-key the original stream."""
        return self._origin.key_by(key_selector, key_type)

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Run a KeyedProcessFunction with the key of each element in its context."""
        if not isinstance(func, KeyedProcessFunction):
            raise TypeError("KeyedProcessFunction is required for KeyedStream.")
        spec = KeyedProcessSpec(func, "process_element")
        return self._one_input("KeyedProcess", spec, output_type, self._key_selector)

    def reduce(self, func: Any) -> DataStream:
        """Rolling reduce per key: emits the updated value for every element (STREAMING)."""
        fn, method = _function_ref(func, ReduceFunction, "reduce", "ReduceFunction")
        spec = ReduceSpec(fn, method)
        return self._one_input("Reduce", spec, self._transformation.output_type, self._key_selector)

    def _aggregate(self, aggregator: Any) -> DataStream:
        spec = ReduceSpec(aggregator, "reduce")
        return self._one_input("Reduce", spec, self._transformation.output_type, self._key_selector)

    def sum(self, position_to_sum: int | str = 0) -> DataStream:
        """Rolling sum of a field (tuple index or Row field name); other fields from the first."""
        return self._aggregate(SumAggregator(position_to_sum, self._transformation.output_type))

    def min(self, position_to_min: int | str = 0) -> DataStream:
        """Rolling minimum of a field; the other fields are those of the first element."""
        return self._aggregate(
            ComparableAggregator(position_to_min, "min", False, self._transformation.output_type)
        )

    def max(self, position_to_max: int | str = 0) -> DataStream:
        """Rolling maximum of a field; the other fields are those of the first element."""
        return self._aggregate(
            ComparableAggregator(position_to_max, "max", False, self._transformation.output_type)
        )

    def min_by(self, position_to_min_by: int | str = 0) -> DataStream:
        """The element with the smallest field value so far (the first one on ties)."""
        return self._aggregate(
            ComparableAggregator(position_to_min_by, "min", True, self._transformation.output_type)
        )

    def max_by(self, position_to_max_by: int | str = 0) -> DataStream:
        """The element with the largest field value so far (the first one on ties)."""
        return self._aggregate(
            ComparableAggregator(position_to_max_by, "max", True, self._transformation.output_type)
        )

    def interval_join(self, other: KeyedStream) -> IntervalJoin:
        """Event-time interval join with another keyed stream: ``.between(lower, upper).process(f)``."""
        if not isinstance(other, KeyedStream):
            raise TypeError("interval_join needs two keyed streams")
        return IntervalJoin(self, other)

    def window(self, window_assigner: Any) -> WindowedStream:
        """Cut the keyed stream into windows of ``window_assigner``."""
        return WindowedStream(self, window_assigner)

    def count_window(self, size: int, slide: int = 0) -> WindowedStream:
        """Windows of ``size`` elements per key, every ``slide`` elements (0: tumbling), as PyFlink's."""
        windowed = WindowedStream(self, count_window_assigner(size, slide))
        return windowed.trigger(count_window_trigger(size))

    def _cannot_partition(self, *args: Any, **kwargs: Any) -> DataStream:
        raise Exception("Cannot override partitioning for KeyedStream.")

    forward = rebalance = rescale = shuffle = global_ = broadcast = _cannot_partition

    def partition_custom(self, partitioner: Any, key_selector: Any) -> DataStream:
        """Not allowed on a KeyedStream, as in PyFlink."""
        return self._cannot_partition(partitioner, key_selector)

    def _unsupported(self, what: str) -> Exception:
        return Exception(f"{what} for KeyedStream is not supported.")

    def set_parallelism(self, parallelism: int) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Set parallelism")

    def set_max_parallelism(self, max_parallelism: int) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Set max parallelism")

    def name(self, name: str) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Set name")

    def uid(self, uid: str) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Set uid")

    def set_buffer_timeout(self, timeout_millis: int) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Set buffer timeout")

    def start_new_chain(self) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Start new chain")

    def disable_chaining(self) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise self._unsupported("Disable chaining")

    def slot_sharing_group(self, slot_sharing_group: Any) -> DataStream:
        """Not supported on a KeyedStream (as in PyFlink)."""
        raise Exception("Setting slot sharing group for KeyedStream is not supported.")


setattr(KeyedStream, "global", KeyedStream._cannot_partition)
