"""StreamExecutionEnvironment, as ``pyflink.datastream.StreamExecutionEnvironment``.

The environment records transformations; ``execute`` turns them into a StreamGraph and a
JobGraph and hands the JobGraph to the runner named by ``execution.target`` through the
PipelineExecutor registry, so this module never imports the runtime.
"""

from __future__ import annotations

import os
import sys
import uuid
from dataclasses import replace
from typing import Any

from millstream.common import config_options as opts
from millstream.common import error_report
from millstream.common.checkpointing_options import SAVEPOINT_DIR
from millstream.common.configuration import Configuration, load_global_configuration
from millstream.common.execution_config import ExecutionConfig
from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.common.job_execution_result import JobExecutionResult
from millstream.common.pipeline_executor import get_executor
from millstream.common.restart_strategy import RestartStrategyConfiguration
from millstream.common.watermark_strategy import WatermarkStrategy
from millstream.connectors.collection import CollectionSource
from millstream.connectors.file.source import FileSource, StreamFormat
from millstream.datastream.checkpoint_config import CheckpointConfig, CheckpointingMode
from millstream.datastream.closeable_iterator import CloseableIterator
from millstream.datastream.data_stream import DataStream
from millstream.datastream.functions import SourceFunction
from millstream.datastream.state_backend import StateBackend, state_backend_from_configuration
from millstream.graph.chaining import chain_heads
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import JobGraph
from millstream.graph.job_graph_generator import create_job_graph
from millstream.graph.operator_specs import (
    CollectSpec,
    LegacySourceSpec,
    OperatorSpec,
    PrintSpec,
    SinkWriterSpec,
    SourceSpec,
)
from millstream.graph.plan_printer import stream_graph_json
from millstream.graph.stream_graph import StreamGraph, check_max_parallelism, check_parallelism
from millstream.graph.stream_graph_generator import GraphSettings, IllegalGraphError, generate_stream_graph
from millstream.graph.transformations import (
    SinkTransformation,
    SourceTransformation,
    Transformation,
)

__all__ = ["PlanCaptured", "StreamExecutionEnvironment", "set_context_configuration"]

DEFAULT_JOB_NAME = "Flink Streaming Job"

# Set by ``millstream run`` / ``millstream plan``: settings every environment starts from.
_context_configuration: Configuration | None = None
_capture_plan = False


class PlanCaptured(Exception):
    """Raised by ``execute`` when ``millstream plan`` captures the graph instead of running it."""

    def __init__(self, stream_graph: StreamGraph, job_graph: JobGraph) -> None:
        super().__init__("plan captured")
        self.stream_graph = stream_graph
        self.job_graph = job_graph


def _checkpoint_summary(metrics: dict[str, Any]) -> str:
    """Checkpoints and restarts of a finished job, in a line (empty without either)."""
    parts = []
    if "numberOfCompletedCheckpoints" in metrics:
        text = (
            f"{metrics['numberOfCompletedCheckpoints']} checkpoints completed, "
            f"{metrics['numberOfFailedCheckpoints']} failed"
        )
        if metrics.get("lastCompletedCheckpointId", -1) > 0:
            text += f" (last: {metrics['lastCheckpointDuration']} ms, {metrics['lastCheckpointSize']} bytes"
            path = metrics.get("lastCheckpointExternalPath")
            text += f", {path})" if path else ")"
        parts.append(text)
    restarts = metrics.get("numRestarts", 0)
    if restarts:
        parts.append(f"{restarts} restart{'s' if restarts != 1 else ''}")
    return "; ".join(parts)


def _batch_print_prefixes(graph: StreamGraph, configured: set[int]) -> StreamGraph:
    """BATCH: a print sink shows its subtask (``2> ``) only in a chain where the program set
    the parallelism of an operator (``configured``: their ids), as PyFlink 2.3 prints.

    Flink's adaptive batch scheduler decides the parallelism of every other chain from the
    size of its input, which is 1 for the inputs a program prints (under 16 MiB a subtask),
    and a print sink of parallelism 1 shows no subtask. The chains keep running in parallel
    here; only the prefix follows Flink.
    """
    head_of = chain_heads(graph)
    configured_chains = {head_of[n] for n in configured if n in head_of}
    nodes = dict(graph.nodes)
    for node_id, node in graph.nodes.items():
        if isinstance(node.operator, PrintSpec) and head_of[node_id] not in configured_chains:
            nodes[node_id] = replace(node, operator=replace(node.operator, subtask_prefix=False))
    return replace(graph, nodes=nodes)


