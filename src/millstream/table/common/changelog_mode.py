"""``ChangelogMode`` (``pyflink.table.changelog_mode``): the kinds of change a stream holds,
for ``from_changelog_stream`` / ``to_changelog_stream``."""

from __future__ import annotations

__all__ = ["ChangelogMode"]


class ChangelogMode:
    """``insert_only()`` (+I), ``upsert()`` (+I, +U, -D: each row replaces the row of its
    primary key; no -U) or ``all()`` (+I, -U, +U, -D)."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds

    @staticmethod
    def insert_only() -> ChangelogMode:
        """Only insertions."""
        return ChangelogMode(frozenset({"+I"}))

    @staticmethod
    def upsert() -> ChangelogMode:
        """Insertions, updates by key (no -U) and deletions."""
        return ChangelogMode(frozenset({"+I", "+U", "-D"}))

    @staticmethod
    def all() -> ChangelogMode:
        """Every kind of change."""
        return ChangelogMode(frozenset({"+I", "-U", "+U", "-D"}))

    def contains_only(self, kind: str) -> bool:
        """Whether ``kind`` is the only kind."""
        return self.kinds == frozenset({kind})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChangelogMode) and other.kinds == self.kinds

    def __hash__(self) -> int:
        return hash(self.kinds)

    def __repr__(self) -> str:
        order = ["+I", "-U", "+U", "-D"]
        return "[" + ",".join(k for k in order if k in self.kinds).replace("+I", "INSERT").replace(
            "-U", "UPDATE_BEFORE").replace("+U", "UPDATE_AFTER").replace("-D", "DELETE") + "]"  # fmt: skip
