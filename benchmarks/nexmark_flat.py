"""Nexmark's events as a flat JSON table, the way most Flink programs declare them.

Nexmark's own DDL (``millstream.testing.nexmark.ddl``) reads one table whose person, auction
and bid are nested ROW columns. Most Flink programs over JSON events instead declare one flat
table: the fields of every kind side by side (21 columns), the event time as epoch
milliseconds, and a computed event-time column with a watermark::

    ts AS TO_TIMESTAMP_LTZ(`dateTime`, 3),
    WATERMARK FOR ts AS ts - INTERVAL '4' SECOND

``write_flat_events`` writes the events of a nested file (``write_events``) in that shape:
one JSON object a line with ``event_type`` and the fields of its person, auction or bid (the
fields of other kinds absent, so read as NULL), ``dateTime`` and ``expires`` as epoch
milliseconds of the nested file's timestamps read as UTC. ``ddl`` makes the same three views
(``person``, ``auction``, ``bid``, same columns, ``dateTime`` the rowtime) over it, so
Nexmark's queries run unchanged on either shape; with ``table.local-time-zone`` UTC both
shapes give the same result rows.
"""

from __future__ import annotations

import datetime
import json

__all__ = ["FLAT_COLUMNS", "ddl", "duckdb_views", "write_flat_events"]

_EPOCH = datetime.datetime(1970, 1, 1)
_MILLISECOND = datetime.timedelta(milliseconds=1)
_KINDS = ("person", "auction", "bid")

# (name, Flink type, DuckDB type), in the order a person, an auction and a bid add them
FLAT_COLUMNS = [
    ("event_type", "INT", "INTEGER"),
    ("id", "BIGINT", "BIGINT"),
    ("name", "VARCHAR", "VARCHAR"),
    ("emailAddress", "VARCHAR", "VARCHAR"),
    ("creditCard", "VARCHAR", "VARCHAR"),
    ("city", "VARCHAR", "VARCHAR"),
    ("state", "VARCHAR", "VARCHAR"),
    ("dateTime", "BIGINT", "BIGINT"),
    ("extra", "VARCHAR", "VARCHAR"),
    ("itemName", "VARCHAR", "VARCHAR"),
    ("description", "VARCHAR", "VARCHAR"),
    ("initialBid", "BIGINT", "BIGINT"),
    ("reserve", "BIGINT", "BIGINT"),
    ("expires", "BIGINT", "BIGINT"),
    ("seller", "BIGINT", "BIGINT"),
    ("category", "BIGINT", "BIGINT"),
    ("auction", "BIGINT", "BIGINT"),
    ("bidder", "BIGINT", "BIGINT"),
    ("price", "BIGINT", "BIGINT"),
    ("channel", "VARCHAR", "VARCHAR"),
    ("url", "VARCHAR", "VARCHAR"),
]


def _millis(stamp: str) -> int:
    """Epoch milliseconds of a nested file's ``yyyy-MM-dd HH:mm:ss.SSS`` (read as UTC)."""
    return (datetime.datetime.fromisoformat(stamp) - _EPOCH) // _MILLISECOND


def write_flat_events(nested_path: str, flat_path: str) -> None:
    """The events of the nested file at ``nested_path`` as flat JSON lines at ``flat_path``."""
    dumps = json.dumps
    with open(nested_path) as lines, open(flat_path, "w") as out:
        for line in lines:
            event = json.loads(line)
            kind = event["event_type"]
            flat = {"event_type": kind, **event[_KINDS[kind]]}
            flat["dateTime"] = _millis(flat["dateTime"])
            if "expires" in flat:
                flat["expires"] = _millis(flat["expires"])
            out.write(dumps(flat, separators=(",", ":")))
            out.write("\n")


def ddl(path: str, table: str = "nexmark_events") -> list[str]:
    """The flat events table at ``path`` (a computed ``TIMESTAMP_LTZ(3)`` event time with a
    4 s watermark delay) and Nexmark's three views over it, with the nested shape's columns."""
    columns = ",\n            ".join(f"`{name}` {flink}" for name, flink, _ in FLAT_COLUMNS)
    return [
        f"""CREATE TABLE {table} (
            {columns},
            ts AS TO_TIMESTAMP_LTZ(`dateTime`, 3),
            WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
        ) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')""",
        f"""CREATE VIEW person AS SELECT id, name, emailAddress, creditCard, city, state,
            ts AS `dateTime`, extra FROM {table} WHERE event_type = 0""",
        f"""CREATE VIEW auction AS SELECT id, itemName, description, initialBid, reserve,
            ts AS `dateTime`, TO_TIMESTAMP_LTZ(expires, 3) AS expires, seller, category, extra
            FROM {table} WHERE event_type = 1""",
        f"""CREATE VIEW bid AS SELECT auction, bidder, price, channel, url, ts AS `dateTime`,
            extra FROM {table} WHERE event_type = 2""",
    ]


def duckdb_views(path: str) -> list[str]:
    """The same three views in DuckDB (times as UTC ``TIMESTAMP``), reading the file each
    time a query runs (load + query)."""
    columns = ", ".join(f"{name}: '{duck}'" for name, _, duck in FLAT_COLUMNS)
    source = f"read_json('{path}', format = 'newline_delimited', columns = {{{columns}}})"
    return [
        f"""CREATE OR REPLACE VIEW person AS SELECT id, name, emailAddress, creditCard, city,
            state, make_timestamp(dateTime * 1000) AS dateTime, extra
            FROM {source} WHERE event_type = 0""",
        f"""CREATE OR REPLACE VIEW auction AS SELECT id, itemName, description, initialBid,
            reserve, make_timestamp(dateTime * 1000) AS dateTime,
            make_timestamp(expires * 1000) AS expires, seller, category, extra
            FROM {source} WHERE event_type = 1""",
        f"""CREATE OR REPLACE VIEW bid AS SELECT auction, bidder, price, channel, url,
            make_timestamp(dateTime * 1000) AS dateTime, extra FROM {source} WHERE event_type = 2""",
    ]
