"""The source coordinator's bookkeeping (Flink's SplitAssignmentTracker) and the reader that
asks for splits, with a real FileSource over real files."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from millstream.common.connector import (
    REQUEST_SPLIT,
    AddSplitsEvent,
    NoMoreSplitsEvent,
    ReaderContext,
)
from millstream.connectors.file.readers import RequestingReader
from millstream.connectors.file.source import FileSource, StreamFormat
from millstream.runtime.checkpoint.storage import CompletedCheckpoint
from millstream.runtime.jobmanager.source_coordinator import SourceCoordinator


def source_of(tmp_path: Path, lines: int = 100, split_size: int = 64) -> FileSource:
    (tmp_path / "in.txt").write_text("".join(f"{i}\n" for i in range(lines)))
    return (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path / "in.txt"))
        .set_split_size(split_size)
        .build()
    )


class Readers:
    """What the coordinator sent to each subtask."""

    def __init__(self) -> None:
        self.events: dict[int, list[Any]] = {}

    def send(self, subtask: int, event: Any) -> bool:
        self.events.setdefault(subtask, []).append(event)
        return True

    def splits(self, subtask: int) -> list[Any]:
        return [s for e in self.events.get(subtask, []) if isinstance(e, AddSplitsEvent) for s in e.splits]


def coordinator(source: FileSource, readers: Readers, checkpoint: Any = None) -> SourceCoordinator:
    c = SourceCoordinator(7, "uid:lines", "lines", source, 2, readers.send)
    assert c.start(checkpoint)
    return c


def test_splits_are_handed_out_in_order_one_per_request_then_the_end(tmp_path: Path) -> None:
    source = source_of(tmp_path)
    readers = Readers()
    c = coordinator(source, readers)
    total = len(source.splits(2))
    assert total > 4
    for turn in range(total):
        c.handle_event(turn % 2, REQUEST_SPLIT)
    handed = readers.splits(0) + readers.splits(1)
    assert sorted(handed, key=lambda s: s.start) == source.splits(2)
    assert [s.start for s in readers.splits(0)] == sorted(s.start for s in readers.splits(0))
    c.handle_event(1, REQUEST_SPLIT)
    assert isinstance(readers.events[1][-1], NoMoreSplitsEvent)


def test_a_reset_subtask_gets_back_what_it_was_given_after_its_checkpoint(tmp_path: Path) -> None:
    source = source_of(tmp_path)
    readers = Readers()
    c = coordinator(source, readers)
    c.handle_event(0, REQUEST_SPLIT)  # split a: before checkpoint 1
    c.handle_event(1, REQUEST_SPLIT)  # split b
    state_1 = c.snapshot(1)
    c.handle_event(0, REQUEST_SPLIT)  # split c: after checkpoint 1, before 2
    c.snapshot(2)
    c.handle_event(0, REQUEST_SPLIT)  # split d: after checkpoint 2
    c.checkpoint_complete(1)
    a, c_split, d = readers.splits(0)
    assert state_1["splits"][0][1] == c_split.start  # c was still unassigned then
    c.subtask_reset(0, 1)  # restores checkpoint 1: its reader holds a, not c or d
    c.handle_event(0, REQUEST_SPLIT)
    c.handle_event(0, REQUEST_SPLIT)
    assert readers.splits(0)[3:] == [c_split, d]
    c.handle_event(1, REQUEST_SPLIT)  # the others continue after d
    assert readers.splits(1)[1].start > d.start
    assert a not in readers.splits(0)[3:]


def test_a_subtask_restarted_from_nothing_gets_back_everything_it_was_given(tmp_path: Path) -> None:
    source = source_of(tmp_path)
    readers = Readers()
    c = coordinator(source, readers)
    for subtask in (0, 1, 0):
        c.handle_event(subtask, REQUEST_SPLIT)
    given = readers.splits(0)
    c.subtask_reset(0, None)
    for _ in given:
        c.handle_event(0, REQUEST_SPLIT)
    assert readers.splits(0)[len(given) :] == given


def test_a_restart_from_a_checkpoint_resets_the_enumerator_to_it(tmp_path: Path) -> None:
    source = source_of(tmp_path)
    readers = Readers()
    c = coordinator(source, readers)
    c.handle_event(0, REQUEST_SPLIT)
    state = c.snapshot(3)
    c.handle_event(1, REQUEST_SPLIT)  # lost with the restart: the checkpoint still has it
    checkpoint = CompletedCheckpoint("job", 3, 0, 0, coordinator_states={"uid:lines": state})
    again = Readers()
    restored = coordinator(source, again, checkpoint)
    restored.handle_event(1, REQUEST_SPLIT)
    assert again.splits(1) == readers.splits(1)
    # a checkpoint that knew the source but kept no enumerator state: its readers held everything
    empty = CompletedCheckpoint("job", 4, 0, 0, operator_ids={7: "uid:lines"})
    none_left = Readers()
    coordinator(source, none_left, empty).handle_event(0, REQUEST_SPLIT)
    assert isinstance(none_left.events[0][0], NoMoreSplitsEvent)


def test_the_requesting_reader_asks_once_waits_and_ends_after_no_more_splits(tmp_path: Path) -> None:
    source = source_of(tmp_path, lines=10, split_size=1 << 20)
    requests: list[int] = []
    reader = source.create_reader(ReaderContext(0, 1, "lines", lambda: requests.append(1)))
    assert isinstance(reader, RequestingReader)
    assert reader.poll(100) == [] and reader.poll(100) == [] and requests == [1]
    assert reader.available_at == float("inf")  # sleeps until the answer arrives as mail
    reader.add_splits(source.splits(1))
    assert reader.poll(100) == [str(i) for i in range(10)]
    snapshot = reader.snapshot_state()
    assert reader.poll(100) == [] and requests == [1, 1]
    reader.notify_no_more_splits()
    assert reader.poll(100) is None
    # a restored reader continues its checkpointed splits before it asks again
    restored = source.create_reader(ReaderContext(0, 1, "lines", lambda: requests.append(2)))
    restored.restore_state(snapshot)
    assert restored.poll(100) == [] and requests[-1] == 2


def test_without_a_coordinator_each_reader_reads_its_static_share(tmp_path: Path) -> None:
    source = source_of(tmp_path, lines=1000)
    lines = []
    for subtask in range(2):
        reader = source.create_reader(ReaderContext(subtask, 2, "lines"))
        assert not isinstance(reader, RequestingReader)
        while (batch := reader.poll(100)) is not None:
            lines.extend(batch)
    assert sorted(map(int, lines)) == list(range(1000))


class Scheduled:
    """The JobMaster's thread, played by the test: ``schedule`` (called from any thread, as
    the coordinator's worker hands back its results) queues; the test runs what is queued."""

    def __init__(self) -> None:
        self.due: list[tuple[float, Any]] = []
        self.cond = threading.Condition()

    def schedule(self, delay_s: float, callback: Any) -> None:
        with self.cond:
            self.due.append((delay_s, callback))
            self.cond.notify_all()

    def _take(self, now: bool) -> list[Any]:
        with self.cond:
            taken = [c for d, c in self.due if (d == 0) == now]
            self.due = [(d, c) for d, c in self.due if (d == 0) != now]
        return taken

    def settle(self) -> None:
        """Wait for the worker's listing to come back, and handle it on this thread."""
        with self.cond:
            assert self.cond.wait_for(lambda: any(d == 0 for d, _ in self.due), timeout=10)
        for callback in self._take(now=True):
            callback()

    def tick(self) -> None:
        """The discovery interval passes: the next listing runs on the worker."""
        for callback in self._take(now=False):
            callback()


