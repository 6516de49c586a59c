"""Files: ``FileSource`` in a stream or bulk format and ``FileSink`` in row format.

Reading text lines (and JSON Lines): the files, taken as one sequence of bytes, are cut
into ``parallelism`` equal byte ranges, and subtask i reads range i (in splits of at most
the split size), so every subtask reads the same amount however the bytes are spread
over files; a split owns the lines that start inside it (Hadoop's line-split rule), so no
line is lost or read twice. (Flink reads a non-splittable text file with one subtask and
hands out whole files.) Lines lose their terminator (``\\n``, ``\\r\\n``, ``\\r``).
Formats that cannot start mid-file (CSV: headers and quoted line breaks) are read a
whole file at a time and Parquet a row group at a time; these units go, in path order,
to the subtask whose equal share of the bytes holds their middle.
The formats themselves live in ``millstream.connectors.formats``.

Monitoring (``monitor_continuously(interval)``, as Flink's continuous FileSource): the
source is unbounded; every ``interval`` each subtask lists the paths again and reads the
files it has not seen, each whole file by one subtask (chosen by a stable hash of the
path). Files whose names start with ``.`` or ``_`` are skipped (write a file under such
a name, then rename it: a file must be complete when it appears, as for Flink and
Spark's file stream source).

Writing (as Flink's ``FileSink``): each subtask writes to an in-progress file
``.part-<uuid>-<subtask>-<n>.inprogress.<id>`` inside its bucket directory and renames it
to ``part-<uuid>-<subtask>-<n>`` when the rolling policy rolls the file and at the end of
input. The default bucket assigner is ``yyyy-MM-dd--HH`` of processing time, as in Flink.
"""

from __future__ import annotations

import datetime
import errno
import os
import re
import time
import uuid
import zlib
from dataclasses import dataclass, field, replace
from typing import Any

from millstream.common.connector import ReaderContext, TextRenderer, WriterContext

__all__ = [
    "BucketAssigner",
    "BulkFileWriter",
    "BulkFormat",
    "BulkFormatBuilder",
    "FileSink",
    "FileSource",
    "FileSourceBuilder",
    "OutputFileConfig",
    "RollingPolicy",
    "StreamFormat",
]

READ_CHUNK = 1 << 20
DEFAULT_SPLIT_SIZE = 32 << 20


class StreamFormat:
    """A record format read from a stream of bytes (Flink's ``StreamFormat``): text lines here.

    Subclasses (``CsvReaderFormat``, ``JsonLinesReaderFormat``) change how the bytes of a
    split become records. A splittable format is read in byte ranges cut at line starts;
    any other format is read a whole file at a time.
    """

    kind = "text_line"

    def __init__(self, charset: str = "UTF-8") -> None:
        self.charset = charset

    @staticmethod
    def text_line_format(charset: str = "UTF-8") -> StreamFormat:
        """Each line of text is one element (a ``str``)."""
        return StreamFormat(charset)

    def is_splittable(self) -> bool:
        """Whether a file may be read in byte ranges by several subtasks."""
        return True

    def get_produced_type(self) -> Any:
        """The type of the records (None: plain Python objects)."""
        return None

    def units(self, path: str, size: int) -> list[_Split]:
        """How a whole file is cut into units of work (one whole file here)."""
        return [_Split(path, 0, size, size)]

    def create_reader(self, splits: list[_Split]) -> FileReader:
        """A reader of ``splits``, in order."""
        return TextLineReader(splits, self.charset, self.line_decoder())

    def line_decoder(self) -> LineDecoder | None:
        """Turns a chunk of lines into records (None: the lines are the records)."""
        return None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self))


class BulkFormat(StreamFormat):
    """A format read in units of its own (Flink's ``BulkFormat``: Parquet row groups)."""

    def is_splittable(self) -> bool:
        """Bulk formats are cut into their own units (``units``), never byte ranges."""
        return False


class LineDecoder:
    """Decodes lines of a line-based format; ``decode`` raises ``LineError`` for a bad line."""

    def decode(self, lines: list[str]) -> list[Any]:
        """The records of ``lines`` (lines may be skipped)."""
        raise NotImplementedError


class LineError(ValueError):
    """Line ``index`` of a chunk could not be decoded (``__cause__`` says why)."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index


@dataclass(frozen=True, slots=True)
class _Split:
    """A unit of reading: bytes ``[start, end)`` of a file, or a format's own unit range."""

    path: str
    start: int
    end: int
    weight: int = 0  # bytes, to balance whole units over subtasks


