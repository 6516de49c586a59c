"""What a table connector's source factory creates (Flink's ``ScanTableSource`` and its runtime
provider): the rows of a connector table, as a stream of ``(kind, row)`` changes the source
adds to a StreamExecutionEnvironment. A factory (``factories.DynamicTableFactory``) returns one
from ``create_source``; the planner wraps it in its scan node, normalizes an upsert changelog by
the primary key (Flink's ChangelogNormalize) and hands it the watermark strategy when the source
generates watermarks itself. So a connector knows this module and the factory SPI, never the
planner or the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from millstream.table.common.types import DataType

__all__ = ["TableSource"]


@dataclass(frozen=True)
class TableSource:
    """A connector table's source.

    Attributes:
        names: the columns it produces: the physical ones, then the metadata ones, as declared.
        types: their types.
        changelog: the changes it produces: ``insert-only``, ``all`` (``+I``/``-U``/``+U``/``-D``)
            or ``upsert`` (``+I``/``+U``/``-D`` by the ``primary_key`` columns, made a full
            changelog by the planner).
        primary_key: the positions of the primary key's columns (an upsert source's key).
    """

    names: list[str]
    types: list[DataType]
    changelog: str = "insert-only"
    primary_key: list[int] = field(default_factory=list)

    # it generates watermarks per split when given a strategy (Flink's SupportsWatermarkPushDown)
    supports_watermark_push_down: ClassVar[bool] = False

    def produce(self, env: Any, watermarks: Any) -> Any:
        """Add the source to ``env`` (a StreamExecutionEnvironment); its DataStream of ``(kind,
        row)`` changes. ``watermarks``: the WatermarkStrategy it applies (no watermarks unless
        the planner pushed the table's watermark into a source that supports it)."""
        raise NotImplementedError
