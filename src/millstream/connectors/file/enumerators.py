"""Handing out a FileSource's splits (Flink's SplitEnumerators on the JobMaster): the
static enumerator gives the next split to a reader that asks (splits of a failed reader
first), the continuous one lists the watched paths again every interval and hands out the
splits of new files. Their unassigned splits are part of every checkpoint.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from millstream.common.connector import SplitEnumeratorContext
from millstream.connectors.file.readers import FileSourceSplit

if TYPE_CHECKING:
    from millstream.connectors.file.source import FileSource

__all__ = ["ContinuousFileSplitEnumerator", "FileSplitEnumerator"]

log = logging.getLogger(__name__)


class FileSplitEnumerator:
    """Hands out a static file set's splits one at a time, in path order, to the reader that
    asks (Flink's ``StaticFileSplitEnumerator``); splits of a failed reader come back first."""

    def __init__(self, context: SplitEnumeratorContext, splits: list[FileSourceSplit]) -> None:
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


class ContinuousFileSplitEnumerator(FileSplitEnumerator):
    """Lists the paths every discovery interval and hands out the splits of new files to the
    readers asking (Flink's ``ContinuousFileSplitEnumerator``); a reader that asks while there
    is none waits for the next file. Never signals the end: the source is unbounded."""

    def __init__(
        self,
        context: SplitEnumeratorContext,
        source: FileSource,
        seen: set[str],
        splits: list[FileSourceSplit],
    ) -> None:
        super().__init__(context, splits)
        self._source = source
        self._seen = seen  # owner: JobMaster thread
        # what the listing skips: replaced (never changed) by the JobMaster thread, read by the worker
        self._known: frozenset[str] = frozenset(seen)
        self._waiting: dict[int, None] = {}  # readers that asked while there was no split, in order
        context.call_async(self._list_new_files, self._add_new_files, 0, source.discovery_interval_ms or 1000)

    def _list_new_files(self) -> list[tuple[str, list[FileSourceSplit]]]:
        """Worker thread: the files not seen yet, each with its splits (listing and sizes are I/O)."""
        known = self._known
        found = []
        for path in self._source._files():
            if path not in known:
                size = os.path.getsize(path)
                found.append((path, self._source.stream_format.units(path, size) if size else []))
        return found

    def _add_new_files(
        self, found: list[tuple[str, list[FileSourceSplit]]] | None, error: BaseException | None
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