class FileSource:
    """Reads files or directories in a stream or bulk format; bounded unless monitored."""

    def __init__(
        self,
        stream_format: StreamFormat,
        paths: tuple[str, ...],
        split_size: int,
        discovery_interval_ms: int | None = None,
    ) -> None:
        self.stream_format = stream_format
        self.paths = paths
        self.split_size = split_size
        self.discovery_interval_ms = discovery_interval_ms

    @staticmethod
    def for_record_stream_format(stream_format: StreamFormat, *paths: str) -> FileSourceBuilder:
        """A builder for a source reading ``paths`` (files or directories) in ``stream_format``."""
        if not paths:
            raise ValueError("FileSource needs at least one path")
        return FileSourceBuilder(stream_format, tuple(str(p) for p in paths))

    @staticmethod
    def for_bulk_file_format(bulk_format: BulkFormat, *paths: str) -> FileSourceBuilder:
        """A builder for a source reading ``paths`` in a bulk format (Parquet)."""
        if not isinstance(bulk_format, BulkFormat):
            raise TypeError(f"for_bulk_file_format expects a BulkFormat, got {type(bulk_format).__name__}")
        return FileSource.for_record_stream_format(bulk_format, *paths)

    def is_bounded(self) -> bool:
        """A static file set is bounded; a monitored one is not."""
        return self.discovery_interval_ms is None

    def get_produced_type(self) -> Any:
        """The type of the records, from the format."""
        return self.stream_format.get_produced_type()

    def validate(self) -> None:
        """Before the job starts: every input path can be read.

        Raises:
            OSError: one line naming the path and the OS error (FileNotFoundError ...).
        """
        for path in self.paths:
            local = path.removeprefix("file://")
            try:
                if os.path.isdir(local):
                    os.listdir(local)
                else:
                    with open(local, "rb"):
                        pass
            except OSError as err:
                raise type(err)(f"FileSource: cannot read input path {path}: {err.strerror or err}") from None

    def splits(self) -> list[_Split]:
        """All splits of all files, in path order."""
        result = []
        for path in self._files():
            size = os.path.getsize(path)
            if size == 0:
                continue
            if not self.stream_format.is_splittable():
                result.extend(self.stream_format.units(path, size))
                continue
            for start in range(0, size, self.split_size):
                result.append(_Split(path, start, min(start + self.split_size, size)))
        return result

    def _files(self) -> list[str]:
        files: list[str] = []
        for path in self.paths:
            local = path.removeprefix("file://")
            if os.path.isdir(local):
                for root, dirs, names in os.walk(local):
                    dirs.sort()
                    files.extend(os.path.join(root, n) for n in sorted(names) if not n.startswith((".", "_")))
            elif os.path.exists(local):
                files.append(local)
            else:
                raise FileNotFoundError(f"FileSource: no such file or directory: {path}")
        return files

    def splits_of(self, subtask_index: int, parallelism: int) -> list[_Split]:
        """The splits of one subtask: its equal share of all bytes.

        A splittable format is cut at byte offsets (then at the split size); whole units
        (files, row groups) go, in order, to the subtask whose share holds their middle byte.
        """
        if not self.stream_format.is_splittable():
            units = self.splits()
            total = sum(u.weight for u in units)
            mine, offset = [], 0
            for unit in units:
                if (2 * offset + unit.weight) * parallelism // (2 * max(total, 1)) == subtask_index:
                    mine.append(unit)
                offset += unit.weight
            return mine
        sizes = [(path, os.path.getsize(path)) for path in self._files()]
        total = sum(size for _, size in sizes)
        lo, hi = total * subtask_index // parallelism, total * (subtask_index + 1) // parallelism
        mine = []
        offset = 0
        for path, size in sizes:
            start, end = max(lo, offset), min(hi, offset + size)
            for piece in range(start, end, self.split_size):
                mine.append(_Split(path, piece - offset, min(piece + self.split_size, end) - offset))
            offset += size
        return mine

    def create_reader(self, context: ReaderContext) -> FileReader:
        """Reads this subtask's share (of the files as they appear, if monitored)."""
        if self.discovery_interval_ms is not None:
            return MonitoringReader(self, context.subtask_index, context.parallelism)
        return self.stream_format.create_reader(self.splits_of(context.subtask_index, context.parallelism))


