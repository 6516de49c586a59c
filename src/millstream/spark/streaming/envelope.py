"""The envelope rows carry records between the query's stages: ``tag`` (the data set, or
``collect:<id>``), ``key`` (the pickled key of the consuming ``key_by`` edge), ``ts`` (event
time, ms), ``evt`` (the same, shifted, as a timestamp column for ``withWatermark``) and
``payload`` (the pickled value). Encoding chain outputs into envelopes and envelopes back
into a chain's inputs.
"""

from __future__ import annotations

import itertools
import pickle
from typing import Any

from millstream.spark.batch import COLLECT_PREFIX

__all__ = [
    "ENVELOPE_COLUMNS",
    "EVT_SHIFT",
    "carried_timestamp",
    "feed_envelopes",
    "records_only",
    "watermark_carriers",
]


ENVELOPE_COLUMNS = ["tag", "key", "ts", "evt", "payload"]


# ``evt`` = ``ts`` + this shift (2**41 ms, about 70 years). Spark's watermark starts at 0 and
# drops rows at or before it, so without the shift an element at event time 0 (or any
# negative one) would be late in Spark's first micro-batch, where Flink's initial
# watermark (Long.MIN_VALUE) makes nothing late. Spark's timers and watermark are read
# back with the shift removed. Event times in 1900..2191 stay within pandas' range.
EVT_SHIFT = 1 << 41


_MIN_TIMESTAMP = -(2**63)


_BATCH = 1024


def _envelope_schema() -> Any:
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType, TimestampType

    return StructType(
        [
            StructField("tag", StringType()),
            StructField("key", BinaryType()),
            StructField("ts", LongType()),
            StructField("evt", TimestampType()),
            StructField("payload", BinaryType()),
        ]
    )


class _Encoder:
    """Chain outputs -> envelope rows; the key column for the consuming key_by edge."""

    def __init__(self, tag: str, key_selector: Any, pending: list[tuple[Any, ...]]) -> None:
        self._tag = tag
        self._key = key_selector
        self._pending = pending

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        dumps = pickle.dumps
        key = self._key
        tag = self._tag
        stamps = timestamps if timestamps is not None else itertools.repeat(None)
        for value, ts in zip(values, stamps):
            key_bytes = dumps(key(value)) if key is not None else b""
            self._pending.append((tag, key_bytes, ts, dumps(value)))

    def emit_element(self, element: Any) -> None:
        """Watermarks are Spark's (withWatermark), not the chain's."""


class _CollectChannels:
    def __init__(self, pending: list[tuple[Any, ...]]) -> None:
        self._pending = pending

    def channel(self, collect_id: str) -> Any:
        encoder = _Encoder(COLLECT_PREFIX + collect_id, None, self._pending)

        class _Channel:
            def put(self, values: list[Any]) -> None:
                encoder.emit(values, None)

            def producer_finished(self) -> None:
                pass

        return _Channel()


def _frame(rows: list[tuple[Any, ...]]) -> Any:
    # pandas is optional (the [spark] extra installs it): imported when Spark runs a job
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["tag", "key", "ts", "payload"])
    frame["ts"] = frame["ts"].astype("Int64")
    # a record without a timestamp (Long.MIN_VALUE: a join's row of an input without event time)
    frame.loc[frame["ts"] == _MIN_TIMESTAMP, "ts"] = None
    frame["evt"] = pd.to_datetime(frame["ts"] + EVT_SHIFT, unit="ms", utc=True)
    return frame[ENVELOPE_COLUMNS]


def watermark_carriers(tags: list[str], timestamp: int, pending: list[tuple[Any, ...]]) -> None:
    """One carrier row per data set ``tags``: no payload, event time ``timestamp``.

    Spark computes its watermark from the event times of the rows reaching ``withWatermark``;
    Flink's from every record its timestamp assigner saw. A record the chain drops after the
    assigner (a filter) still moves Flink's watermark, so the chain's largest assigned
    timestamp travels on in a carrier, which every consumer skips as a record."""
    for tag in tags:
        pending.append((tag, b"", timestamp, None))


def carried_timestamp(frame: Any) -> int | None:
    """The largest event time of the carrier rows in ``frame`` (None without any)."""
    carriers = frame["payload"].isna()
    if not carriers.any():
        return None
    return int(frame["ts"][carriers].max())


def records_only(frame: Any) -> Any:
    """``frame`` without its watermark carriers."""
    carriers = frame["payload"].isna()
    return frame[~carriers] if carriers.any() else frame


def feed_envelopes(handlers: list[Any], frame: Any) -> None:
    """Envelope rows to the operator input their tag names (``"0"`` / ``"1"``), in batches;
    watermark carriers are skipped."""
    frame = records_only(frame)
    values = [pickle.loads(p) for p in frame["payload"]]
    stamps = _stamps(frame)
    inputs = [int(t) for t in frame["tag"]]
    start = 0
    for input_index, group in itertools.groupby(inputs):
        n = len(list(group))
        end = start + n
        for lo in range(start, end, _BATCH):
            hi = min(lo + _BATCH, end)
            handlers[input_index].process_batch(values[lo:hi], None if stamps is None else stamps[lo:hi])
        start = end


def _broadcast_first(frames: list[Any], tags: set[str]) -> Any:
    """One frame of ``frames``' rows, those of the broadcast inputs first (order kept otherwise)."""
    # pandas is optional (the [spark] extra installs it): imported when Spark runs a job
    import pandas as pd

    frame = pd.concat(frames, ignore_index=True) if len(frames) != 1 else frames[0]
    order = (~frame["tag"].isin(list(tags))).astype(int)
    return frame.iloc[order.argsort(kind="stable")]


def _stamps(frame: Any) -> list[int] | None:
    if "ts" not in frame or frame["ts"].isna().all():
        return None
    return [-(2**63) if v is None or v != v else int(v) for v in frame["ts"]]


def _event_time(spark_ms: int) -> int:
    """A Spark watermark or event-time timer (shifted) as Flink event time; 0 (Spark's
    initial watermark) is Flink's Long.MIN_VALUE."""
    return spark_ms - EVT_SHIFT if spark_ms > 0 else _MIN_TIMESTAMP
