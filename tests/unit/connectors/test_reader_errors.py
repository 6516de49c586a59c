"""A source reader that fails names the file it was reading (the FLIP-27 wrapper and the
monitoring reader report their inner reader's file, also when its poll raised), so the
source's failure says the file once (issue 46: it said "on record '' at input position 0")."""

from __future__ import annotations

from typing import Any

import pytest

from millstream.connectors.file.readers import FileReader, FileSourceSplit, RequestingReader


class _Failing(FileReader):
    def _poll(self, max_records: int) -> list[Any] | None:
        split = self._next_split()
        raise ValueError(f"cannot decode {'nothing' if split is None else 'the first line'}")


def test_the_requesting_reader_names_the_file_its_inner_reader_failed_on() -> None:
    reader = RequestingReader(_Failing([FileSourceSplit("/data/part-0.csv", 0, 10)]), lambda: None)
    assert reader.current_file == ""
    with pytest.raises(ValueError, match="cannot decode the first line"):
        reader.poll(10)
    assert reader.current_file == "/data/part-0.csv"
