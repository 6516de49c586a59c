"""FileSink: rows (a row format) or records in bulk (CSV, Parquet) written to part files.

As Flink's ``FileSink``: each subtask writes to an in-progress file
``.part-<uuid>-<subtask>-<n>.inprogress.<id>`` inside its bucket directory and renames it
to ``part-<uuid>-<subtask>-<n>`` when the rolling policy rolls the file and at the end of
input. The default bucket assigner is ``yyyy-MM-dd--HH`` of processing time, as in Flink.
"""

from __future__ import annotations

import datetime
import errno
import os
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from millstream.common.connector import TextRenderer, WriterContext
from millstream.common.time import java_pattern_to_strftime
from millstream.connectors.base import check_reader_state_version

__all__ = [
    "BucketAssigner",
    "BulkFileWriter",
    "BulkFormatBuilder",
    "FileSink",
    "OutputFileConfig",
    "RollingPolicy",
]


@dataclass(frozen=True, slots=True)
class OutputFileConfig:
    """Part file name prefix and suffix."""

    part_prefix: str = "part"
    part_suffix: str = ""

    @staticmethod
    def builder() -> OutputFileConfigBuilder:
        """A builder."""
        return OutputFileConfigBuilder()

    def get_part_prefix(self) -> str:
        """The prefix."""
        return self.part_prefix

    def get_part_suffix(self) -> str:
        """The suffix."""
        return self.part_suffix


@dataclass
class OutputFileConfigBuilder:
    """Builds an ``OutputFileConfig``."""

    config: OutputFileConfig = field(default_factory=OutputFileConfig)

    def with_part_prefix(self, prefix: str) -> OutputFileConfigBuilder:
        """Part files start with ``prefix``."""
        self.config = replace(self.config, part_prefix=prefix)
        return self

    def with_part_suffix(self, suffix: str) -> OutputFileConfigBuilder:
        """Part files end with ``suffix``."""
        self.config = replace(self.config, part_suffix=suffix)
        return self

    def build(self) -> OutputFileConfig:
        """The config."""
        return self.config


@dataclass(frozen=True, slots=True)
class RollingPolicy:
    """When a part file is closed and a new one started (Flink's DefaultRollingPolicy)."""

    part_size: int = 128 * 1024 * 1024
    rollover_interval_ms: int = 60_000
    inactivity_interval_ms: int = 60_000
    on_checkpoint: bool = False

    @staticmethod
    def default_rolling_policy(
        part_size: int = 128 * 1024 * 1024,
        rollover_interval: int = 60_000,
        inactivity_interval: int = 60_000,
    ) -> RollingPolicy:
        """Roll at ``part_size`` bytes or after ``rollover_interval`` ms."""
        return RollingPolicy(part_size, rollover_interval, inactivity_interval)

    @staticmethod
    def on_checkpoint_rolling_policy() -> RollingPolicy:
        """Roll on every checkpoint (and at end of input)."""
        return RollingPolicy(on_checkpoint=True)


@dataclass(frozen=True, slots=True)
class BucketAssigner:
    """Which sub-directory (bucket) an element goes to."""

    kind: str = "date_time"
    format: str = "yyyy-MM-dd--HH"
    timezone: str | None = None

    @staticmethod
    def base_path_bucket_assigner() -> BucketAssigner:
        """Everything directly in the base path."""
        return BucketAssigner("base_path")

    @staticmethod
    def date_time_bucket_assigner(
        format_str: str = "yyyy-MM-dd--HH", timezone_id: str | None = None
    ) -> BucketAssigner:
        """A directory per processing-time hour (by default)."""
        return BucketAssigner("date_time", format_str, timezone_id)

    def bucket_id(self, now: float) -> str:
        """Bucket of an element written at ``now`` (epoch seconds)."""
        if self.kind == "base_path":
            return ""
        tz = datetime.UTC if self.timezone in ("UTC", "Z") else None
        moment = datetime.datetime.fromtimestamp(now, tz)
        return moment.strftime(java_pattern_to_strftime(self.format))


def _by_bucket(assigner: Any, values: list[Any], now: float) -> list[tuple[str, list[Any]]]:
    """The elements of a batch by bucket: the assigner's time bucket, or, for an assigner
    with ``bucket_of(element) -> (bucket, value)`` (a table's partitions), each element's."""
    bucket_of = getattr(assigner, "bucket_of", None)
    if bucket_of is None:
        return [(assigner.bucket_id(now), values)]
    groups: dict[str, list[Any]] = {}
    for element in values:
        bucket, value = bucket_of(element)
        groups.setdefault(bucket, []).append(value)
    return list(groups.items())