def monitored(tmp_path: Path, first: str) -> tuple[Path, FileSource]:
    """A watched directory holding ``a.txt`` (``first``) and a source monitoring it."""
    watched = tmp_path / "in"
    watched.mkdir()
    (watched / "a.txt").write_text(first)
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(watched))
        .monitor_continuously(100)
        .build()
    )
    return watched, source


def test_a_monitored_source_hands_out_new_files_to_waiting_readers(tmp_path: Path) -> None:
    watched, source = monitored(tmp_path, "1\n2\n")
    readers, timer = Readers(), Scheduled()
    c = SourceCoordinator(7, "uid:lines", "lines", source, 2, readers.send, timer.schedule)
    listed_on: list[str] = []
    original = source._files

    def files() -> list[str]:
        listed_on.append(threading.current_thread().name)
        return original()

    source._files = files  # type: ignore[method-assign]
    assert c.start()  # lists the directory at once, on the coordinator's worker thread
    timer.settle()
    assert listed_on == ["SourceCoordinator-lines_0"]
    c.handle_event(0, REQUEST_SPLIT)
    c.handle_event(1, REQUEST_SPLIT)  # nothing left: waits, no end of input
    assert [s.path for s in readers.splits(0)] == [str(watched / "a.txt")]
    assert 1 not in readers.events
    state = c.snapshot(1)
    (watched / "b.txt").write_text("3\n")
    (watched / ".hidden").write_text("4\n")
    timer.tick()  # the next discovery: b goes to the waiting reader
    timer.settle()
    assert [s.path for s in readers.splits(1)] == [str(watched / "b.txt")]
    assert state["seen"] == [str(watched / "a.txt")]
    # restored from the checkpoint: a is not read again, b (seen after it) is
    again, timer2 = Readers(), Scheduled()
    checkpoint = CompletedCheckpoint("job", 1, 0, 0, coordinator_states={"uid:lines": state})
    restored = SourceCoordinator(7, "uid:lines", "lines", source, 2, again.send, timer2.schedule)
    assert restored.start(checkpoint)
    timer2.settle()
    restored.handle_event(0, REQUEST_SPLIT)
    restored.handle_event(0, REQUEST_SPLIT)
    assert [s.path for s in again.splits(0)] == [str(watched / "b.txt")]
    # a replaced enumerator's periodic discovery stops
    c.close()
    restored.close()
    listings = len(listed_on)
    (watched / "c.txt").write_text("5\n")
    c.handle_event(0, REQUEST_SPLIT)
    timer.tick()
    assert timer.due == [] and len(listed_on) == listings  # no listing after the close
    assert [s.path for s in readers.splits(0)] == [str(watched / "a.txt")]


