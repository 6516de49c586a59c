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
"""

from __future__ import annotations

import logging
import os
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.common.connector import ReaderContext, SplitEnumeratorContext
from millstream.connectors.base import check_reader_state_version

__all__ = ["BulkFormat", "FileSource", "FileSourceBuilder", "FileSplitEnumerator", "StreamFormat"]

log = logging.getLogger(__name__)


READ_CHUNK = 1 << 20


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

    def splits(self, parallelism: int = 0) -> list[_Split]:
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
                result.append(_Split(path, start, min(start + split_size, size)))
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
        splits = [_Split(*entry) for entry in state["splits"]]
        if self.discovery_interval_ms is not None:
            return ContinuousFileSplitEnumerator(context, self, set(state.get("seen", ())), splits)
        return FileSplitEnumerator(context, splits)


class FileSplitEnumerator:
    """Hands out a static file set's splits one at a time, in path order, to the reader that
    asks (Flink's ``StaticFileSplitEnumerator``); splits of a failed reader come back first."""

    def __init__(self, context: SplitEnumeratorContext, splits: list[_Split]) -> None:
        self._context = context
        self._splits = list(splits)  # owner: JobMaster thread; next to hand out first

    def handle_split_request(self, subtask: int) -> None:
        """The next split to ``subtask``, or the end when none is left."""
        if self._splits:
            self._context.assign_split(self._splits.pop(0), subtask)
        else:
            self._context.signal_no_more_splits(subtask)

    def add_splits_back(self, splits: list[Any], subtask: int) -> None:
        """Splits a failed reader had not checkpointed: handed out again before the others."""
        self._splits[:0] = splits

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """The splits not handed out."""
        return {"version": 1, "splits": [(s.path, s.start, s.end, s.weight) for s in self._splits]}


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
    """Reads its splits in order; ``current_file`` names the file being read (for errors).

    Subclasses implement ``_poll``, returning records of one split per batch (a batch never
    spans two splits). That is what makes the position checkpointable: the split being read,
    the splits after it, and how many records of the current split were returned; a restored
    reader opens the same split again and skips that many records.
    """

    def __init__(self, splits: list[_Split]) -> None:
        self._splits = list(splits)
        self.available_at = 0.0
        self.current_file = ""
        self._current: _Split | None = None  # the split the last batch came from
        self._returned_in_current = 0
        self._skip = 0  # records of the current split to drop (restored from a checkpoint)
        self._skips: dict[_Split, int] = {}  # split -> records of it returned before the checkpoint
        self._done_bytes = 0  # of the splits read to their end (progress)
        self._counted: _Split | None = None  # the last split counted in _done_bytes

    def bytes_read(self) -> int:
        """Bytes of the input read so far (whole splits, and the current one's position)."""
        return self._done_bytes + self._current_bytes()

    def _current_bytes(self) -> int:
        """Bytes read of the current split (a reader that knows its position says)."""
        return 0

    def _next_split(self) -> _Split | None:
        """Close the current file and take the next split (None when all are read)."""
        self.close()
        if self._current is not None and self._counted is not self._current:
            self._counted = self._current
            self._done_bytes += self._current.weight or max(0, self._current.end - self._current.start)
        if not self._splits:
            return None
        split = self._splits.pop(0)
        self.current_file = split.path
        self._current = split
        self._returned_in_current = 0
        self._skip = self._skips.pop(split, 0)
        return split

    def add_splits(self, splits: list[_Split]) -> None:
        """More splits to read after the current ones (new files of a monitored source)."""
        self._splits.extend(splits)

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` records; None when every split is read."""
        while True:
            batch = self._poll(max_records)
            if not batch:
                return batch
            if self._skip:
                dropped = min(self._skip, len(batch))
                self._skip -= dropped
                self._returned_in_current += dropped
                batch = batch[dropped:]
                if not batch:
                    continue
            self._returned_in_current += len(batch)
            return batch

    def _poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` records of one split; None when every split is read."""
        raise NotImplementedError

    def snapshot_state(self) -> dict[str, Any]:
        """The splits still to read (the current one first), each with the number of its
        records already returned."""
        splits = [(s.path, s.start, s.end, s.weight, self._skips.get(s, 0)) for s in self._splits]
        if self._current is not None:
            current = self._current
            returned = self._returned_in_current + self._skip
            splits.insert(0, (current.path, current.start, current.end, current.weight, returned))
        return {"version": 1, "splits": splits}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Read the checkpointed splits, dropping the records of each already returned."""
        check_reader_state_version(state)
        self.close()
        self._splits, self._skips = [], {}
        for index, entry in enumerate(state["splits"]):
            split = _Split(*entry[:4])
            # a state of before per-split positions: only its first split was begun
            skip = entry[4] if len(entry) > 4 else (int(state.get("skip", 0)) if index == 0 else 0)
            self._splits.append(split)
            if skip:
                self._skips[split] = int(skip)
        self._current = None
        self._returned_in_current = 0
        self._skip = 0

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

    def _poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` records of one split; None when every split is read."""
        while len(self._pending) < max_records:
            if self._split_done and (self._pending or not self._open_next()):
                break  # the split's records go out before the next split opens
            self._pending.extend(self._read_chunk())
        if not self._pending:
            return None
        batch = self._pending[:max_records]
        del self._pending[:max_records]
        return batch

    def _current_bytes(self) -> int:
        current = self._current
        if self._file is None or current is None or self._counted is current:
            return 0
        return max(0, min(self._pos, current.end) - current.start)

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


class ContinuousFileSplitEnumerator(FileSplitEnumerator):
    """Lists the paths every discovery interval and hands out the splits of new files to the
    readers asking (Flink's ``ContinuousFileSplitEnumerator``); a reader that asks while there
    is none waits for the next file. Never signals the end: the source is unbounded."""

    def __init__(
        self, context: SplitEnumeratorContext, source: FileSource, seen: set[str], splits: list[_Split]
    ) -> None:
        super().__init__(context, splits)
        self._source = source
        self._seen = seen  # owner: JobMaster thread
        # what the listing skips: replaced (never changed) by the JobMaster thread, read by the worker
        self._known: frozenset[str] = frozenset(seen)
        self._waiting: dict[int, None] = {}  # readers that asked while there was no split, in order
        context.call_async(self._list_new_files, self._add_new_files, 0, source.discovery_interval_ms or 1000)

    def _list_new_files(self) -> list[tuple[str, list[_Split]]]:
        """Worker thread: the files not seen yet, each with its splits (listing and sizes are I/O)."""
        known = self._known
        found = []
        for path in self._source._files():
            if path not in known:
                size = os.path.getsize(path)
                found.append((path, self._source.stream_format.units(path, size) if size else []))
        return found

    def _add_new_files(
        self, found: list[tuple[str, list[_Split]]] | None, error: BaseException | None
    ) -> None:
        """JobMaster thread: the new files' splits join the queue; waiting readers get them. A
        failed listing is logged and tried again at the next interval (as Flink does)."""
        if error is not None:
            log.error("FileSource: listing %s failed: %s", ", ".join(self._source.paths), error)
            return
        for path, splits in found or ():
            if path not in self._seen:
                self._seen.add(path)
                self._splits.extend(splits)
        self._known = frozenset(self._seen)
        self._serve_waiting()

    def _serve_waiting(self) -> None:
        while self._waiting and self._splits:
            subtask = next(iter(self._waiting))
            del self._waiting[subtask]
            self._context.assign_split(self._splits.pop(0), subtask)

    def handle_split_request(self, subtask: int) -> None:
        """The next split to ``subtask``, or later, when a new file brings one."""
        self._waiting[subtask] = None
        self._serve_waiting()

    def add_splits_back(self, splits: list[Any], subtask: int) -> None:
        """A failed reader's splits, first in line; it asks again once it runs."""
        self._waiting.pop(subtask, None)
        super().add_splits_back(splits, subtask)
        self._serve_waiting()

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """The files seen and the splits not handed out."""
        return {**super().snapshot_state(checkpoint_id), "seen": sorted(self._seen)}


class RequestingReader:
    """Reads the splits its enumerator assigns, asking for the next one when it has read all
    it holds (FLIP-27's ``SourceReaderBase``: one request at a time); ends once the
    enumerator says there are no more and the last split is read."""

    def __init__(self, inner: FileReader, request: Callable[[], None]) -> None:
        self._inner = inner
        self._request = request
        self._requested = False  # a request is on its way, not answered yet
        self._no_more = False  # the enumerator has no split left for this reader
        self.available_at = 0.0
        self.current_file = ""

    def add_splits(self, splits: list[Any]) -> None:
        """Splits assigned by the enumerator."""
        self._inner.add_splits([s if isinstance(s, _Split) else _Split(*s) for s in splits])
        self._requested = False
        self.available_at = 0.0

    def notify_no_more_splits(self) -> None:
        """No split will come any more."""
        self._no_more = True
        self._requested = False
        self.available_at = 0.0

    def poll(self, max_records: int) -> list[Any] | None:
        """Records of the held splits; [] while waiting for the enumerator; None at the end."""
        batch = self._inner.poll(max_records)
        self.current_file = self._inner.current_file
        if batch is not None:
            return batch
        return self._between_splits()

    def poll_timestamped(self, max_records: int) -> Any:
        """``poll`` with the records' timestamps (None: none) and, from a reader that reports
        them, the watermark values of the rows it read (a columnar scan's)."""
        inner = getattr(self._inner, "poll_timestamped", None)
        if inner is None:
            batch = self.poll(max_records)
            return None if batch is None else (batch, None)
        polled = inner(max_records)
        self.current_file = self._inner.current_file
        if polled is not None:
            return polled
        waiting = self._between_splits()
        return None if waiting is None else (waiting, None)

    def _between_splits(self) -> list[Any] | None:
        """Every held split is read: [] after asking for more, None when none will come."""
        if self._no_more:
            return None
        if not self._requested:
            self._requested = True
            self._request()
        self.available_at = float("inf")  # the answer arrives as a mail and wakes the task
        return []

    def snapshot_state(self) -> dict[str, Any]:
        """The assigned splits not yet read, with the position in the current one."""
        return self._inner.snapshot_state()

    def bytes_read(self) -> int:
        """Bytes of the input read so far (progress)."""
        return self._inner.bytes_read()

    def restore_state(self, state: dict[str, Any]) -> None:
        """Continue the splits held at the checkpoint (then ask for more); a monitoring reader's
        state (taken without a coordinator) brings its splits, its seen files are the enumerator's."""
        self._inner.restore_state(state.get("inner", state))

    def close(self) -> None:
        """Close the open file."""
        self._inner.close()


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

    def snapshot_state(self) -> dict[str, Any]:
        """The files seen so far and the position in those of this subtask."""
        return {"version": 1, "seen": sorted(self._seen), "inner": self._inner.snapshot_state()}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Files seen before the checkpoint are not assigned again; the rest is the inner position."""
        check_reader_state_version(state)
        self._seen = set(state["seen"])
        self._inner.restore_state(state["inner"])

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
