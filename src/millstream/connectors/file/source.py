"""FileSource: files read in a stream format (text lines, the schema'd formats) or a bulk format.

Reading text lines (and JSON Lines): files are cut into byte-range splits; a split owns
the lines that start inside it (Hadoop's line-split rule), so no line is lost or read
twice. (Flink reads a non-splittable text file with one subtask and hands out whole
files.) Lines lose their terminator (``\\n``, ``\\r\\n``, ``\\r``). Formats that cannot
start mid-file (CSV: headers and quoted line breaks) are read a whole file at a time and
Parquet a row group at a time: those units are their splits.
The formats themselves live in ``millstream.connectors.formats``.

Who reads which split: on millstream's runtime, a ``FileSplitEnumerator`` on the
JobMaster hands the splits out, in path order, one per request of a reader that ran out
(FLIP-27), so a faster subtask reads more; splits are then cut at most 1/8 of a reader's
share (and at most the split size), so the last ones are small. Without a coordinator
(the Spark runner) the files, taken as one sequence of bytes, are cut into
``parallelism`` equal byte ranges, subtask i reading range i (whole units go to the
subtask whose share holds their middle byte).

Monitoring (``monitor_continuously(interval)``, as Flink's continuous FileSource): the
source is unbounded; every ``interval`` the enumerator (Flink's
``ContinuousFileSplitEnumerator``) lists the paths again (on the source coordinator's
worker thread, not the JobMaster's) and hands the splits of files it has not seen to the
readers asking; without a coordinator each subtask lists the paths
itself and reads its share of the new files, each whole file by one subtask (chosen by a
stable hash of the path). Files whose names start with ``.`` or ``_`` are skipped (write a
file under such a name, then rename it: a file must be complete when it appears, as for
Flink and Spark's file stream source).

The readers are in ``readers.py``, the enumerators in ``enumerators.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from millstream.common.connector import ReaderContext, SplitEnumeratorContext
from millstream.connectors.base import check_reader_state_version
from millstream.connectors.file.enumerators import ContinuousFileSplitEnumerator, FileSplitEnumerator
from millstream.connectors.file.readers import (
    FileReader,
    FileSourceSplit,
    LineDecoder,
    MonitoringReader,
    RequestingReader,
    TextLineReader,
)

__all__ = ["BulkFormat", "FileSource", "FileSourceBuilder", "FileSplitEnumerator", "StreamFormat"]


DEFAULT_SPLIT_SIZE = 32 << 20
SPLITS_PER_READER = 8  # splits handed out on request: at least this many per reader
MIN_REQUESTED_SPLIT = 1 << 20


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
    def text_line_format(charset_name: str = "UTF-8") -> StreamFormat:
        """Each line of text is one element (a ``str``)."""
        return StreamFormat(charset_name)

    def is_splittable(self) -> bool:
        """Whether a file may be read in byte ranges by several subtasks."""
        return True

    def get_produced_type(self) -> Any:
        """The type of the records (None: plain Python objects)."""
        return None

    def units(self, path: str, size: int) -> list[FileSourceSplit]:
        """How a whole file is cut into units of work (one whole file here)."""
        return [FileSourceSplit(path, 0, size, size)]

    def create_reader(self, splits: list[FileSourceSplit]) -> FileReader:
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

    def total_bytes(self) -> int | None:
        """The size of every input file (the progress view's total); None when monitored."""
        return sum(os.path.getsize(path) for path in self._files()) if self.is_bounded() else None

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

    def splits(self, parallelism: int = 0) -> list[FileSourceSplit]:
        """All splits of all files, in path order; ``parallelism``: cut for that many readers
        asking for splits (at most 1/``SPLITS_PER_READER`` of a reader's share each)."""
        sizes = [(path, os.path.getsize(path)) for path in self._files()]
        split_size = self.split_size
        if parallelism > 0:
            share = -(-sum(size for _, size in sizes) // (parallelism * SPLITS_PER_READER))
            split_size = min(split_size, max(MIN_REQUESTED_SPLIT, share))
        result = []
        for path, size in sizes:
            if size == 0:
                continue
            if not self.stream_format.is_splittable():
                result.extend(self.stream_format.units(path, size))
                continue
            for start in range(0, size, split_size):
                result.append(FileSourceSplit(path, start, min(start + split_size, size)))
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

    def splits_of(self, subtask_index: int, parallelism: int) -> list[FileSourceSplit]:
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
                mine.append(FileSourceSplit(path, piece - offset, min(piece + self.split_size, end) - offset))
            offset += size
        return mine

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The reader states of the old subtasks split among ``parallelism`` new ones: their
        unread splits (each with its position) dealt round-robin, as Flink reassigns splits;
        a monitored source's new subtasks all know every file seen so far."""
        for index, state in enumerate(states):
            if state is None:
                raise ValueError(f"FileSource: the reader state of subtask {index} is missing")
            check_reader_state_version(state)
        # a monitored source's readers without a coordinator keep the files they saw too
        inners = [state.get("inner", state) for state in states]
        splits = [
            (*entry[:4], entry[4] if len(entry) > 4 else (int(inner.get("skip", 0)) if i == 0 else 0))
            for inner in inners
            for i, entry in enumerate(inner["splits"])
        ]
        dealt = [{"version": 1, "splits": splits[index::parallelism]} for index in range(parallelism)]
        if not any("seen" in state for state in states):
            return dealt
        seen = sorted({path for state in states for path in state["seen"]})
        return [{"version": 1, "seen": seen, "inner": inner} for inner in dealt]

    def create_reader(self, context: ReaderContext) -> FileReader | RequestingReader:
        """Reads the splits the enumerator hands out (with a coordinator), this subtask's
        static share (without), or, if monitored, its share of the files as they appear."""
        if context.send_split_request is not None:
            return RequestingReader(self.stream_format.create_reader([]), context.send_split_request)
        if self.discovery_interval_ms is not None:
            return MonitoringReader(self, context.subtask_index, context.parallelism)
        return self.stream_format.create_reader(self.splits_of(context.subtask_index, context.parallelism))

    def create_enumerator(self, context: SplitEnumeratorContext) -> FileSplitEnumerator:
        """The JobMaster's enumerator: every split of a static file set, or (monitored) the
        splits of the files as they appear, handed out on request."""
        if self.discovery_interval_ms is not None:
            return ContinuousFileSplitEnumerator(context, self, set(), [])
        return FileSplitEnumerator(context, self.splits(context.current_parallelism))

    def restore_enumerator(self, context: SplitEnumeratorContext, state: Any) -> FileSplitEnumerator:
        """The enumerator of a checkpoint: the splits it had not handed out then (and, when
        monitored, the files it had seen)."""
        check_reader_state_version(state)
        splits = [FileSourceSplit(*entry) for entry in state["splits"]]
        if self.discovery_interval_ms is not None:
            return ContinuousFileSplitEnumerator(context, self, set(state.get("seen", ())), splits)
        return FileSplitEnumerator(context, splits)


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
