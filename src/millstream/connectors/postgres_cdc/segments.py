"""Which snapshot read each row of a captured table, so that the change stream applies
exactly the changes those snapshots did not see.

A snapshot exported by a replication slot at its consistent point ``L`` sees exactly the
transactions whose commit record lies before ``L``; the slot decodes exactly the others
(PostgreSQL's own table synchronization of logical replication rests on this). When every
table is read from one snapshot at ``L`` and the stream starts at ``L``, nothing needs
filtering. But a snapshot can be read in pieces: a source restored mid-snapshot reads the
rest of the tables from a temporary slot's new snapshot (``L2 > L``) while the stream still
starts at ``L``. Each table then has key ranges read at different points:

    table orders:  keys <= 1042 read at L1,  keys > 1042 read at L2

and a change to key ``k`` of a transaction committed at ``c`` is applied iff ``c >= L(k)``:
a transaction before ``L(k)`` is already in the row the snapshot read. A key-changing
update is judged per side (its old key's delete, its new key's insert). Once the stream
passes the newest point, no change is filtered any more and the segments are dropped.

Keys are compared in Python in the order the snapshot read them: the snapshot orders text
key columns with ``COLLATE "C"`` (byte order of UTF-8, which is code point order, as
Python compares strings).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SnapshotSegments"]

Key = tuple[Any, ...]


class SnapshotSegments:
    """Per table (``schema.table``): ``[(after_key, lsn), ...]`` in key order, where a
    segment covers the keys above ``after_key`` (None: every key) up to the next segment's."""

    def __init__(self, by_table: dict[str, list[tuple[Key | None, int]]]) -> None:
        self._by_table = {t: list(s) for t, s in by_table.items()}  # owner: the reader (task thread)
        self.max_lsn = max((lsn for s in self._by_table.values() for _, lsn in s), default=0)

    @staticmethod
    def whole(tables: list[str], lsn: int) -> SnapshotSegments:
        """Every key of ``tables`` read from one snapshot at ``lsn``."""
        return SnapshotSegments({t: [(None, lsn)] for t in tables})

    def resumed(
        self, table: str | None, after_key: Key | None, rest: list[str], lsn: int
    ) -> SnapshotSegments:
        """The segments once the keys of ``table`` above ``after_key`` and all of ``rest`` are
        read from a new snapshot at ``lsn``."""
        by_table = dict(self._by_table)
        if table is not None:
            kept = list(by_table.get(table, [])) if after_key is not None else []
            by_table[table] = [*kept, (after_key, lsn)]
        for name in rest:
            if name != table:
                by_table[name] = [(None, lsn)]
        return SnapshotSegments(by_table)

    def point(self, table: str, key: Key) -> int:
        """The consistent point of the snapshot that read ``key`` of ``table`` (0: none did)."""
        found = 0
        for after, lsn in self._by_table.get(table, ()):
            if after is None or key > after:
                found = lsn
            else:
                break
        return found

    def applies(self, table: str, key: Key, commit_lsn: int) -> bool:
        """Whether a change to ``key`` committed at ``commit_lsn`` is not in the snapshot."""
        return commit_lsn >= self.point(table, key)

    def passed(self, lsn: int) -> bool:
        """Whether every transaction committed at or after ``lsn`` is applied whole."""
        return lsn >= self.max_lsn

    def to_state(self) -> dict[str, list[tuple[Key | None, int]]]:
        """Plain data for a checkpoint."""
        return {t: list(s) for t, s in self._by_table.items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SnapshotSegments) and other._by_table == self._by_table

    def __repr__(self) -> str:
        return f"SnapshotSegments({self._by_table!r})"

    __hash__ = None  # type: ignore[assignment]
