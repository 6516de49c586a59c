"""Processing JSON text in tables: built-in JSON functions and a Python function.

Each event is a JSON document (who, what, a device object, a list of tags). The program
reads fields out of it with the Table API's ``json_value`` (a typed result), with SQL's
``JSON_VALUE``, and rewrites whole documents with a Python function that parses them with
``json``, derives a field and writes them back, as a user function does in PyFlink. A
malformed document gives NULL fields (``JSON_VALUE``'s NULL ON ERROR) and a flagged row.

Run: ``python examples/table/json_processing.py``.
"""

from __future__ import annotations

import json

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col
from millstream.table.udf import udf

EVENTS = [
    (1, '{"who": "ann", "what": "view", "device": {"os": "linux", "version": 6}, "tags": ["a", "b"]}'),
    (2, '{"who": "bob", "what": "buy", "device": {"os": "ios", "version": 17}, "tags": []}'),
    (3, '{"who": "ann", "what": "buy", "device": {"os": "android"}, "tags": ["c"]}'),
    (4, "not json at all"),
    (5, '{"who": "cid", "what": "view", "device": {"os": "linux", "version": 5}, "tags": ["a"]}'),
]


@udf(result_type=DataTypes.STRING())
def summarize(document: str) -> str:
    """The event with its tags counted and its device reduced to the OS name."""
    try:
        event = json.loads(document)
    except ValueError:
        return json.dumps({"error": "malformed", "length": len(document)})
    event["tag_count"] = len(event.pop("tags", []))
    event["device"] = event.get("device", {}).get("os", "unknown")
    return json.dumps(event, sort_keys=True)


def main() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    events = t_env.from_elements(
        EVENTS,
        DataTypes.ROW(
            [DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("doc", DataTypes.STRING())]
        ),
    )
    t_env.create_temporary_view("events", events)

    # the Table API: typed fields out of the document
    events.select(
        col("id"),
        col("doc").json_value("$.who", DataTypes.STRING()).alias("who"),
        col("doc").json_value("$.device.version", DataTypes.INT()).alias("version"),
        col("doc").json_value("$.tags[0]").alias("first_tag"),
    ).execute().print()

    # SQL: JSON_VALUE in a filter and an aggregation
    t_env.execute_sql(
        """
        SELECT JSON_VALUE(doc, '$.device.os') AS os, COUNT(*) AS events,
               MAX(CAST(JSON_VALUE(doc, '$.device.version') AS INT)) AS newest
        FROM events
        WHERE JSON_VALUE(doc, '$.what') IS NOT NULL
        GROUP BY JSON_VALUE(doc, '$.device.os')
        """
    ).print()

    # a Python function rewriting each document
    events.select(col("id"), summarize(col("doc")).alias("summary")).execute().print()


if __name__ == "__main__":
    main()