@dataclass
class FileSourceBuilder:
    """Builds a ``FileSource``."""

    stream_format: StreamFormat
    paths: tuple[str, ...]
    split_size: int = DEFAULT_SPLIT_SIZE

    def process_static_file_set(self) -> FileSourceBuilder:
        """Read the files once (the default)."""
        self.discovery_interval_ms = None
        return self

    discovery_interval_ms: int | None = None

    def monitor_continuously(self, discovery_interval: Any) -> FileSourceBuilder:
        """Keep watching the paths for new files every ``discovery_interval`` (unbounded)."""
        millis = (
            discovery_interval
            if isinstance(discovery_interval, int)
            else discovery_interval.to_milliseconds()
        )
        if millis <= 0:
            raise ValueError("the discovery interval must be positive")
        self.discovery_interval_ms = int(millis)
        return self

    def set_split_size(self, split_size: int) -> FileSourceBuilder:
        """Bytes per split of a splittable format (default 32 MiB)."""
        if split_size <= 0:
            raise ValueError("split size must be positive")
        self.split_size = split_size
        return self

    def build(self) -> FileSource:
        """The source."""
        return FileSource(self.stream_format, self.paths, self.split_size, self.discovery_interval_ms)


class FileReader:
    """Reads its splits in order; ``current_file`` names the file being read (for errors)."""

    def __init__(self, splits: list[_Split]) -> None:
        self._splits = list(splits)
        self.available_at = 0.0
        self.current_file = ""

    def _next_split(self) -> _Split | None:
        """Close the current file and take the next split (None when all are read)."""
        self.close()
        if not self._splits:
            return None
        split = self._splits.pop(0)
        self.current_file = split.path
        return split

    def add_splits(self, splits: list[_Split]) -> None:
        """More splits to read after the current ones (new files of a monitored source)."""
        self._splits.extend(splits)

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` records; None when every split is read."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the open file."""


class TextLineReader(FileReader):
    """Reads the lines of its splits, a chunk at a time (decoded by a line format)."""

    def __init__(self, splits: list[_Split], charset: str, decoder: LineDecoder | None = None) -> None:
        super().__init__(splits)
        self._charset = charset
        self._decoder = decoder
        self._pending: list[Any] = []
        self._file: Any = None
        self._pos = 0
        self._end = 0
        self._split_done = True

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` records; None when every split is read."""
        while len(self._pending) < max_records:
            if self._split_done and not self._open_next():
                break
            self._pending.extend(self._read_chunk())
        if not self._pending:
            return None
        batch = self._pending[:max_records]
        del self._pending[:max_records]
        return batch

    def _open_next(self) -> bool:
        split = self._next_split()
        if split is None:
            return False
        self._file = open(split.path, "rb")  # noqa: SIM115 - closed by _open_next/close
        self._end = split.end
        self._pos = split.start
        self._split_done = False
        if split.start > 0:
            self._file.seek(split.start - 1)
            self._pos = split.start - 1 + len(self._file.readline())
        return True

    def _read_chunk(self) -> list[Any]:
        """Records of the lines starting before the split end, from the next chunk of the file."""
        if self._pos >= self._end:
            self._split_done = True
            return []
        data = self._file.read(READ_CHUNK)
        if not data:
            self._split_done = True
            return []
        stop = data.find(b"\n", max(0, self._end - 1 - self._pos))
        if stop != -1:
            data = data[: stop + 1]
            self._split_done = True
        else:
            last = data.rfind(b"\n")
            if last != -1 and len(data) == READ_CHUNK:
                data = data[: last + 1]
            elif len(data) == READ_CHUNK:
                data += self._file.readline()
        chunk_start = self._pos
        self._pos += len(data)
        self._file.seek(self._pos)
        lines = _split_lines(data.decode(self._charset))
        if self._decoder is None:
            return lines
        try:
            return self._decoder.decode(lines)
        except LineError as err:
            offset = chunk_start + _line_start(data, err.index)
            raise ValueError(f"{self.current_file}: the line at byte {offset}: {err}") from err

    def close(self) -> None:
        """Close the open file."""
        if self._file is not None:
            self._file.close()
            self._file = None


class MonitoringReader(FileReader):
    """Reads the files of its share as they appear; never ends (the job is cancelled)."""

    def __init__(self, source: FileSource, subtask_index: int, parallelism: int) -> None:
        super().__init__([])
        self._source = source
        self._inner = source.stream_format.create_reader([])
        self._subtask = subtask_index
        self._parallelism = parallelism
        self._interval = (source.discovery_interval_ms or 1000) / 1000.0
        self._seen: set[str] = set()
        self._next_discovery = 0.0

    def _discover(self) -> None:
        for path in self._source._files():
            if path in self._seen:
                continue
            self._seen.add(path)
            if zlib.crc32(path.encode()) % self._parallelism != self._subtask:
                continue
            size = os.path.getsize(path)
            if size:
                self._inner.add_splits(self._source.stream_format.units(path, size))

    def poll(self, max_records: int) -> list[Any] | None:
        """Records of new files; [] until the next discovery when there are none."""
        batch = self._inner.poll(max_records)
        self.current_file = self._inner.current_file
        if batch:
            return batch
        now = time.monotonic()
        if now >= self._next_discovery:
            self._next_discovery = now + self._interval
            self._discover()
            batch = self._inner.poll(max_records)
            self.current_file = self._inner.current_file
            if batch:
                return batch
        self.available_at = self._next_discovery
        return []

    def close(self) -> None:
        """Close the open file."""
        self._inner.close()


def _split_lines(text: str) -> list[str]:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _line_start(data: bytes, index: int) -> int:
    """Byte offset in ``data`` where line ``index`` starts (terminators as ``_split_lines``)."""
    if index == 0:
        return 0
    for n, match in enumerate(_LINE_END.finditer(data), start=1):
        if n == index:
            return match.end()
    return len(data)


_LINE_END = re.compile(rb"\r\n|\r|\n")


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
        return moment.strftime(_java_to_strftime(self.format))


def _java_to_strftime(pattern: str) -> str:
    for java, py in (
        ("yyyy", "%Y"),
        ("MM", "%m"),
        ("dd", "%d"),
        ("HH", "%H"),
        ("mm", "%M"),
        ("ss", "%S"),
    ):
        pattern = pattern.replace(java, py)
    return pattern


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


class _PartFile:
    def __init__(self, directory: str, final_name: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.final_path = os.path.join(directory, final_name)
        self.path = os.path.join(directory, f".{final_name}.inprogress.{uuid.uuid4()}")
        self.file = open(self.path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self.size = 0
        self.opened_at = time.time()
        self.last_write = self.opened_at

    def commit(self) -> None:
        self.file.close()
        self.publish()

    def publish(self) -> None:
        os.replace(self.path, self.final_path)


class FileWriter:
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

    def write_batch(self, values: list[Any]) -> None:
        """Append the text of each element as a line."""
        now = time.time()
        bucket = self._sink.bucket_assigner.bucket_id(now)
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


class _BulkPart:
    """An in-progress bulk part file: written by the factory's writer, renamed on commit."""

    def __init__(self, directory: str, final_name: str, factory: Any) -> None:
        os.makedirs(directory, exist_ok=True)
        self.final_path = os.path.join(directory, final_name)
        self.path = os.path.join(directory, f".{final_name}.inprogress.{uuid.uuid4()}")
        self.writer = factory.create(self.path)

    def commit(self) -> None:
        self.writer.finish()
        os.replace(self.path, self.final_path)


