"""Reading a FileSource's splits: the split itself (Flink's FileSourceSplit: bytes
``[start, end)`` of a file, or a format's own units), the readers of text lines (cut at line
ends across split borders, decoded by a format's LineDecoder), the reader that asks the
enumerator for splits as it finishes them (FLIP-27), and the reader of a monitored
directory. Each reader's position (splits left, records of the current one already
returned) is what a checkpoint holds.
"""

from __future__ import annotations

import os
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from millstream.connectors.base import check_reader_state_version

if TYPE_CHECKING:
    from millstream.connectors.file.source import FileSource

__all__ = [
    "FileReader",
    "FileSourceSplit",
    "LineDecoder",
    "LineError",
    "MonitoringReader",
    "RequestingReader",
    "TextLineReader",
]

READ_CHUNK = 1 << 20


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
class FileSourceSplit:
    """A unit of reading: bytes ``[start, end)`` of a file, or a format's own unit range."""

    path: str
    start: int
    end: int
    weight: int = 0  # bytes, to balance whole units over subtasks


class FileReader:
    """Reads its splits in order; ``current_file`` names the file being read (for errors).

    Subclasses implement ``_poll``, returning records of one split per batch (a batch never
    spans two splits). That is what makes the position checkpointable: the split being read,
    the splits after it, and how many records of the current split were returned; a restored
    reader opens the same split again and skips that many records.
    """

    def __init__(self, splits: list[FileSourceSplit]) -> None:
        self._splits = list(splits)
        self.available_at = 0.0
        self.current_file = ""
        self._current: FileSourceSplit | None = None  # the split the last batch came from
        self._returned_in_current = 0
        self._skip = 0  # records of the current split to drop (restored from a checkpoint)
        self._skips: dict[FileSourceSplit, int] = {}  # split -> records of it returned before the checkpoint
        self._done_bytes = 0  # of the splits read to their end (progress)
        self._counted: FileSourceSplit | None = None  # the last split counted in _done_bytes

    def bytes_read(self) -> int:
        """Bytes of the input read so far (whole splits, and the current one's position)."""
        return self._done_bytes + self._current_bytes()

    def _current_bytes(self) -> int:
        """Bytes read of the current split (a reader that knows its position says)."""
        return 0

    def _next_split(self) -> FileSourceSplit | None:
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

    def add_splits(self, splits: list[FileSourceSplit]) -> None:
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
            split = FileSourceSplit(*entry[:4])
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

    def __init__(
        self, splits: list[FileSourceSplit], charset: str, decoder: LineDecoder | None = None
    ) -> None:
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

    @property
    def current_file(self) -> str:
        """The file being read (also when reading it just failed)."""
        return self._inner.current_file

    def add_splits(self, splits: list[Any]) -> None:
        """Splits assigned by the enumerator."""
        self._inner.add_splits([s if isinstance(s, FileSourceSplit) else FileSourceSplit(*s) for s in splits])
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
        batch = self._poll_inner(max_records)
        if batch:
            return batch
        now = time.monotonic()
        if now >= self._next_discovery:
            self._next_discovery = now + self._interval
            self._discover()
            batch = self._poll_inner(max_records)
            if batch:
                return batch
        self.available_at = self._next_discovery
        return []

    def _poll_inner(self, max_records: int) -> list[Any] | None:
        try:
            return self._inner.poll(max_records)
        finally:  # the file being read, also when reading it failed
            self.current_file = self._inner.current_file

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
