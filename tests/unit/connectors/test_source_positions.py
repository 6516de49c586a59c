"""Source readers resume from a checkpointed position: a reader restored from
``snapshot_state()`` returns exactly the elements the old reader had not returned yet
(no element lost, none twice), for every subtask, cut point and poll size."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.common.connector import CheckpointedSourceReader, ReaderContext
from millstream.connectors.collection import CollectionSource
from millstream.connectors.datagen import DataGeneratorSource
from millstream.connectors.number_seq import NumberSequenceSource


def drain(reader: Any, poll_size: int, limit: int | None = None) -> list[Any]:
    out: list[Any] = []
    while limit is None or len(out) < limit:
        batch = reader.poll(poll_size if limit is None else min(poll_size, limit - len(out)))
        if batch is None:
            break
        out.extend(batch)
    return out


def sources() -> dict[str, Any]:
    return {
        "collection": CollectionSource(list("abcdefghijklmnopqrstuvwxyz")),
        "number sequence": NumberSequenceSource(10, 90),
        "data generator": DataGeneratorSource(lambda i: i * i, 77),
    }


@pytest.mark.parametrize("name", list(sources()))
@given(
    parallelism=st.integers(1, 4),
    cut=st.integers(0, 100),
    poll_size=st.integers(1, 9),
)
def test_a_restored_reader_continues_exactly_after_the_checkpoint(name, parallelism, cut, poll_size):  # type: ignore[no-untyped-def]
    source = sources()[name]
    for subtask in range(parallelism):
        context = ReaderContext(subtask, parallelism, name)
        expected = drain(source.create_reader(context), poll_size)
        reader = source.create_reader(context)
        assert isinstance(reader, CheckpointedSourceReader)
        before = drain(reader, poll_size, limit=cut)
        state = reader.snapshot_state()
        after_old = drain(reader, poll_size)  # what the failed reader went on to read
        restored = source.create_reader(context)
        restored.restore_state(state)
        after = drain(restored, poll_size)
        assert before + after == expected
        assert after == after_old


def test_a_state_of_another_version_is_refused():
    reader = NumberSequenceSource(1, 10).create_reader(ReaderContext(0, 1, "numbers"))
    with pytest.raises(ValueError, match="not a version 1 state"):
        reader.restore_state({"version": 7, "returned": 3})