class BulkFileWriter(FileWriter):
    """One subtask's bulk writer: one in-progress part per bucket, committed at the end of input
    (and, once checkpoints exist, on each checkpoint)."""

    def __init__(self, sink: FileSink, context: WriterContext) -> None:
        self._sink = sink
        self._subtask = context.subtask_index
        self._uid = context.part_uid or uuid.uuid4()
        self._counter = 0
        self._open: dict[str, Any] = {}
        self._pending: list[Any] = []  # bulk parts roll only at the end of input (and on checkpoints)

    def write_batch(self, values: list[Any]) -> None:
        """Hand the elements to the bucket's bulk writer."""
        bucket = self._sink.bucket_assigner.bucket_id(time.time())
        part = self._open.get(bucket)
        if part is None:
            config = self._sink.output_file_config
            name = f"{config.part_prefix}-{self._uid}-{self._subtask}-{self._counter}{config.part_suffix}"
            self._counter += 1
            part = self._open[bucket] = _BulkPart(
                os.path.join(self._sink.base_path, bucket), name, self._sink.bulk_writer_factory
            )
        part.writer.add_batch(values)

    def close(self) -> None:
        """Close files; uncommitted in-progress files stay."""
        for part in self._open.values():
            part.writer.close()
        self._open.clear()
