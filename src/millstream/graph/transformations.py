"""Transformations: one frozen record per API call, referenced by integer id.

A ``DataStream`` wraps the id of one transformation; the environment keeps the id ->
transformation map. Setters such as ``set_parallelism`` replace the record (they are
frozen), so every later phase works on immutable data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from millstream.graph.operator_specs import ChainingStrategy, OperatorSpec
from millstream.graph.partitioning import Partitioner

__all__ = [
    "OneInputTransformation",
    "PartitionTransformation",
    "SideOutputTag",
    "SideOutputTransformation",
    "SinkTransformation",
    "SourceTransformation",
    "Transformation",
    "TwoInputTransformation",
    "UnionTransformation",
]


class SideOutputTag:
    """Base of ``OutputTag``: the runtime recognises side outputs by this type.

    Two tags are the same side output when their ids are equal, as in Flink.
    """

    __slots__ = ("tag_id", "type_info")

    def __init__(self, tag_id: str, type_info: Any = None) -> None:
        if not tag_id:
            raise ValueError("OutputTag id cannot be empty")
        self.tag_id = tag_id
        self.type_info = type_info

    def get_tag_id(self) -> str:
        """The tag's id."""
        return self.tag_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SideOutputTag) and other.tag_id == self.tag_id

    def __hash__(self) -> int:
        return hash(self.tag_id)

    def __repr__(self) -> str:
        return f"OutputTag({self.tag_id!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Transformation:
    """Fields every transformation has (``parallelism == -1``: use the default)."""

    id: int
    name: str
    parallelism: int = -1
    max_parallelism: int = -1
    uid: str | None = None
    description: str | None = None
    slot_sharing_group: str | None = None
    chaining_strategy: ChainingStrategy | None = None
    buffer_timeout: int | None = None
    output_type: Any = None
    non_parallel: bool = False

    @property
    def inputs(self) -> tuple[int, ...]:
        """Ids of the input transformations."""
        return ()

    @property
    def is_virtual(self) -> bool:
        """Virtual transformations become edge properties, not stream nodes."""
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceTransformation(Transformation):
    """A source: a connector ``Source``, a collection, or a user ``SourceFunction``."""

    operator: OperatorSpec
    watermark_strategy: Any = None
    bounded: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class OneInputTransformation(Transformation):
    """An operator with one input; ``state_key_selector`` is set on keyed streams."""

    input: int
    operator: OperatorSpec
    state_key_selector: Any = None

    @property
    def inputs(self) -> tuple[int, ...]:
        """The one input."""
        return (self.input,)


@dataclass(frozen=True, slots=True, kw_only=True)
class TwoInputTransformation(Transformation):
    """An operator with two inputs (connect, broadcast connect, interval join).

    ``state_key_selector1/2`` are set when both inputs are keyed (the first only, for a
    keyed stream connected with a broadcast stream).
    """

    input1: int
    input2: int
    operator: OperatorSpec
    state_key_selector1: Any = None
    state_key_selector2: Any = None

    @property
    def inputs(self) -> tuple[int, ...]:
        """Both inputs, first then second."""
        return (self.input1, self.input2)


@dataclass(frozen=True, slots=True, kw_only=True)
class SinkTransformation(Transformation):
    """A sink: print, file sink, user SinkFunction, collect."""

    input: int
    operator: OperatorSpec

    @property
    def inputs(self) -> tuple[int, ...]:
        """The one input."""
        return (self.input,)


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionTransformation(Transformation):
    """Virtual: sets the partitioner of the edges leaving ``input``."""

    input: int
    partitioner: Partitioner

    @property
    def inputs(self) -> tuple[int, ...]:
        """The one input."""
        return (self.input,)

    @property
    def is_virtual(self) -> bool:
        """Folded into edges."""
        return True


@dataclass(frozen=True, slots=True, kw_only=True)
class UnionTransformation(Transformation):
    """Virtual: the union of several streams of the same type."""

    union_inputs: tuple[int, ...]

    @property
    def inputs(self) -> tuple[int, ...]:
        """All unioned inputs."""
        return self.union_inputs

    @property
    def is_virtual(self) -> bool:
        """Folded into edges."""
        return True


@dataclass(frozen=True, slots=True, kw_only=True)
class SideOutputTransformation(Transformation):
    """Virtual: the side output ``tag`` of ``input``."""

    input: int
    tag: SideOutputTag

    @property
    def inputs(self) -> tuple[int, ...]:
        """The one input."""
        return (self.input,)

    @property
    def is_virtual(self) -> bool:
        """Folded into edges."""
        return True