class FileSink:
    """Writes elements as text lines into part files under ``base_path``."""

    def __init__(
        self,
        base_path: str,
        encoder: Any,
        output_file_config: OutputFileConfig,
        rolling_policy: RollingPolicy,
        bucket_assigner: BucketAssigner,
        bulk_writer_factory: Any = None,
    ) -> None:
        self.base_path = base_path.removeprefix("file://")
        self.encoder = encoder
        self.output_file_config = output_file_config
        self.rolling_policy = rolling_policy
        self.bucket_assigner = bucket_assigner
        self.bulk_writer_factory = bulk_writer_factory  # bulk format: files written by this factory

    @staticmethod
    def for_row_format(base_path: str, encoder: Any) -> RowFormatBuilder:
        """A builder for a row-format sink writing ``encoder``'s text of each element."""
        return RowFormatBuilder(str(base_path), encoder)

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory: Any) -> BulkFormatBuilder:
        """A builder for a bulk-format sink (CSV, Parquet) whose part files ``writer_factory``
        writes; as in Flink, they roll only on checkpoints and at the end of input."""
        if not hasattr(writer_factory, "create"):
            raise TypeError(
                "for_bulk_format expects a bulk writer factory (CsvBulkWriters.for_schema, "
                f"ParquetBulkWriters.for_row_type), got {type(writer_factory).__name__}"
            )
        return BulkFormatBuilder(str(base_path), writer_factory)

    def validate(self) -> None:
        """Before the job starts: the output directory exists or can be created.

        Raises:
            OSError: one line naming the directory and the OS error.
        """
        try:
            os.makedirs(self.base_path, exist_ok=True)
            if not os.access(self.base_path, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        except OSError as err:
            raise type(err)(
                f"FileSink: cannot create the output directory {self.base_path}: {err.strerror or err}"
            ) from None

    def rescale_writer_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The writer states of the old subtasks for ``parallelism`` new ones: old subtask i's
        pending part files are committed by new subtask ``i % parallelism``; a new subtask
        that was an old one keeps its part-file names going, the others start new ones."""
        out: list[Any] = [None] * parallelism
        for index, state in enumerate(states):
            if state is None:
                continue
            check_reader_state_version(state)
            target = index % parallelism
            merged = out[target]
            if merged is None:
                merged = out[target] = {"version": 1, "uid": None, "counter": 0, "pending": {}}
            if index == target:
                merged["uid"], merged["counter"] = state["uid"], state["counter"]
            for checkpoint_id, files in state["pending"].items():
                merged["pending"].setdefault(checkpoint_id, []).extend(files)
        return out

    def create_writer(self, context: WriterContext, renderer: TextRenderer) -> FileWriter:
        """The writer of one subtask; ``renderer`` turns elements into text lines."""
        if self.bulk_writer_factory is not None:
            return BulkFileWriter(self, context)
        return FileWriter(self, context, renderer)


@dataclass
class RowFormatBuilder:
    """Builds a row-format ``FileSink``."""

    base_path: str
    encoder: Any
    output_file_config: OutputFileConfig = field(default_factory=OutputFileConfig)
    rolling_policy: RollingPolicy = field(default_factory=RollingPolicy)
    bucket_assigner: BucketAssigner = field(default_factory=BucketAssigner)

    def with_output_file_config(self, config: OutputFileConfig) -> RowFormatBuilder:
        """Part file prefix/suffix."""
        self.output_file_config = config
        return self

    def with_rolling_policy(self, policy: RollingPolicy) -> RowFormatBuilder:
        """When to roll part files."""
        self.rolling_policy = policy
        return self

    def with_bucket_assigner(self, assigner: BucketAssigner) -> RowFormatBuilder:
        """Which bucket directory each element goes to."""
        self.bucket_assigner = assigner
        return self

    def with_bucket_check_interval(self, interval: int) -> RowFormatBuilder:
        """Accepted for compatibility (rolling is checked on every batch)."""
        return self

    def enable_compact(self, strategy: Any) -> RowFormatBuilder:
        """Compaction is not supported."""
        raise NotImplementedError("FileSink compaction is not supported")

    def disable_compact(self) -> RowFormatBuilder:
        """No compaction (the default)."""
        return self

    def build(self) -> FileSink:
        """The sink."""
        return FileSink(
            self.base_path,
            self.encoder,
            self.output_file_config,
            self.rolling_policy,
            self.bucket_assigner,
        )


@dataclass
class BulkFormatBuilder:
    """Builds a bulk-format ``FileSink`` (rolling on checkpoints and at the end of input)."""

    base_path: str
    writer_factory: Any
    output_file_config: OutputFileConfig = field(default_factory=OutputFileConfig)
    bucket_assigner: BucketAssigner = field(default_factory=BucketAssigner)

    def with_output_file_config(self, config: OutputFileConfig) -> BulkFormatBuilder:
        """Part file prefix/suffix."""
        self.output_file_config = config
        return self

    def with_bucket_assigner(self, assigner: BucketAssigner) -> BulkFormatBuilder:
        """Which bucket directory each element goes to."""
        self.bucket_assigner = assigner
        return self

    def with_rolling_policy(self, policy: RollingPolicy) -> BulkFormatBuilder:
        """Only ``RollingPolicy.on_checkpoint_rolling_policy()``: a bulk file cannot be cut mid-way."""
        if not policy.on_checkpoint:
            raise ValueError(
                "bulk formats roll on checkpoints only: use RollingPolicy.on_checkpoint_rolling_policy()"
            )
        return self

    def with_bucket_check_interval(self, interval: int) -> BulkFormatBuilder:
        """Accepted for compatibility."""
        return self

    def build(self) -> FileSink:
        """The sink."""
        return FileSink(
            self.base_path,
            None,
            self.output_file_config,
            RollingPolicy.on_checkpoint_rolling_policy(),
            self.bucket_assigner,
            self.writer_factory,
        )


class _Committable:
    """A closed part file under its hidden in-progress name, to be renamed to its final name."""

    __slots__ = ("final_path", "path")

    def __init__(self, path: str, final_path: str) -> None:
        self.path = path
        self.final_path = final_path

    def publish(self) -> None:
        """Rename to the final name; a file already committed (a replayed commit) is left alone."""
        if os.path.exists(self.path):
            os.replace(self.path, self.final_path)
        elif not os.path.exists(self.final_path):
            raise FileNotFoundError(
                f"pending part file {self.path} is gone and {self.final_path} does not exist"
            )


def _part_paths(directory: str, final_name: str) -> tuple[str, str]:
    """(hidden in-progress path, final path) of a new part file."""
    return os.path.join(directory, f".{final_name}.inprogress.{uuid.uuid4()}"), os.path.join(
        directory, final_name
    )


class _PartFile(_Committable):
    __slots__ = ("file", "last_write", "opened_at", "size")

    def __init__(self, directory: str, final_name: str) -> None:
        os.makedirs(directory, exist_ok=True)
        super().__init__(*_part_paths(directory, final_name))
        self.file = open(self.path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self.size = 0
        self.opened_at = time.time()
        self.last_write = self.opened_at

    def close(self) -> None:
        """Close the file (it becomes pending)."""
        self.file.close()

    def commit(self) -> None:
        self.close()
        self.publish()


class _TwoPhaseCommit:
    """The checkpoint side of the file writers (Flink's FileWriter + FileCommitter).

    At a checkpoint every open part file is closed and, with the part files that rolled
    since the last checkpoint, becomes pending under that checkpoint; when the checkpoint
    completes they are renamed to their final names. A writer restored from a completed
    checkpoint commits the files that checkpoint had pending (they hold exactly the records
    before its barrier), and goes on with the same part-file names. Files written after the
    last checkpoint of a failed attempt stay hidden (``.part-...inprogress``).
    """

    _uid: Any
    _counter: int
    _open: dict[str, Any]
    _pending: list[Any]

    def _init_commits(self) -> None:
        self._by_checkpoint: dict[int, list[_Committable]] = {}

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """Close the open part files; they and the rolled ones are pending for ``checkpoint_id``."""
        for part in self._open.values():
            part.close()
            self._pending.append(part)
        self._open.clear()
        self._by_checkpoint.setdefault(checkpoint_id, []).extend(self._pending)
        self._pending = []
        return {
            "version": 1,
            "uid": str(self._uid),
            "counter": self._counter,
            "pending": {
                cid: [(p.path, p.final_path) for p in parts] for cid, parts in self._by_checkpoint.items()
            },
        }

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Publish what checkpoints up to ``checkpoint_id`` made pending."""
        for cid in sorted(c for c in self._by_checkpoint if c <= checkpoint_id):
            for part in self._by_checkpoint.pop(cid):
                part.publish()

    def restore_state(self, state: dict[str, Any]) -> None:
        """Commit the files the (completed) checkpoint had pending; keep the part-file names going."""
        check_reader_state_version(state)
        if state["uid"] is not None:  # else: a new subtask after rescaling, with new names
            self._uid = state["uid"]
            self._counter = int(state["counter"])
        for files in state["pending"].values():
            for path, final_path in files:
                _Committable(path, final_path).publish()


class FileWriter(_TwoPhaseCommit):
    """One subtask's writer: one in-progress part file per bucket.

    A part file that rolls (size, time) becomes pending: closed, still under its hidden
    in-progress name, committed (renamed to its final name) only at the end of input, as
    Flink's FileSink commits pending files on a completed checkpoint or at the end of
    input. A job that fails or is cancelled therefore leaves no file that looks committed.
    """

    def __init__(self, sink: FileSink, context: WriterContext, renderer: TextRenderer) -> None:
        self._sink = sink
        self._render = renderer.render
        self._subtask = context.subtask_index
        self._uid = context.part_uid or uuid.uuid4()
        self._counter = 0
        self._open: dict[str, _PartFile] = {}
        self._pending: list[_PartFile] = []
        self._charset = getattr(sink.encoder, "charset", "UTF-8")
        self._init_commits()

    def write_batch(self, values: list[Any]) -> None:
        """Append the text of each element as a line."""
        now = time.time()
        for bucket, elements in _by_bucket(self._sink.bucket_assigner, values, now):
            self._write(bucket, elements, now)

    def _write(self, bucket: str, values: list[Any], now: float) -> None:
        part = self._open.get(bucket) or self._new_part(bucket)
        text = self._render(values) + "\n"
        part.file.write(text)
        part.size += len(text)
        part.last_write = now
        policy = self._sink.rolling_policy
        if not policy.on_checkpoint and (
            part.size >= policy.part_size or (now - part.opened_at) * 1000 >= policy.rollover_interval_ms
        ):
            part.file.close()
            self._pending.append(part)
            del self._open[bucket]

    def _new_part(self, bucket: str) -> _PartFile:
        config = self._sink.output_file_config
        name = f"{config.part_prefix}-{self._uid}-{self._subtask}-{self._counter}{config.part_suffix}"
        self._counter += 1
        part = _PartFile(os.path.join(self._sink.base_path, bucket), name)
        self._open[bucket] = part
        return part

    def finish(self) -> None:
        """End of input: commit every pending and open part file."""
        for parts in self._by_checkpoint.values():
            for pending in parts:
                pending.publish()
        self._by_checkpoint.clear()
        for part in self._pending:
            part.publish()
        self._pending.clear()
        for part in self._open.values():
            part.commit()
        self._open.clear()

    def close(self) -> None:
        """Close files; uncommitted in-progress files stay (nothing written is lost)."""
        for part in self._open.values():
            part.file.close()
        self._open.clear()


class _BulkPart(_Committable):
    """An in-progress bulk part file: written by the factory's writer, renamed on commit."""

    __slots__ = ("writer",)

    def __init__(self, directory: str, final_name: str, factory: Any) -> None:
        os.makedirs(directory, exist_ok=True)
        super().__init__(*_part_paths(directory, final_name))
        self.writer = factory.create(self.path)

    def close(self) -> None:
        """Finish the bulk file (footer written: it becomes pending)."""
        self.writer.finish()

    def commit(self) -> None:
        self.close()
        self.publish()


class BulkFileWriter(FileWriter):
    """One subtask's bulk writer: one in-progress part per bucket, committed at the end of input
    (and, once checkpoints exist, on each checkpoint)."""

    def __init__(self, sink: FileSink, context: WriterContext) -> None:
        self._sink = sink
        self._subtask = context.subtask_index
        self._uid = context.part_uid or uuid.uuid4()
        self._counter = 0
        self._open: dict[str, Any] = {}
        self._pending: list[Any] = []  # bulk parts roll only at the end of input and on checkpoints
        self._init_commits()

    def write_batch(self, values: list[Any]) -> None:
        """Hand the elements to the bucket's bulk writer."""
        for bucket, elements in _by_bucket(self._sink.bucket_assigner, values, time.time()):
            part = self._open.get(bucket)
            if part is None:
                config = self._sink.output_file_config
                name = f"{config.part_prefix}-{self._uid}-{self._subtask}-{self._counter}{config.part_suffix}"
                self._counter += 1
                part = self._open[bucket] = _BulkPart(
                    os.path.join(self._sink.base_path, bucket), name, self._sink.bulk_writer_factory
                )
            part.writer.add_batch(elements)

    def close(self) -> None:
        """Close files; uncommitted in-progress files stay."""
        for part in self._open.values():
            part.writer.close()
        self._open.clear()