def test_a_split_for_a_subtask_that_is_not_running_goes_back(tmp_path: Path) -> None:
    source = source_of(tmp_path)
    sent: list[Any] = []
    c = SourceCoordinator(7, "uid:lines", "lines", source, 2, lambda s, e: False)
    c.start()
    c.handle_event(0, REQUEST_SPLIT)  # could not be delivered: first in line again
    c._send = lambda s, e: sent.append(e) or True  # type: ignore[method-assign]
    c.handle_event(0, REQUEST_SPLIT)
    assert sent[0].splits[0] == source.splits(2)[0]


def test_a_failed_listing_is_logged_and_tried_again_at_the_next_interval(tmp_path: Path, caplog: Any) -> None:
    """As Flink's ContinuousFileSplitEnumerator: an error of the listing (here the watched
    directory is gone for a while) is logged; discovery goes on."""
    watched, source = monitored(tmp_path, "1\n")
    readers, timer = Readers(), Scheduled()
    c = SourceCoordinator(7, "uid:lines", "lines", source, 1, readers.send, timer.schedule)
    try:
        assert c.start()
        timer.settle()
        c.handle_event(0, REQUEST_SPLIT)
        (watched / "a.txt").unlink()
        watched.rmdir()
        timer.tick()
        timer.settle()
        assert "listing" in caplog.text and "no such file or directory" in caplog.text
        watched.mkdir()
        (watched / "b.txt").write_text("2\n")
        c.handle_event(0, REQUEST_SPLIT)  # waits for a new file
        timer.tick()
        timer.settle()
        assert [s.path for s in readers.splits(0)] == [str(watched / "a.txt"), str(watched / "b.txt")]
    finally:
        c.close()