def set_context_configuration(configuration: Configuration | None, capture_plan: bool = False) -> None:
    """Make every new environment start from ``configuration`` (used by the CLI)."""
    global _context_configuration, _capture_plan
    _context_configuration = configuration
    _capture_plan = capture_plan


class StreamExecutionEnvironment:
    """The context of a streaming program: settings, sources, and ``execute``."""

    def __init__(self, configuration: Configuration | None = None) -> None:
        self._configuration = load_global_configuration()
        if _context_configuration is not None:
            self._configuration.add_all(_context_configuration)
        if configuration is not None:
            self._configuration.add_all(configuration)
        self._config = ExecutionConfig()
        # Every transformation ever declared (a DataStream refers to its own by id), and the
        # ones declared since the last execute(): a job is those plus everything upstream of
        # them, so streams defined before an earlier execute() can be used again (Flink's
        # getStreamGraph(clearTransformations) clears only its list, never the graph).
        self._transformations: dict[int, Transformation] = {}
        self._pending: list[int] = []
        self._parallelism_configured: set[int] = set()  # ids of set_parallelism's operators
        self._next_id = 0
        self._chaining_enabled = self._configuration.get(opts.CHAINING_ENABLED)
        self._buffer_timeout = self._configuration.get(opts.BUFFER_TIMEOUT)
        self._runtime_mode = RuntimeExecutionMode[self._configuration.get(opts.RUNTIME_MODE).upper()]
        self._python_files: list[str] = []
        if self._configuration.contains_key(opts.DEFAULT_PARALLELISM.key):
            self._config.set_parallelism(self._configuration.get(opts.DEFAULT_PARALLELISM))
        if self._configuration.contains_key(opts.AUTO_WATERMARK_INTERVAL.key):
            self._config.set_auto_watermark_interval(self._configuration.get(opts.AUTO_WATERMARK_INTERVAL))

    @staticmethod
    def get_execution_environment(
        configuration: Configuration | None = None,
    ) -> StreamExecutionEnvironment:
        """A new environment (for the context ``millstream run`` set up, if any)."""
        error_report.install_excepthook()  # a failing job ends ``python job.py`` in a few lines
        return StreamExecutionEnvironment(configuration)

    # -- settings ------------------------------------------------------------------------

    def get_config(self) -> ExecutionConfig:
        """The job's ExecutionConfig."""
        return self._config

    def configure(self, configuration: Configuration) -> StreamExecutionEnvironment:
        """Apply configuration keys (parallelism.default, execution.buffer-timeout ...)."""
        self._configuration.add_all(configuration)
        if configuration.contains_key(opts.DEFAULT_PARALLELISM.key):
            self.set_parallelism(configuration.get(opts.DEFAULT_PARALLELISM))
        if configuration.contains_key(opts.BUFFER_TIMEOUT.key):
            self.set_buffer_timeout(configuration.get(opts.BUFFER_TIMEOUT))
        if configuration.contains_key(opts.RUNTIME_MODE.key):
            mode = configuration.get(opts.RUNTIME_MODE).upper()
            self.set_runtime_mode(RuntimeExecutionMode[mode])
        if configuration.contains_key(opts.AUTO_WATERMARK_INTERVAL.key):
            self._config.set_auto_watermark_interval(configuration.get(opts.AUTO_WATERMARK_INTERVAL))
        if configuration.contains_key(opts.CHAINING_ENABLED.key):
            self._chaining_enabled = configuration.get(opts.CHAINING_ENABLED)
        return self

    def set_parallelism(self, parallelism: int) -> StreamExecutionEnvironment:
        """Default parallelism of operators created after this call."""
        check_parallelism(parallelism)
        self._config.set_parallelism(parallelism)
        return self

    def get_parallelism(self) -> int:
        """The default parallelism (the number of cores if never set, as a local Flink)."""
        return self._resolved_parallelism()

    def set_max_parallelism(self, max_parallelism: int) -> StreamExecutionEnvironment:
        """Default max parallelism (number of key groups)."""
        check_max_parallelism(max_parallelism)
        self._config.set_max_parallelism(max_parallelism)
        return self

    def get_max_parallelism(self) -> int:
        """The default max parallelism (-1: derived per operator)."""
        return self._config.get_max_parallelism()

    def set_buffer_timeout(self, timeout_millis: int) -> StreamExecutionEnvironment:
        """Max ms output waits in a partly filled buffer (0: every record; -1: full buffers)."""
        if timeout_millis < -1:
            raise ValueError("Timeout of buffer must be non-negative or -1")
        self._buffer_timeout = timeout_millis
        return self

    def get_buffer_timeout(self) -> int:
        """The buffer timeout in ms."""
        return self._buffer_timeout

    def disable_operator_chaining(self) -> StreamExecutionEnvironment:
        """Run every operator in its own task."""
        self._chaining_enabled = False
        return self

    def is_chaining_enabled(self) -> bool:
        """Whether operators are chained."""
        return self._chaining_enabled

    def set_runtime_mode(self, execution_mode: RuntimeExecutionMode) -> StreamExecutionEnvironment:
        """STREAMING (default) or BATCH."""
        self._runtime_mode = execution_mode
        return self

    def enable_checkpointing(
        self, interval: int, mode: CheckpointingMode | None = None
    ) -> StreamExecutionEnvironment:
        """Take a checkpoint every ``interval`` ms (EXACTLY_ONCE unless ``mode`` says otherwise)."""
        config = self.get_checkpoint_config()
        config.set_checkpoint_interval(interval)
        config.set_checkpointing_mode(mode if mode is not None else CheckpointingMode.EXACTLY_ONCE)
        return self

    def get_checkpoint_config(self) -> CheckpointConfig:
        """The checkpointing settings (a view of this environment's configuration)."""
        return CheckpointConfig(self._configuration)

    def get_checkpoint_interval(self) -> int:
        """The checkpoint interval (-1: disabled)."""
        return self.get_checkpoint_config().get_checkpoint_interval()

    def get_checkpointing_mode(self) -> CheckpointingMode:
        """EXACTLY_ONCE or AT_LEAST_ONCE."""
        return self.get_checkpoint_config().get_checkpointing_mode()

    get_checkpointing_consistency_mode = get_checkpointing_mode

    def is_unaligned_checkpoints_enabled(self) -> bool:
        """Whether checkpoints are unaligned."""
        return self.get_checkpoint_config().is_unaligned_checkpoints_enabled()

    def is_force_unaligned_checkpoints(self) -> bool:
        """Whether unaligned checkpoints are forced."""
        return self.get_checkpoint_config().is_force_unaligned_checkpoints()

    def set_state_backend(self, state_backend: StateBackend) -> StreamExecutionEnvironment:
        """Keep keyed state in ``state_backend`` (PyFlink 1.x; in 2.x set ``state.backend.type``)."""
        if not isinstance(state_backend, StateBackend):
            raise TypeError(
                "set_state_backend expects a StateBackend (HashMapStateBackend, "
                f"EmbeddedRocksDBStateBackend), got {type(state_backend).__name__}"
            )
        state_backend._apply_to(self._configuration)
        return self

    def get_state_backend(self) -> StateBackend:
        """The state backend the configuration selects."""
        return state_backend_from_configuration(self._configuration)

    def set_default_savepoint_directory(self, directory: str) -> StreamExecutionEnvironment:
        """Where savepoints go when no directory is given (``execution.checkpointing.savepoint-dir``)."""
        self._configuration.set_string(SAVEPOINT_DIR.key, str(directory))
        return self

    def get_default_savepoint_directory(self) -> str | None:
        """The default savepoint directory, if any."""
        return self._configuration.get(SAVEPOINT_DIR) or None

    def set_restart_strategy(self, restart_strategy_configuration: RestartStrategyConfiguration) -> None:
        """Use this restart strategy (PyFlink 1.x; in 2.x set ``restart-strategy.type``)."""
        restart_strategy_configuration.apply_to(self._configuration)

    def add_python_file(self, file_path: str) -> None:
        """Ship a Python file or directory with the job: TaskManagers can import it (``python.files``)."""
        self._python_files.append(os.path.abspath(file_path))

    def get_default_local_parallelism(self) -> int:
        """The number of cores."""
        return os.cpu_count() or 1

    def _resolved_parallelism(self) -> int:
        parallelism = self._config.get_parallelism()
        return parallelism if parallelism > 0 else (os.cpu_count() or 1)

    # -- transformations -----------------------------------------------------------------

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _add(self, transformation: Transformation) -> int:
        self._transformations[transformation.id] = transformation
        self._pending.append(transformation.id)
        return transformation.id

    def _job_transformations(self) -> dict[int, Transformation]:
        """The pending transformations and everything upstream of them, by id."""
        closure: dict[int, Transformation] = {}
        stack = list(self._pending)
        while stack:
            tid = stack.pop()
            if tid not in closure:
                closure[tid] = self._transformations[tid]
                stack.extend(closure[tid].inputs)
        return dict(sorted(closure.items()))

    def _default_parallelism_for_new_operator(self) -> int:
        return self._config.get_parallelism()

    def _source(self, name: str, spec: OperatorSpec, type_info: Any, **kw: Any) -> DataStream:
        t = SourceTransformation(
            id=self._new_id(),
            name=f"Source: {name}",
            parallelism=1 if kw.get("non_parallel") else self._default_parallelism_for_new_operator(),
            operator=spec,
            output_type=type_info,
            **kw,
        )
        return DataStream(self, self._add(t))

    def from_collection(self, collection: Any, type_info: Any = None) -> DataStream:
        """A bounded, non-parallel stream of the collection's elements.

        With ``type_info``, the elements are converted as PyFlink converts them to that Java
        type and back: tuples declared ``Types.ROW_NAMED`` arrive as named Rows.
        """
        elements = list(collection)
        if type_info is not None:
            elements = [type_info.from_python(e) for e in elements]
        spec = SourceSpec(CollectionSource(elements))
        return self._source("Collection Source", spec, type_info, non_parallel=True, max_parallelism=1)

    def read_text_file(self, file_path: str, charset_name: str = "UTF-8") -> DataStream:
        """The lines of a text file or directory (PyFlink 1.x API)."""
        source = FileSource.for_record_stream_format(
            StreamFormat.text_line_format(charset_name), file_path
        ).build()
        return self.from_source(source, WatermarkStrategy.no_watermarks(), file_path)

    def from_source(
        self,
        source: Any,
        watermark_strategy: WatermarkStrategy,
        source_name: str,
        type_info: Any = None,
    ) -> DataStream:
        """A stream read from a connector source (FileSource, NumberSequenceSource ...)."""
        if not hasattr(source, "create_reader"):
            raise TypeError(f"from_source expects a Source, got {type(source).__name__}")
        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise TypeError(
                "from_source expects a WatermarkStrategy (e.g. WatermarkStrategy.no_watermarks())"
            )
        spec = SourceSpec(source, watermark_strategy)
        if type_info is None and hasattr(source, "get_produced_type"):
            type_info = source.get_produced_type()  # the format's row type (Flink's ResultTypeQueryable)
        return self._source(
            source_name,
            spec,
            type_info,
            watermark_strategy=watermark_strategy,
            bounded=source.is_bounded(),
        )

    def add_jars(self, *jars_path: str) -> None:
        """Record jar files in ``pipeline.jars``. Nothing is loaded: millstream runs no JVM, and
        its connectors (Kafka, files) are part of it, so a PyFlink program's
        ``add_jars('file:///.../flink-sql-connector-kafka.jar')`` is not needed and does no harm."""
        self._extend_list_option("pipeline.jars", jars_path)

    def add_classpaths(self, *classpaths: str) -> None:
        """Record classpath URLs in ``pipeline.classpaths`` (nothing is loaded; see add_jars)."""
        self._extend_list_option("pipeline.classpaths", classpaths)

    def _extend_list_option(self, key: str, values: tuple[str, ...]) -> None:
        old = self._configuration.get_string(key, None)
        items = [v for v in (old or "").split(";") if v] + [str(v) for v in values]
        self._configuration.set_string(key, ";".join(items))

    def add_source(
        self, source_func: Any, source_name: str = "Custom Source", type_info: Any = None
    ) -> DataStream:
        """A stream emitted by a user SourceFunction (non-parallel, as in Flink), or by a legacy
        connector (``FlinkKafkaConsumer``) that runs as its FLIP-27 source (parallel)."""
        as_source = getattr(source_func, "as_source", None)
        if as_source is not None:
            strategy = source_func.watermark_strategy() or WatermarkStrategy.no_watermarks()
            return self.from_source(as_source(), strategy, source_name, type_info)
        if not isinstance(source_func, SourceFunction):
            raise TypeError("add_source expects a SourceFunction")
        spec = LegacySourceSpec(source_func)
        return self._source(source_name, spec, type_info, non_parallel=True, max_parallelism=1, bounded=False)

    # -- graphs and execution ------------------------------------------------------------

    def get_stream_graph(
        self, job_name: str | None = None, clear_transformations: bool = False
    ) -> StreamGraph:
        """The StreamGraph of the program so far."""
        if not self._pending:
            raise RuntimeError("No operators defined in streaming topology. Cannot execute.")
        transformations = self._job_transformations()
        settings = GraphSettings(
            job_name=job_name or DEFAULT_JOB_NAME,
            parallelism=self._resolved_parallelism(),
            max_parallelism=self._config.get_max_parallelism(),
            chaining_enabled=self._chaining_enabled,
            buffer_timeout=self._buffer_timeout,
            job_config=JobConfig.from_configuration(
                self._configuration,
                self._resolved_runtime_mode(transformations),
                self._config.get_auto_watermark_interval(),
                self._config.get_global_job_parameters(),
                tuple(self._python_files),
            ),
            batch_shuffle_mode=self._configuration.get(opts.BATCH_SHUFFLE_MODE),
            batch_combine_max_keys=self._configuration.get(opts.BATCH_COMBINE_MAX_KEYS),
        )
        graph = generate_stream_graph(transformations, settings)
        if graph.runtime_mode is RuntimeExecutionMode.BATCH:
            graph = _batch_print_prefixes(graph, self._parallelism_configured)
        if clear_transformations:
            self._pending.clear()
        return graph

    def get_execution_plan(self) -> str:
        """The StreamGraph as JSON in Flink's execution-plan format."""
        return stream_graph_json(self.get_stream_graph())

    def _resolved_runtime_mode(self, transformations: dict[int, Transformation]) -> RuntimeExecutionMode:
        """STREAMING or BATCH; AUTOMATIC is BATCH when every source is bounded (Flink's rule)."""
        sources = [t for t in transformations.values() if isinstance(t, SourceTransformation)]
        unbounded = [t.name for t in sources if not t.bounded]
        mode = self._runtime_mode
        if mode is RuntimeExecutionMode.AUTOMATIC:
            return RuntimeExecutionMode.STREAMING if unbounded else RuntimeExecutionMode.BATCH
        if mode is RuntimeExecutionMode.BATCH and unbounded:
            raise IllegalGraphError(
                f"Detected an UNBOUNDED source ({', '.join(unbounded)}) with the 'execution.runtime-mode' "
                "set to 'BATCH'. This combination is not allowed, please set the "
                "'execution.runtime-mode' to STREAMING or AUTOMATIC"
            )
        return mode

    def _validate_connectors(self) -> None:
        """Before anything runs: each source and sink checks its settings (one-line errors):
        file paths, a Kafka sink's transaction timeout against the checkpoint interval."""
        interval = self.get_checkpoint_interval()
        for transformation in self._job_transformations().values():
            if isinstance(transformation, (SourceTransformation, SinkTransformation)):
                match transformation.operator:
                    case SourceSpec(source=connector) | SinkWriterSpec(sink=connector):
                        validate = getattr(connector, "validate", None)
                        if validate is not None:
                            validate()
                        check = getattr(connector, "check_checkpoint_interval", None)
                        if check is not None and interval > 0:
                            check(interval)

    def _job_graph(self, job_name: str | None) -> JobGraph:
        if not _capture_plan:
            self._validate_connectors()
        stream_graph = self.get_stream_graph(job_name, clear_transformations=True)
        job_graph = create_job_graph(stream_graph)
        if _capture_plan:
            raise PlanCaptured(stream_graph, job_graph)
        return job_graph

    def _executor(self) -> Any:
        return get_executor(self._configuration.get(opts.EXECUTION_TARGET))

    def execute(self, job_name: str | None = None) -> JobExecutionResult:
        """Run the program and wait for it to finish."""
        job_graph = self._job_graph(job_name)
        result: JobExecutionResult = self._executor().execute(job_graph, self._configuration)
        if _context_configuration is not None and result.is_job_execution_result():
            # ``millstream run``: say how checkpoints went (a detached job's are not known here)
            summary = _checkpoint_summary(result.get_all_accumulator_results())
            if summary:
                print(f"millstream: job '{job_graph.job_name}': {summary}", file=sys.stderr)
        return result

    def execute_async(self, job_name: str | None = None) -> Any:
        """Start the program; returns a JobClient."""
        job_graph = self._job_graph(job_name)
        return self._executor().execute_async(job_graph, self._configuration)

    def _execute_and_collect(self, stream: DataStream, job_name: str | None, limit: int | None) -> Any:
        collect_id = uuid.uuid4().hex
        spec = CollectSpec(collect_id)
        t = SinkTransformation(
            id=self._new_id(),
            name="Sink: Data stream collect sink",
            parallelism=1,  # as Flink's collect sink: one subtask, so the elements keep their order
            input=stream._values_id(),
            operator=spec,
        )
        self._add(t)
        client = self.execute_async(job_name)
        iterator = CloseableIterator(client.collect(collect_id), client.close)
        if limit is None:
            return iterator
        with iterator:
            return [value for _, value in zip(range(limit), iterator)]

    def close(self) -> None:
        """Release the environment: the streams declared on it can no longer be executed."""
        self._transformations.clear()
        self._pending.clear()
